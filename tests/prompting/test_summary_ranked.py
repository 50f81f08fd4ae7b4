"""Rankings in a summary: the first N records by a number, for a tool whose name or
description ranks, under the state's own field names."""

from __future__ import annotations

from typing import Any

from mcp_sim.prompting.grounding import ground
from mcp_sim.prompting.summary_ranked import is_ranking
from mcp_sim.runtime.state_index import StateIndex
from mcp_sim.spec.world import ToolSpec, World


def _world(name: str, description: str) -> World:
    hives = [
        {
            "hive-id": f"HI-{i:03d}",
            "name": f"Hive {i}",
            "site": {"frames": i % 7, "yield": round((i * 37) % 101 + i / 100, 2)},
        }
        for i in range(80)
    ]
    spec = {"name": name, "description": description, "input_schema": {"type": "object"}}
    return World.model_validate(
        {
            "world": "t",
            "title": "T",
            "description": "Hand-made.",
            "state": {"hives": hives},
            "tools": [spec],
        }
    )


def _values(world: World, arguments: dict[str, Any]) -> dict[str, Any]:
    overlay = StateIndex(world, world.state).overlay_of(world.state)
    grounding = ground(overlay, world.state, world.tools[0], arguments)
    assert grounding.summary is not None
    return grounding.summary.values


def _tool(name: str, description: str) -> ToolSpec:
    return ToolSpec.model_validate(
        {"name": name, "description": description, "input_schema": {"type": "object"}}
    )


def test_a_tool_ranks_by_its_name_or_its_description() -> None:
    assert is_ranking(_tool("top_hives_by_yield", "Hives."))
    assert is_ranking(_tool("best_hives", "The n hives with the largest yield."))
    assert not is_ranking(_tool("hives_by_site", "The hives of a site."))


def test_the_number_the_name_names_is_ranked_with_each_records_key_and_name() -> None:
    world = _world("top_hives_by_yield", "The n hives with the largest yield.")
    values = _values(world, {"n": 3})
    hives = sorted(world.state["hives"], key=lambda h: -h["site"]["yield"])[:3]
    assert values["first_3_by_yield"] == [
        {"hive-id": h["hive-id"], "name": h["name"], "yield": h["site"]["yield"]} for h in hives
    ]
    assert "first_3_by_frames" not in values


def test_a_number_no_name_fits_is_ranked_among_all_and_ascending_when_asked() -> None:
    # The state calls the harvest ``yield``: every number gets its ranking.
    world = _world("topHivesByHoneyKg", "The n hives with the largest honey_kg.")
    values = _values(world, {"n": 2, "order": "asc"})
    lowest = sorted(world.state["hives"], key=lambda h: h["site"]["yield"])[:2]
    assert [r["yield"] for r in values["first_2_by_yield"]] == [h["site"]["yield"] for h in lowest]
    assert [r["frames"] for r in values["first_2_by_frames"]] == [0, 0]
