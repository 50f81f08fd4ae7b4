"""A large state's skeleton: given up once its JSON passes its room, never before."""

from __future__ import annotations

import json
from typing import Any

from mcp_sim.prompting.skeleton import skeleton
from mcp_sim.runtime.state_index import StateIndex, StateOverlay
from mcp_sim.spec.world import World


def _overlay(shop: World, state: dict[str, Any]) -> StateOverlay:
    world = shop.model_copy(update={"state": state})
    return StateIndex(world, state).overlay_of(state)


def _state() -> dict[str, Any]:
    readings = {
        f"2026-03-01T{i // 60:02d}:{i % 60:02d}": {"station": f"st-{i % 7}", "wind": i % 11}
        for i in range(600)
    }
    orders = [{"id": f"ord_{i}", "total": i} for i in range(40)]
    return {"settings": {"currency": "NOK", "open": True}, "readings": readings, "orders": orders}


def _written(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False, sort_keys=True, indent=1))


def test_a_skeleton_that_fits_its_room_is_built_whole(shop: World) -> None:
    state = _state()
    overlay = _overlay(shop, state)
    for limit in (0, 80, 2000):
        whole = skeleton(state, limit, overlay, 10**9)
        assert whole is not None
        # The room the skeleton's JSON takes is enough: the count it keeps is a lower bound.
        assert skeleton(state, limit, overlay, _written(whole)) == whole


def test_a_skeleton_longer_than_its_room_is_given_up(shop: World) -> None:
    state = _state()
    overlay = _overlay(shop, state)
    whole = skeleton(state, 0, overlay, 10**9)
    assert whole is not None and "<collection: /orders" in json.dumps(whole)
    assert skeleton(state, 0, overlay, _written(whole) // 4) is None
