"""Records after an item an insert moved keep the facts filed for them, and the overlay's
maps stay those of its changed records, write after write."""

from __future__ import annotations

from typing import Any

from mcp_sim.runtime.fact_maps import add_facts
from mcp_sim.runtime.fact_updates import FactMaps
from mcp_sim.runtime.state import StateRules
from mcp_sim.runtime.state_index import StateIndex, StateOverlay
from mcp_sim.runtime.state_shape import normalize
from mcp_sim.spec.world import World


def _world(count: int) -> World:
    items = [
        {"id": f"T{n:03d}", "name": f"Thing {n}", "city": ["Oslo", "Lima"][n % 2]}
        for n in range(count)
    ]
    tools = [{"name": "get", "description": "Get.", "input_schema": {"type": "object"}}]
    spec = {"world": "t", "title": "T", "description": "D.", "state": {"things": items}}
    return World.model_validate(spec | {"tools": tools})


def _built(overlay: StateOverlay) -> tuple[object, ...]:
    maps = FactMaps()
    for pointer, facts in overlay.changed.items():
        if facts is not None:
            add_facts(maps.keys, maps.inner_keys, maps.values, pointer, facts)
    return _maps(maps.keys, maps.inner_keys, maps.values)


def _maps(*maps: dict[str, Any]) -> tuple[object, ...]:
    return tuple(
        {k: list(v.items() if isinstance(v, dict) else v) for k, v in m.items()} for m in maps
    )


def test_an_insert_moves_the_records_after_it_keeping_their_facts() -> None:
    world = _world(40)
    index = StateIndex(world, world.state)
    rules = StateRules(world)
    overlay = index.overlay_of(world.state)
    new = {"id": "T999", "name": "Newcomer", "city": "Quito"}
    patch = [{"op": "add", "path": "/things/10", "value": new}]
    after = rules.apply(world.state, patch)
    moved = overlay.advance(world.state, after, patch)
    assert moved.shifted == {"/things"}
    # The item that was at 20 is at 21 now: the same facts, filed under its new place.
    assert moved.facts("/things/21") is index.records["/things/20"]
    assert [h.pointer for h in moved.key_hits(normalize("T020") or "")] == ["/things/21"]
    assert [h.pointer for h in moved.key_hits(normalize("T999") or "")] == ["/things/10"]
    assert _maps(moved.keys, moved.inner_keys, moved.values) == _built(moved)
    # A later write touches one record: the rest of the moved array is not filed again.
    patch = [{"op": "replace", "path": "/things/30/city", "value": "Quito"}]
    later = rules.apply(after, patch)
    again = moved.advance(after, later, patch)
    assert again.facts("/things/31") is moved.facts("/things/31")
    assert set(again.value_hits(normalize("quito") or "")) == {"/things/10", "/things/30"}
    assert _maps(again.keys, again.inner_keys, again.values) == _built(again)
