"""Rows named by a spreadsheet address (``Customers!A5:F5``), found in the table of rows under
a header row that the sheet's name calls, and shown as the table keeps them: the header once,
then the rows."""

from __future__ import annotations

from typing import Any

from mcp_sim.prompting.cell_addresses import address_of, addressed_rows
from mcp_sim.prompting.grounding import ground
from mcp_sim.prompting.records_section import records_section
from mcp_sim.runtime.state_index import StateIndex, StateOverlay
from mcp_sim.spec.world import World


def _book() -> dict[str, Any]:
    """A Sheets API ``values.batchGet``: two sheets of rows under their header rows."""
    orders: list[list[Any]] = [["Order ID", "Customer ID", "Qty"]]
    orders += [[f"SO-{n:04d}", f"C-{n % 30:03d}", n % 7 + 1] for n in range(1, 400)]
    customers: list[list[Any]] = [["Customer ID", "Company", "City"]]
    customers += [[f"C-{n:03d}", f"Firm {n}", "Leeds"] for n in range(30)]
    ranges = [("Orders", orders), ("Customers", customers)]
    return {
        "spreadsheetId": "sheet-1",
        "valueRanges": [
            {"range": f"{name}!A1:C{len(rows)}", "majorDimension": "ROWS", "values": rows}
            for name, rows in ranges
        ],
    }


def _world(state: dict[str, Any]) -> World:
    return World.model_validate(
        {
            "world": "b",
            "title": "B",
            "description": "An order book.",
            "state": state,
            "tools": [
                {
                    "name": "values_get",
                    "description": "The cells of an A1 range.",
                    "input_schema": {"type": "object"},
                }
            ],
        }
    )


def _overlay(world: World) -> StateOverlay:
    return StateIndex(world, world.state).overlay_of(world.state)


def test_an_address_is_a_sheet_and_rows_in_a1_r1c1_or_whole_rows() -> None:
    assert address_of("Customers!A149:F149") == address_of("Customers!$A$149:$F$149")
    found = address_of("'Order Lines'!B7")
    assert found is not None and (found.sheet, found.first, found.last) == ("Order Lines", 7, 7)
    r1c1 = address_of("Sheet1!R2C1:R4C5")
    assert r1c1 is not None and (r1c1.first, r1c1.last) == (2, 4)
    rows = address_of("Orders!9:12")
    assert rows is not None and (rows.first, rows.last) == (9, 12)


def test_an_id_or_a_time_is_no_address() -> None:
    for text in ("AB12", "SKU12", "12:30", "C-0042", "2025-01-02"):
        assert address_of(text) is None


def test_each_sheet_of_a_value_range_document_is_a_collection_of_its_own() -> None:
    overlay = _overlay(_world(_book()))
    tables = {c.pointer: c.id_field for c in overlay.base.collections if c.table is not None}
    assert tables == {
        "/valueRanges/0/values": "Order ID",
        "/valueRanges/1/values": "Customer ID",
    }


def test_an_address_names_the_rows_of_the_sheet_its_range_calls() -> None:
    world = _world(_book())
    overlay = _overlay(world)
    named = addressed_rows(overlay, world.state, {"range": "Customers!A5:C6"})
    # Row 1 is the header: row 5 is the fourth customer, at position 4 of the array.
    assert list(named["range"]) == ["/valueRanges/1/values/4", "/valueRanges/1/values/5"]
    assert not addressed_rows(overlay, world.state, {"range": "Suppliers!A5:C5"})


def test_a_call_naming_cells_by_place_sees_them_under_their_header() -> None:
    world = _world(_book())
    overlay = _overlay(world)
    grounding = ground(overlay, world.state, world.tools[0], {"range": "Orders!A101:C101"})
    picks = list(grounding.picks.values())
    assert picks[0].pointer == "/valueRanges/0/values/100" and picks[0].by_place
    section = records_section(world.state, picks, grounding.searches, 20_000)
    header_and_row = '[["Order ID","Customer ID","Qty"],["SO-0100","C-010",3]'
    assert header_and_row in section
    assert '"range":"Orders!A1:C400"' in section


def test_rows_found_by_value_are_shown_by_their_fields_names() -> None:
    world = _world(_book())
    overlay = _overlay(world)
    grounding = ground(overlay, world.state, world.tools[0], {"order_id": "SO-0100"})
    picks = list(grounding.picks.values())
    section = records_section(world.state, picks, grounding.searches, 20_000)
    assert '"Order ID":"SO-0100"' in section
