"""A flat key-value export's outline follows the session's writes: its patterns' counts and
ids as they are now, keys of a type the store had none of named beside its patterns, and a
key holding a list of another pattern's ids leads to those records."""

from __future__ import annotations

import copy
from typing import Any

import jsonpatch

from mcp_sim.prompting.state_view import StateView
from mcp_sim.runtime.state_index import StateOverlay
from tests.prompting.test_retrieval_shapes import tool, view_of, world_of


def rides_store(riders: int = 60) -> dict[str, Any]:
    state: dict[str, Any] = {"seq:ride": "1000"}
    for r in range(riders):
        state[f"rider:{40 + r}:profile"] = {"name": f"Rider {r}", "plan": "annual"}
        state[f"rider:{40 + r}:rides"] = [f"{900100 + r * 3 + k}" for k in range(3)]
        for k in range(3):
            state[f"ride:{900100 + r * 3 + k}"] = {"bike": f"B{10400 + k}", "minutes": str(5 + k)}
    return state


PATCH: list[dict[str, Any]] = [
    {"op": "add", "path": "/ride:999999", "value": {"bike": "B10401", "minutes": "3"}},
    {"op": "remove", "path": "/rider:40:profile"},
    {"op": "add", "path": "/dock:D7", "value": {"slots": "12"}},
]


def outline(view: StateView, state: Any, overlay: StateOverlay) -> str:
    text = view.render(state, None, [], overlay=overlay)
    assert "**Collections**" in text
    return text


def test_the_outline_of_a_flat_store_counts_its_records_as_they_are_now() -> None:
    world = world_of(rides_store(), [tool("get_ride", ride_id="Ride id.")])
    view = StateView(world, budget_tokens=3000)
    start = view.index.overlay_of(world.state)
    assert "- /ride:*: object with 180 keys" in outline(view, world.state, start)
    after = jsonpatch.apply_patch(world.state, PATCH, in_place=False)
    moved = start.advance(world.state, after, PATCH)
    for overlay in (moved, view.index.overlay_of(copy.deepcopy(after))):
        text = outline(view, overlay.state, overlay)
        assert "- /ride:*: object with 181 keys" in text and "ride:999999" in text
        assert "- /rider:*:profile: object with 59 keys" in text
        # A key of a type the store had none of is shown beside its patterns.
        assert '"dock:D7": {' in text


def test_a_key_listing_another_patterns_ids_leads_to_their_records() -> None:
    world = world_of(rides_store(), [tool("list_rider_rides", rider_id="Rider id.")])
    text = view_of(world, "list_rider_rides", {"rider_id": "45"})
    assert '- /rider:45:rides, "rides": ["900115","900116","900117"]' in text
    for ride in ("900115", "900116", "900117"):
        assert f"- /ride:{ride}: " in text
