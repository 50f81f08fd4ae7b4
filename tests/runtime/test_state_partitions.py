"""One collection stored in partitions (an array of records per month, day file or shard) is
read as one collection: a search covers every partition, and a write to one moves its records."""

from __future__ import annotations

from typing import Any

import jsonpatch

from mcp_sim.runtime.state_collections import find_collections
from mcp_sim.runtime.state_index import StateIndex
from mcp_sim.runtime.state_partitions import partitioned
from tests.prompting.test_retrieval_shapes import tool, world_of


def stays_by_month(months: int = 6, per_month: int = 5) -> dict[str, Any]:
    """A hotel's guests, and their stays split per month of booking."""
    guests = [{"guest_id": f"G-{g}", "name": f"Guest {g}"} for g in range(8)]
    stays: dict[str, Any] = {}
    for m in range(1, months + 1):
        stays[f"{m:02d}"] = [
            {"stay_id": f"S{m}-{n}", "guest": f"G-{(m + n) % 8}", "nights": n + 1}
            for n in range(per_month)
        ]
    return {"guests": guests, "stays": {"2025": stays}}


def _world(state: dict[str, Any]) -> Any:
    return world_of(state, [tool("stays_of_guest", guest="Guest id.")])


def test_arrays_of_alike_records_under_keys_of_one_style_are_one_collection() -> None:
    state = stays_by_month()
    found = {c.pointer: c for c in find_collections(_world(state), state)}
    assert set(found) == {"/guests", "/stays/2025"}
    stays = found["/stays/2025"]
    assert stays.slots and not stays.keyed and stays.size == 30 and stays.id_field == "stay_id"
    index = StateIndex(_world(state), state)
    assert index.records["/stays/2025/03/2"].key == "S3-2"
    # Every month's stays of a guest are found by the one value.
    assert {"/stays/2025/01/0", "/stays/2025/06/3"} <= set(index.values["g-1"])


def test_a_record_appended_to_or_dropped_from_a_partition_moves_that_partition() -> None:
    state = stays_by_month()
    world = _world(state)
    index = StateIndex(world, state)
    start = index.overlay_of(state)
    stay = {"stay_id": "S9", "guest": "G-2", "nights": 2}
    added: list[dict[str, Any]] = [{"op": "add", "path": "/stays/2025/04/-", "value": stay}]
    after = jsonpatch.apply_patch(state, added, in_place=False)
    moved = start.advance(state, after, added)
    assert set(moved.changed) == {"/stays/2025/04/5"}
    removed: list[dict[str, Any]] = [{"op": "remove", "path": "/stays/2025/02/1"}]
    later = jsonpatch.apply_patch(after, removed, in_place=False)
    gone = moved.advance(after, later, removed)
    rebuilt = StateIndex(world, later).overlay_of(later)
    assert gone.record_count("/stays/2025") == rebuilt.record_count("/stays/2025") == 30


def test_a_partition_added_whole_adds_its_records() -> None:
    state = stays_by_month()
    start = StateIndex(_world(state), state).overlay_of(state)
    month = [{"stay_id": "S7-0", "guest": "G-0", "nights": 1}]
    patch: list[dict[str, Any]] = [{"op": "add", "path": "/stays/2025/07", "value": month}]
    after = jsonpatch.apply_patch(state, patch, in_place=False)
    assert set(start.advance(state, after, patch).changed) == {"/stays/2025/07/0"}


def test_few_named_or_unlike_arrays_are_no_partitions() -> None:
    rows = [{"id": 1, "name": "a"}, {"id": 2, "name": "b"}]
    assert partitioned({f"part-{p:05d}": rows for p in range(4)})
    # Three partitions may be three named lists side by side.
    assert not partitioned({f"part-{p:05d}": rows for p in range(3)})
    # Lists named by words: open, closed, archived ... are states, not partitions.
    assert not partitioned({name: rows for name in ("open", "closed", "archived", "draft")})
    # Arrays of different records under numbered keys are different collections.
    other = [{"sku": "X", "price": 3, "stock": 1}]
    assert not partitioned({"v1": rows, "v2": other, "v3": rows, "v4": other})
