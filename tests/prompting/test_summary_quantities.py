"""Totals of quantities written with units (``"12 kg"``, ``"250m"``), in the unit the tool's
output schema asks for, on a warehouse of mixed records that no rule was written for."""

from __future__ import annotations

from typing import Any

from mcp_sim.prompting.aggregate_calls import is_aggregate
from mcp_sim.prompting.grounding import ground
from mcp_sim.runtime.state_index import StateIndex
from mcp_sim.spec.world import World

_TOTALS = {
    "type": "object",
    "properties": {
        "crates": {"type": "integer"},
        "gross_weight_kg": {"type": "number"},
        "max_volume_litres": {"type": "number"},
    },
}


def _warehouse() -> dict[str, Any]:
    stock: list[dict[str, Any]] = []
    weights = ["12 kg", "800 g", "1.5 kg", "250 g"]
    for i in range(40):
        stock.append(
            {
                "type": "Crate",
                "ref": f"CR-{i:03d}",
                "bay": f"BAY-{i % 4}",
                "state": ["Stored", "Shipped", "Lost"][i % 3],
                "load": {"gross": weights[i % 4], "volume": f"{10 + i} l"},
            }
        )
    stock += [{"type": "Bay", "ref": f"BAY-{b}", "aisle": b} for b in range(4)]
    return {"stock": stock}


def _world(description: str, output: dict[str, Any] | None = _TOTALS) -> World:
    tool: dict[str, Any] = {
        "name": "bay_load",
        "description": description,
        "input_schema": {"type": "object", "properties": {"bay": {"type": "string"}}},
    }
    if output is not None:
        tool["output_schema"] = output
    return World.model_validate(
        {
            "world": "w",
            "title": "W",
            "description": "A warehouse's stock list.",
            "state": _warehouse(),
            "tools": [tool],
        }
    )


def _values(world: World) -> dict[str, Any]:
    overlay = StateIndex(world, world.state).overlay_of(world.state)
    grounding = ground(overlay, world.state, world.tools[0], {"bay": "BAY-1"})
    assert grounding.summary is not None
    return grounding.summary.values


def test_numbers_asked_in_units_make_a_summary_whatever_the_tools_name() -> None:
    assert is_aggregate(_world("What a bay holds.").tools[0])
    assert not is_aggregate(_world("What a bay holds.", output=None).tools[0])


def test_quantities_are_summed_in_the_unit_the_answer_names() -> None:
    # BAY-1 holds crates 1, 5, ..., 37: each "800 g"; their volumes "11 l", "15 l", ...
    values = _values(_world("What a bay holds."))
    crates = [i for i in range(40) if i % 4 == 1]
    assert values["gross_weight_kg"] == round(0.8 * len(crates), 2)
    assert values["max_volume_litres"] == 10 + max(crates)
    assert values["crates"] == len(crates)


def test_a_description_naming_some_values_of_a_field_narrows_the_records() -> None:
    held = [i for i in range(40) if i % 4 == 1 and i % 3 in (0, 2)]  # Stored or Lost
    values = _values(_world("The weight of a bay's Stored or Lost crates."))
    assert values["crates"] == len(held)
    assert values["gross_weight_kg"] == round(0.8 * len(held), 2)
    # Naming every value a field holds, or none, narrows nothing.
    values = _values(_world("The weight of a bay's Stored, Shipped or Lost crates."))
    assert values["crates"] == 10
    # A value written alone is no list of states; but written just before the records' own
    # noun, it is a kind of them.
    values = _values(_world("The weight of a bay's Stored crates."))
    assert values["crates"] == len([i for i in range(40) if i % 4 == 1 and i % 3 == 0])


def test_a_value_written_as_a_kind_of_the_records_narrows_them() -> None:
    charges = [
        {"id": f"ch_{i}", "month": "2025-05", "status": ["succeeded", "failed"][i % 2], "amount": i}
        for i in range(10)
    ]

    def counted(description: str) -> Any:
        spec = {"name": "revenue_report", "description": description}
        world = World.model_validate(
            {
                "world": "w",
                "title": "W",
                "description": "D.",
                "state": {"charges": charges},
                "tools": [spec | {"input_schema": {"type": "object"}}],
            }
        )
        overlay = StateIndex(world, world.state).overlay_of(world.state)
        grounding = ground(overlay, world.state, world.tools[0], {"month": "2025-05"})
        assert grounding.summary is not None
        return grounding.summary.values["count"]

    assert counted("Succeeded charges of a month: count and gross amount.") == 5
    # Before a noun that is not the records' own, the value is no kind of them.
    assert counted("Succeeded payments of a month: count and gross amount.") == 10
