"""The ``sheets`` shape's reads: A1 ranges as ``spreadsheets.values.get`` answers them, and the
Visualization API's query language (``/gviz/tq?tq=select ... where ... group by ...``) over a
sheet as its JSON data source answers it, with the sheet's computed values."""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from typing import Any

from benchmarks.zoo.kit import ToolError
from benchmarks.zoo.sheets_book import HEADERS, Cell, Evaluator, column_of, letter

_A1 = re.compile(r"(\w+)!([A-Z])(\d+)(?::([A-Z])(\d+))?")


def parse_range(text: str) -> tuple[str, int, int, int, int]:
    """``Orders!B2:D9`` as its sheet and 0-based first/last row and column (inclusive)."""
    match = _A1.fullmatch(text)
    if match is None or match.group(1) not in HEADERS:
        raise ToolError(f"Unable to parse range: {text}")
    sheet, c1, r1, c2, r2 = match.groups()
    last_column, last_row = (c2, r2) if c2 else (c1, r1)
    return sheet, int(r1) - 1, int(last_row) - 1, column_of(c1), column_of(last_column)


def values_of(
    rows: list[list[Cell]], evaluator: Evaluator | None, bounds: tuple[int, int, int, int]
) -> list[list[Cell]]:
    """The cells of ``bounds`` (rows past the last and trailing empty cells left out, as the
    API does), evaluated unless ``evaluator`` is ``None`` (``FORMULA``)."""
    first, last, left, right = bounds
    found: list[list[Cell]] = []
    for row in range(first, min(last, len(rows) - 1) + 1):
        width = min(right, len(rows[row]) - 1)
        if evaluator is None:
            cells = rows[row][left : width + 1]
        else:
            cells = [evaluator.cell(rows, row, c) for c in range(left, width + 1)]
        found.append(cells)
    return found


_CLAUSES = re.compile(
    r"select (?P<select>.+?)(?: where (?P<where>.+?))?(?: group by (?P<group>[A-Z]))?"
    r"(?: order by (?P<order>[A-Z]) (?P<direction>asc|desc))?(?: limit (?P<limit>\d+))?"
)
_CONDITION = re.compile(r"([A-Z]) (=|!=|>=|<=|>|<|contains|starts with) (?:'([^']*)'|(-?[\d.]+))")
_ITEM = re.compile(r"(?:(count|sum|avg|min|max)\()?([A-Z])\)?")


@dataclass(frozen=True)
class Condition:
    column: int
    op: str
    value: Cell

    def holds(self, cell: Cell) -> bool:
        if isinstance(self.value, str) != isinstance(cell, str):
            return False
        if self.op == "contains":
            return str(self.value) in str(cell)
        if self.op == "starts with":
            return str(cell).startswith(str(self.value))
        ops = {
            "=": cell == self.value,
            "!=": cell != self.value,
            ">=": cell >= self.value,  # type: ignore[operator]
            "<=": cell <= self.value,  # type: ignore[operator]
            ">": cell > self.value,  # type: ignore[operator]
            "<": cell < self.value,  # type: ignore[operator]
        }
        return ops[self.op]


def _conditions(text: str | None) -> list[Condition]:
    found = []
    for part in text.split(" and ") if text else []:
        match = _CONDITION.fullmatch(part.strip())
        if match is None:
            raise ToolError(f'Invalid query: PARSE_ERROR: Encountered "{part}"')
        col, op, quoted, number = match.groups()
        value: Cell = quoted if quoted is not None else float(number)
        found.append(Condition(column_of(col), op, value))
    return found


def _reduce(function: str, values: list[Cell]) -> Cell:
    numbers = [v for v in values if isinstance(v, int | float)]
    if function == "count":
        return len([v for v in values if v != ""])
    if function == "sum":
        return round(sum(numbers), 2)
    if function == "avg":
        return round(sum(numbers) / len(numbers), 4) if numbers else 0
    return (min if function == "min" else max)(values)


def _type(value: Cell) -> str:
    return "string" if isinstance(value, str) else "number"


def run_query(rows: list[list[Cell]], evaluator: Evaluator, sheet: str, tq: str) -> dict[str, Any]:
    """The data source's answer to ``tq`` over a sheet's computed rows."""
    clauses = _CLAUSES.fullmatch(tq.strip())
    if clauses is None:
        raise ToolError(f"Invalid query: PARSE_ERROR: {tq}")
    items = [_ITEM.fullmatch(item.strip()) for item in clauses["select"].split(",")]
    if not all(items):
        raise ToolError(f"Invalid query: PARSE_ERROR: {clauses['select']}")
    picked = [(m.group(1), column_of(m.group(2))) for m in items if m]
    conditions = _conditions(clauses["where"])
    computed = [evaluator.row(rows, n) for n in range(1, len(rows))]
    kept = [r for r in computed if all(c.holds(r[c.column]) for c in conditions)]
    if clauses["group"]:
        kept = _grouped(kept, column_of(clauses["group"]), picked)
    else:
        kept = [[r[c] for _, c in picked] for r in kept]
    table_cols = _labels(sheet, picked, computed[0] if computed else [])
    if clauses["order"]:
        at = picked.index((None, column_of(clauses["order"])))
        kept.sort(key=lambda r: r[at], reverse=clauses["direction"] == "desc")
    if clauses["limit"]:
        kept = kept[: int(clauses["limit"])]
    table = {"cols": table_cols, "rows": [{"c": [{"v": v} for v in row]} for row in kept]}
    signature = int(hashlib.md5(json.dumps(table).encode()).hexdigest()[:8], 16)
    return {"version": "0.6", "reqId": "0", "status": "ok", "sig": str(signature)} | {
        "table": table | {"parsedNumHeaders": 1}
    }


def _grouped(
    kept: list[list[Cell]], by: int, picked: list[tuple[str | None, int]]
) -> list[list[Cell]]:
    groups: dict[Cell, list[list[Cell]]] = {}
    for row in kept:
        groups.setdefault(row[by], []).append(row)
    return [
        [
            _reduce(function, [r[column] for r in members]) if function else members[0][column]
            for function, column in picked
        ]
        for _, members in sorted(groups.items(), key=lambda g: (isinstance(g[0], str), g[0]))
    ]


def _labels(
    sheet: str, picked: list[tuple[str | None, int]], first: list[Cell]
) -> list[dict[str, Any]]:
    """The answer's ``cols``: a column's id is its letter and its label the header; an
    aggregate's id is ``sum-H`` and its label ``sum Total``."""
    header = HEADERS[sheet]
    return [
        {"id": letter(c), "label": header[c], "type": _type(first[c]) if first else "string"}
        if function is None
        else {"id": f"{function}-{letter(c)}", "label": f"{function} {header[c]}", "type": "number"}
        for function, c in picked
    ]
