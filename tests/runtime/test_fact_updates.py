"""A session's fact maps moved on by one write's records equal the maps built whole."""

from __future__ import annotations

import random

from mcp_sim.runtime.fact_maps import add_facts
from mcp_sim.runtime.fact_updates import FactMaps, moved_on
from mcp_sim.runtime.state_shape import RecordFacts


def _built(changed: dict[str, RecordFacts | None]) -> FactMaps:
    maps = FactMaps()
    for pointer, facts in changed.items():
        if facts is not None:
            add_facts(maps.keys, maps.inner_keys, maps.values, pointer, facts)
    return maps


def _in_order(maps: FactMaps) -> tuple[object, ...]:
    """The maps with each label's holders in their order (the labels' own order aside)."""
    return (
        {k: list(v) for k, v in maps.keys.items()},
        {k: list(v) for k, v in maps.inner_keys.items()},
        {k: list(v.items()) for k, v in maps.values.items()},
    )


def _facts(rng: random.Random, n: int) -> RecordFacts | None:
    if rng.random() < 0.15:
        return None
    words = rng.sample(["red", "blue", "oslo", "lima", "7", "8", f"id{n}"], 3)
    inner = {w: f"/days/{w}" for w in rng.sample(["2024-01-02", "2024-01-03"], 1)}
    return RecordFacts(f"k{rng.randrange(6)}", "/things", {w: "" for w in words}, inner)


def test_moving_on_by_each_writes_records_equals_building_the_maps_whole() -> None:
    rng = random.Random(3)
    changed: dict[str, RecordFacts | None] = {}
    maps = FactMaps()
    for _ in range(60):
        # A write touches a few records: some changed before (they keep their place among
        # the changed records), some new (listed last), some removed.
        pointers = rng.sample([f"/things/{i}" for i in range(12)], rng.randint(1, 4))
        updates = {p: _facts(rng, i) for i, p in enumerate(sorted(pointers))}
        after = changed | updates
        kept = _in_order(maps)
        moved = moved_on(maps, changed, after, updates)
        assert _in_order(moved) == _in_order(_built(after))
        assert _in_order(maps) == kept  # the last version's maps are its own still
        changed, maps = after, moved


def test_a_record_updated_to_the_same_facts_changes_nothing() -> None:
    facts = RecordFacts("a1", "/things", {"red": ""})
    changed: dict[str, RecordFacts | None] = {"/things/0": facts}
    maps = _built(changed)
    moved = moved_on(maps, changed, dict(changed), {"/things/0": facts})
    assert _in_order(moved) == _in_order(maps)
