"""A table whose rows hold no field names is shown, searched and summarized as records named by
its columns, and the outline says where a row's cell is patched."""

from __future__ import annotations

from typing import Any

from mcp_sim.prompting.grounding import ground
from mcp_sim.prompting.key_names import key_names
from mcp_sim.prompting.record_render import collection_line
from mcp_sim.prompting.records_section import records_section
from mcp_sim.runtime.state_collections import find_collections
from mcp_sim.runtime.state_index import StateIndex
from mcp_sim.runtime.state_paths import resolve
from mcp_sim.spec.world import World

VISIT_COLUMNS = ["visit_id", "patient_id", "date", "reason", "cost"]
REASONS = ["rash", "sprain", "migraine"]


def clinic_state() -> dict[str, Any]:
    patients = [[f"P-{100 + i}", f"Name{i}", ["Oslo", "Bergen"][i % 2]] for i in range(30)]
    visits = [
        [f"V{5000 + i}", f"P-{100 + i % 30}", f"2025-{i % 12 + 1:02d}-10", REASONS[i % 3], 10 + i]
        for i in range(120)
    ]
    return {
        "tables": {
            "patients": {"columns": ["patient_id", "name", "city"], "rows": patients},
            "visits": {
                "columns": [{"name": c, "type": "x"} for c in VISIT_COLUMNS],
                "rows": visits,
            },
        }
    }


def tool(name: str, **arguments: str) -> dict[str, Any]:
    properties = {a: {"type": "string", "description": d} for a, d in arguments.items()}
    return {
        "name": name,
        "description": f"{name}.",
        "input_schema": {"type": "object", "properties": properties},
    }


def world() -> World:
    tools = [
        tool("find_visits", reason="Reason for the visit.", min_cost="Lowest cost."),
        tool("get_patient", patient_id="Patient id."),
    ]
    return World.model_validate(
        {"world": "t", "title": "T", "description": "Tables.", "state": clinic_state()}
        | {"tools": tools}
    )


def view_of(world: World, name: str, arguments: dict[str, Any]) -> str:
    index = StateIndex(world, world.state)
    overlay = index.overlay_of(world.state)
    grounding = ground(overlay, world.state, world.tool(name), arguments)
    picks = list(grounding.picks.values())
    names = key_names(world, index)
    return records_section(world.state, picks, grounding.searches, 30_000, None, names)


def test_a_search_over_a_tables_rows_meets_constraints_on_named_columns() -> None:
    text = view_of(world(), "find_visits", {"reason": "sprain", "min_cost": "120"})
    wanted = [i for i in range(120) if REASONS[i % 3] == "sprain" and 10 + i >= 120]
    assert f"{len(wanted)} records meet all of them, all shown below" in text
    for i in wanted:
        assert f'- /tables/visits/rows/{i}: {{"cost":{10 + i},' in text
        assert f'"reason":"sprain","visit_id":"V{5000 + i}"}}' in text


def test_a_lookup_by_a_rows_id_shows_the_row_named_and_the_rows_referring_to_it() -> None:
    text = view_of(world(), "get_patient", {"patient_id": "P-107"})
    assert '- /tables/patients/rows/7: {"city":"Bergen","name":"Name7","patient_id":"P-107"}' in (
        text
    )
    assert '"patient_id":"P-107","reason":"sprain","visit_id":"V5007"' in text


def test_the_outline_gives_a_tables_columns_in_order_and_where_a_cell_is_patched() -> None:
    state = clinic_state()
    found = {c.pointer: c for c in find_collections(world(), state)}
    visits = found["/tables/visits/rows"]
    line = collection_line(
        visits.pointer, resolve(state, visits.pointer), False, visits.id_field, visits.table
    )
    assert line.startswith("- /tables/visits/rows: table of 120 rows keyed by column 'visit_id'")
    assert "ids V5000 … V5119" in line and "[visit_id, patient_id, date, reason, cost]" in line
    assert "/tables/visits/rows/ROW/POSITION" in line and "/tables/visits/rows/-" in line
    by_column = {"id": ["a1", "a2"], "name": ["Ann", "Bo"]}
    (people,) = find_collections(world(), {"people": by_column})
    line = collection_line("/people", by_column, False, people.id_field, people.table)
    assert "row N is shown below as /people/N" in line and "/people/F/N" in line


def test_a_summary_over_a_tables_rows_counts_and_totals_a_named_column() -> None:
    totals = tool("visit_totals", reason="Reason for the visit.")
    totals["description"] = "Count and total cost of the visits for a reason."
    spec = {"world": "t", "title": "T", "description": "Tables.", "state": clinic_state()}
    world = World.model_validate(spec | {"tools": [totals]})
    overlay = StateIndex(world, world.state).overlay_of(world.state)
    grounding = ground(overlay, world.state, world.tool("visit_totals"), {"reason": "rash"})
    assert grounding.summary is not None
    text = grounding.summary.render(3000)
    rash = [10 + i for i in range(120) if i % 3 == 0]
    assert f'"count": {len(rash)}' in text and f'"total_cost": {sum(rash)}' in text


def test_the_outline_says_where_a_cell_of_cells_an_edges_and_a_pages_record_are() -> None:
    cells = [{"f": [{"v": f"K-{i}"}, {"v": "X"}]} for i in range(3)]
    edges = [{"node": {"ref": f"N-{i}", "city": "Y"}, "cursor": f"c{i}"} for i in range(3)]
    state: dict[str, Any] = {
        "job": {"schema": {"fields": [{"name": "ref"}, {"name": "city"}]}, "rows": cells}
    }
    state |= {"conn": {"edges": edges, "pageInfo": {"hasNextPage": False}}}
    state |= {
        "pages": [{"page": p, "items": [{"ref": f"P-{p}{i}"} for i in range(2)]} for p in (1, 2)]
    }
    world = World.model_validate(
        {"world": "t", "title": "T", "description": "Cells and edges.", "state": state}
        | {"tools": [tool("get", ref="the ref")]}
    )
    lines = {
        c.pointer: collection_line(
            c.pointer, resolve(state, c.pointer), c.keyed, c.id_field, c.table, c.inner, c.pages
        )
        for c in find_collections(world, world.state)
    }
    assert "a field's value is at /job/rows/ROW/f/POSITION/v" in lines["/job/rows"]
    item = '{"cursor":"string","node":"RECORD"}'
    assert f"each record at /conn/edges/N/node in an item like {item}" in lines["/conn/edges"]
    assert "ids N-0 … N-2" in lines["/conn/edges"]
    assert "2 pages of 4 records, record N of page P at /pages/P/items/N" in lines["/pages"]
    assert "ids P-10 … P-21" in lines["/pages"]
