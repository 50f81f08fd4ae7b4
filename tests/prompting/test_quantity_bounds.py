"""Range searches over quantities written with units: a bound compares with each value's
magnitude, in the unit the argument's name says, else in the unit the values are written in
(a depot of parcels and a fleet of machines, with their own names)."""

from __future__ import annotations

from typing import Any

from mcp_sim.prompting.constraints import Constraint
from mcp_sim.prompting.field_search import FieldSearch
from mcp_sim.prompting.field_tables import may_bound, value_test
from mcp_sim.runtime.state_index import StateIndex
from mcp_sim.spec.world import World

_WEIGHTS = ["12 kg", "800 g", "1.5 kg", "250 g", "3 kg"]
_MEMORY = ["512Mi", "2Gi", "1536Mi", "4Gi", "64Mi"]


def _world() -> World:
    parcels = [{"parcelNo": f"P{i:03d}", "weight": _WEIGHTS[i % 5]} for i in range(30)]
    machines = [
        {"host": f"m{i:02d}", "ram": _MEMORY[i % 5], "cpu": ["250m", "1", "2", "1500m"][i % 4]}
        for i in range(40)
    ]
    return World.model_validate(
        {
            "world": "q",
            "title": "Q",
            "description": "A depot's parcels and a fleet's machines.",
            "state": {"parcels": parcels, "machines": machines},
            "tools": [
                {
                    "name": "find_parcels",
                    "description": "Parcels.",
                    "input_schema": {"type": "object"},
                },
                {
                    "name": "find_machines",
                    "description": "Machines.",
                    "input_schema": {"type": "object"},
                },
            ],
        }
    )


def _found(tool: int, arguments: dict[str, Any]) -> set[str]:
    world = _world()
    overlay = StateIndex(world, world.state).overlay_of(world.state)
    searches = FieldSearch(overlay, world.state).search(world.tools[tool], arguments)
    assert searches
    return set(searches[0].full)


def _records(collection: str, holds: list[str], values: list[str], count: int) -> set[str]:
    return {f"/{collection}/{i}" for i in range(count) if values[i % len(values)] in holds}


def test_a_bound_in_the_unit_the_name_says() -> None:
    assert _found(1, {"min_ram_gib": 2}) == _records("machines", ["2Gi", "4Gi"], _MEMORY, 40)
    assert _found(1, {"max_ram_mib": 600}) == _records("machines", ["512Mi", "64Mi"], _MEMORY, 40)
    assert _found(0, {"min_weight_g": 1500}) == _records(
        "parcels", ["12 kg", "1.5 kg", "3 kg"], _WEIGHTS, 30
    )


def test_a_bound_without_a_unit_is_in_the_unit_most_values_are_written_in() -> None:
    # Three of the five weights are written in kilograms: "max_weight: 2" is 2 kg.
    assert _found(0, {"max_weight": 2}) == _records(
        "parcels", ["800 g", "1.5 kg", "250 g"], _WEIGHTS, 30
    )
    # Cores written plain or in thousandths: "min_cpu: 1" is one core.
    cores = ["250m", "1", "2", "1500m"]
    assert _found(1, {"min_cpu": 1}) == _records("machines", ["1", "2", "1500m"], cores, 40)


def test_a_bound_named_with_a_unit_bounds_the_fields_of_its_dimension_whatever_their_names() -> (
    None
):
    # Each socket's output is tagged apart; min_power_kw names none of them, its unit does.
    outputs = ["11 kW", "22 kW", "50 kW", "150 kW"]
    stations = [
        {"ref": f"S{i:02d}", "socket:a:output": outputs[i % 4]}
        if i % 2
        else {"ref": f"S{i:02d}", "socket:b:output": outputs[i % 4], "capacity": "4"}
        for i in range(24)
    ]
    world = World.model_validate(
        {
            "world": "c",
            "title": "C",
            "description": "Charging stations.",
            "state": {"stations": stations},
            "tools": [
                {
                    "name": "find_stations",
                    "description": "Stations.",
                    "input_schema": {"type": "object"},
                }
            ],
        }
    )
    overlay = StateIndex(world, world.state).overlay_of(world.state)
    searches = FieldSearch(overlay, world.state).search(world.tools[0], {"min_power_kw": 40})
    assert set(searches[0].constraints[0].fields) == {
        "socket:a:output",
        "socket:b:output",
    }
    assert set(searches[0].full) == {
        f"/stations/{i}" for i in range(24) if outputs[i % 4] in ("50 kW", "150 kW")
    }


def test_a_bound_nothing_compares_with_meets_no_value_and_scans_no_column() -> None:
    values = [5, 2.5, "7", "2024-05-01", "2024-05-01T10:00:00Z", "12 kg", "1536Mi", "23:05:00"]
    nothing: list[Any] = ["23:05:00", "soon", ["a", 1], None]
    for wanted in nothing:
        assert not may_bound(wanted)
        for op in ("min", "max"):
            test = value_test(Constraint("after", op, wanted, ("time",), 1.0))
            assert not any(map(test, values)), (wanted, op)
    bounds: list[Any] = [5, "7", "2024-05-01", "12 kg", "1536Mi"]
    assert all(map(may_bound, bounds))
