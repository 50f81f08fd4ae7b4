"""Arguments read through a verb's other forms (``shipping_until`` ↔ ``Shipment``) and
arguments naming a period (``quarter_month: "2025-03"``) read as a prefix of the dates the
tool names, on a warehouse's dispatches whose depot a lookup names; a description listing
statistics ("count, mean weight") asks for a summary; and the depot an argument names beside
the dispatches a search finds takes no more than their share of the room."""

from __future__ import annotations

from typing import Any

from mcp_sim.prompting.aggregate_calls import is_aggregate
from mcp_sim.prompting.aggregates import summarize
from mcp_sim.prompting.field_names import name_score, stem
from mcp_sim.prompting.field_search import FieldSearch
from mcp_sim.prompting.grounding import ground
from mcp_sim.prompting.record_fields import path_words
from mcp_sim.prompting.records_section import records_section
from mcp_sim.runtime.state_index import StateIndex
from mcp_sim.spec.world import World


def dispatch_world(*tools: tuple[str, str]) -> World:
    """Depots keyed by code, and dispatches in an array, each with three dates: when it was
    ordered, shipped and delivered (a month apart, so a month names one of them only)."""
    depots = {f"D{n}": {"code": f"D{n}", "town": f"Town {n}"} for n in range(30)}
    dispatches = [
        {
            "ref": f"X-{n:04d}",
            "Depot": {"code": f"D{n % 3}"},
            "OrderedOn": f"2025-{1 + n % 10:02d}-03",
            "Shipment": f"2025-{2 + n % 10:02d}-{1 + n % 27:02d}",
            "DeliveredOn": f"2025-{3 + n % 10:02d}-05",
            "weight": 10 + n % 7,
        }
        for n in range(200)
    ]
    return World.model_validate(
        {
            "world": "t",
            "title": "T",
            "description": "A warehouse.",
            "state": {"depots": depots, "dispatches": dispatches},
            "tools": [
                {"name": n, "description": d, "input_schema": {"type": "object"}} for n, d in tools
            ],
        }
    )


def _search(world: World, tool: str, arguments: dict[str, Any]) -> Any:
    overlay = StateIndex(world, world.state).overlay_of(world.state)
    result, *_ = FieldSearch(overlay, world.state).search(world.tool(tool), arguments)
    return result


def test_a_verb_and_its_noun_are_one_name() -> None:
    assert stem("arriving") == stem("arrival") == "arriv"
    assert stem("departing") == stem("departure") == "depart"
    assert stem("date") == "date"
    assert name_score(("arriving",), path_words("Stay/Arrival", "/stays")) >= 0.6
    assert name_score(("colour",), path_words("Stay/Arrival", "/stays")) == 0.0


def test_a_bound_named_by_a_verb_bounds_its_noun_only() -> None:
    world = dispatch_world(("find_dispatches", "Dispatches by depot and shipping date."))
    result = _search(world, "find_dispatches", {"shipping_until": "2025-03-10"})
    assert result is not None
    assert {c.argument: c.fields for c in result.constraints} == {"shipping_until": ("Shipment",)}
    dispatches = world.state["dispatches"]
    assert result.full == [
        f"/dispatches/{n}" for n, d in enumerate(dispatches) if d["Shipment"] <= "2025-03-10"
    ]


def test_a_month_is_a_prefix_of_the_dates_the_description_names() -> None:
    world = dispatch_world(
        ("depot_month", "A depot's shipments in a month: count, mean weight, refs.")
    )
    tool = world.tool("depot_month")
    assert tool is not None and is_aggregate(tool)
    # One statistic's word may name a field: "by depot or weight count" asks for records.
    counted = dispatch_world(("find_dispatches", "Dispatches by depot or weight count."))
    assert not is_aggregate(counted.tool("find_dispatches"))
    arguments = {"depot": "D1", "month": "2025-04"}
    result = _search(world, "depot_month", arguments)
    assert result is not None and result.collection.pointer == "/dispatches"
    fields = {c.argument: (c.op, c.fields) for c in result.constraints}
    assert fields["month"] == ("prefix", ("Shipment",))
    dispatches = world.state["dispatches"]
    expected = [
        f"/dispatches/{n}"
        for n, d in enumerate(dispatches)
        if d["Depot"]["code"] == "D1" and d["Shipment"].startswith("2025-04")
    ]
    assert result.full == expected and expected
    overlay = StateIndex(world, world.state).overlay_of(world.state)
    summary = summarize(overlay, world.state, tool, result, arguments)
    assert summary is not None and summary.values["Count"] == len(expected)
    assert summary.values["MeanWeight"] == sum(
        dispatches[int(p.rsplit("/", 1)[1])]["weight"] for p in expected
    ) / len(expected)


def test_a_month_no_name_ties_stands_for_few_date_fields_and_a_held_value_for_itself() -> None:
    world = dispatch_world(("dispatch_report", "Dispatches of a period."))
    result = _search(world, "dispatch_report", {"period": "2025-04"})
    assert result is not None
    (constraint,) = result.constraints
    assert constraint.op == "prefix"
    assert set(constraint.fields) == {"OrderedOn", "Shipment", "DeliveredOn"}
    # A value some field holds as it is names that value, not a period.
    held = dispatch_world(("dispatch_report", "Dispatches by code."))
    for n, dispatch in enumerate(held.state["dispatches"]):
        dispatch["code"] = "2025-04" if n % 2 else "2025-05"
    result = _search(held, "dispatch_report", {"code": "2025-04"})
    assert result is not None and result.constraints[0].op == "eq"


def test_a_record_named_beside_a_search_of_the_tools_collection_takes_a_fair_share() -> None:
    world = dispatch_world(
        ("find_dispatches", "Dispatches by depot and weight."),
        ("depot_details", "A depot and the dispatches from it."),
    )
    for depot in world.state["depots"].values():
        depot["layout"] = {"plan": "loading bay, " * 200, "notes": ["kept clear"] * 60}
    overlay = StateIndex(world, world.state).overlay_of(world.state)
    arguments = {"depot": "D1", "weight": 12}
    grounding = ground(overlay, world.state, world.tool("find_dispatches"), arguments)
    assert grounding.picks["/depots/D1"].beside
    matched = [p for p in grounding.picks.values() if p.complete]
    assert matched and all(p.pointer.startswith("/dispatches/") for p in matched)
    text = records_section(world.state, list(grounding.picks.values()), grounding.searches, 4_000)
    depot_line = next(line for line in text.splitlines() if line.startswith("- /depots/D1"))
    assert "outlined" in depot_line and len(depot_line) < 1_000
    assert all(f"- {p.pointer}" in text for p in matched)
    # A tool whose words name the depots answers with the depot: it keeps its room.
    own = ground(overlay, world.state, world.tool("depot_details"), arguments)
    assert not own.picks["/depots/D1"].beside
