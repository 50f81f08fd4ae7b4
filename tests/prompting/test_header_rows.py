"""Rows of a table under a header row shown as the table keeps them: the holder's scalars and
its array of rows, the header first, then the rows a call needs, their positions named."""

from __future__ import annotations

import json
from typing import Any

from mcp_sim.prompting.header_rows import HeaderRows, rows_line, table_of_row

STATE: dict[str, Any] = {
    "sheets": [
        {
            "range": "Parts!A1:B5",
            "values": [["SKU", "Stock"], ["P-1", 4], ["P-2", 0], ["P-3", 9], ["P-4", 2]],
        }
    ],
    "plain": [["a", "b"], [1, 2]],
}


def test_a_row_under_a_header_row_is_known_by_its_table() -> None:
    known: dict[str, bool] = {}
    assert table_of_row(STATE, "/sheets/0/values/3", known) == "/sheets/0/values"
    assert table_of_row(STATE, "/sheets/0/values/0", known) is None  # the header itself
    assert table_of_row(STATE, "/plain/1", known) is None  # one row: no table


def test_the_header_once_then_the_rows_in_the_tables_order() -> None:
    line = rows_line(STATE, HeaderRows("/sheets/0/values", 0, [3, 1]))
    head, _, shown = line.partition("): ")
    assert head == (
        "- /sheets/0 (its header row and rows 1, 3 of 'values'; row N at /sheets/0/values/N"
    )
    assert json.loads(shown) == {
        "range": "Parts!A1:B5",
        "values": [["SKU", "Stock"], ["P-1", 4], ["P-3", 9]],
    }
