"""Rows of a table kept under a header row, shown as the table keeps them: the header once,
then the rows.

A spreadsheet's sheet (the Sheets API's ``{"range": "Orders!A1:J500", "values": [[header],
[row], ...]}``) holds each row as a bare array whose fields only the header row names. Read as
records, each row is an object of its columns (see :mod:`mcp_sim.runtime.state_tables`); shown
so, the header's names repeat in every row, and the form the tools answer in (cells by
position, as stored) is not the form the prompt holds. The rows a call needs of one such table
are shown instead on one line, as their holder keeps them: the holder's own scalars (the
sheet's range), and its array of rows, the header first, then each row a call needs in the
order of the table, their positions named before (``rows 148, 150``; row ``N`` of the array is
record ``N``, where a change to it goes).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from jsonpointer import escape, unescape

from mcp_sim.prompting.record_render import dumps
from mcp_sim.runtime.state_paths import resolve
from mcp_sim.runtime.state_tables import held_header


@dataclass
class HeaderRows:
    """The rows picked so far of one table under a header row, and where its line stands."""

    rows_pointer: str
    line: int
    """Its index among the section's lines."""
    positions: list[int] = field(default_factory=list)


def table_of_row(state: Any, pointer: str, known: dict[str, bool]) -> str | None:
    """The pointer of the rows of the header table whose row ``pointer`` is, if it is one
    (``known`` caches, per array, whether it is such a table)."""
    parent, _, last = pointer.rpartition("/")
    if not last.isdigit() or not parent:
        return None
    if parent not in known:
        known[parent] = held_header(resolve(state, parent))
    return parent if known[parent] and int(last) > 0 else None


def rows_line(state: Any, rows: HeaderRows) -> str:
    """The line showing the header and the picked rows of ``rows`` within their holder."""
    table = resolve(state, rows.rows_pointer)
    ordered = sorted(set(rows.positions))
    picked = [table[0], *(table[p] for p in ordered if p < len(table))]
    holder_pointer, _, key = rows.rows_pointer.rpartition("/")
    holder = resolve(state, holder_pointer) if holder_pointer or key else None
    named = ", ".join(map(str, ordered))
    where = f"row N at {rows.rows_pointer}/N"
    if isinstance(holder, dict) and not key.isdigit():
        shown = {k: v for k, v in holder.items() if not isinstance(v, dict | list)}
        shown[unescape(key)] = picked
        label = f"its header row and rows {named} of {escape(unescape(key))!r}; {where}"
        return f"- {holder_pointer} ({label}): {dumps(shown)}"
    return f"- {rows.rows_pointer} (its header row and rows {named}; {where}): {dumps(picked)}"
