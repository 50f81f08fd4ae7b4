"""A store that writes every value as text (a Redis or etcd export): its numbers bound a range
search as numbers, and a composite key holding one part of an id's whole (``crate:C7:labels``)
is shown with the part's name, as an answer gathering the id's keys names it."""

from __future__ import annotations

from typing import Any

from mcp_sim.runtime.state_keys import part_name
from tests.prompting.test_flat_store_outline import rides_store
from tests.prompting.test_retrieval_shapes import tool, view_of, world_of


def depot_store() -> dict[str, Any]:
    """Crates whose weights are text, and each crate's labels under a key of its own."""
    state: dict[str, Any] = {}
    for n in range(40):
        state[f"crate/C{700 + n}"] = {
            "weight": f"{n * 2.5:.1f}",
            "hold": "aft" if n % 2 else "fore",
        }
        state[f"crate/C{700 + n}/labels"] = [f"L{n}", f"L{n + 1}"]
    return state


def test_numbers_written_as_text_bound_a_range_as_numbers() -> None:
    world = world_of(depot_store(), [tool("find_crates", min_weight="Kg.", max_weight="Kg.")])
    text = view_of(world, "find_crates", {"min_weight": "10", "max_weight": "20"})
    # 10.0, 12.5, ..., 20.0: five crates, compared by value, not as text ("7.5" > "20.0").
    assert "5 records meet all of them, all shown below." in text
    full = text.split("meeting some of the constraints")[0]
    assert all(f"- /crate~1C{700 + n}:" in full for n in range(4, 9))
    assert "/crate~1C703:" not in full and "/crate~1C709:" not in full


def test_a_keys_part_is_shown_with_its_name() -> None:
    world = world_of(depot_store(), [tool("crate_labels", crate_id="Crate.")])
    text = view_of(world, "crate_labels", {"crate_id": "C712"})
    assert '- /crate~1C712~1labels, "labels": ["L12","L13"]' in text
    world = world_of(rides_store(), [tool("list_rider_rides", rider_id="Rider id.")])
    text = view_of(world, "list_rider_rides", {"rider_id": "45"})
    assert '- /rider:45:rides, "rides": ["900115","900116","900117"]' in text


def test_only_a_composite_keys_third_part_names_a_part() -> None:
    assert part_name("rider:42:rides") == "rides"
    assert part_name("crate/C7/labels") == "labels"
    assert part_name("rider:42") is None
    assert part_name("2025-01-01T06:00") is None
