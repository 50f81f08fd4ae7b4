"""Rows a call asks for by grouping records, as SQL-like languages write it: ``SELECT
StageName, COUNT(Id), SUM(Amount) total FROM Opportunity GROUP BY StageName``, or the same as
separate arguments (``selectFields: ["StageName", "COUNT(Id)", "SUM(Amount) total"]``,
``groupByFields: ["StageName"]``).

Each row holds a group's values of the grouped fields, then each aggregate item (``COUNT``,
``COUNT_DISTINCT``, ``SUM``, ``AVG``, ``MIN``, ``MAX``) over the group's records, under its
alias; an item without one under both names languages give it: SOQL's ``expr0``, ``expr1``
(counting aggregate items only) and SQL's own text of the item (``COUNT(Id)``). Rows go in the
order of the grouped values; a query of aggregate items alone (``SELECT COUNT(*), AVG(price)
FROM books``) answers one row over all the records it selects. A request whose grouped fields
no record holds is no grouping this reads (a field of a joined table): :func:`grouped_rows`
says ``None``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from mcp_sim.prompting.bucket_stats import field_values, metric
from mcp_sim.prompting.field_names import tokens
from mcp_sim.prompting.grouping_forms import as_text, pipeline_grouping, url_grouping

_ITEM = re.compile(
    r"^\s*(?P<op>count_distinct|count|sum|avg|min|max)\s*\(\s*(?P<field>[\w.*]*)\s*\)"
    r"(?:\s+(?:as\s+)?(?P<alias>\w+))?\s*$",
    re.IGNORECASE,
)
_SELECT = re.compile(r"\bselect\s+(?P<items>.+?)\s+from\s+(?P<table>[\w.]+)", re.I | re.S)
_GROUP_BY = re.compile(
    r"\bgroup\s+by\s+(?P<fields>.+?)(?=\s+(?:having|order|limit|offset)\b|\s*;|\s*$)",
    re.I | re.S,
)
_PLAIN = re.compile(r"^\s*[\w.]+\s*$")
_METRICS = {"avg": "avg", "sum": "sum", "min": "min", "max": "max"}
_MOST_ROWS = 200
"""More groups than this are no rows a view lists: the request is not read."""


@dataclass(frozen=True)
class Item:
    op: str
    """``count``, ``count_distinct``, ``sum``, ``avg``, ``min`` or ``max``."""
    field: str
    """The field it reads; empty or ``*`` for a count of the records."""
    names: tuple[str, ...]
    """Its alias, else ``exprN`` and its own text."""


@dataclass(frozen=True)
class Grouping:
    fields: tuple[str, ...]
    items: tuple[Item, ...]
    table: str = ""
    """The collection the request names (``FROM Opportunity``), where it names one."""
    text: bool = False
    """The language answers every value as text (RediSearch's ``"players": "231"``)."""


def requested_grouping(arguments: dict[str, Any]) -> Grouping | None:
    """The grouping the arguments ask for: a query text with ``GROUP BY``, else an argument
    naming the grouped fields beside one listing aggregate items; ``None`` where neither."""
    for value in arguments.values():
        selected = _SELECT.search(value) if isinstance(value, str) else None
        if selected is None:
            continue
        grouped = _GROUP_BY.search(selected.string)
        items = _split(selected.group("items"))
        if grouped is None and not all(_ITEM.match(i) for i in items):
            continue  # rows of records, not of groups: a search
        fields = _split(grouped.group("fields")) if grouped is not None else []
        found = _grouping(fields, items, selected.group("table"), whole=grouped is None)
        if found is not None:
            return found
    other = url_grouping(arguments) or pipeline_grouping(arguments)
    if other is not None:
        fields, asked, table, text = other
        read = tuple(Item(op, field, (name,)) for op, field, name in asked)
        return Grouping(tuple(fields), read, table, text)
    named = {tuple(tokens(k)): v for k, v in arguments.items()}
    grouped_by = next((v for k, v in named.items() if "group" in k), None)
    selects = [v for k, v in named.items() if "group" not in k and isinstance(v, list | str)]
    for select in selects:
        items = select if isinstance(select, list) else _split(select)
        fields = grouped_by if isinstance(grouped_by, list) else _split(str(grouped_by or ""))
        found = _grouping([str(f) for f in fields], [str(i) for i in items], "")
        if found is not None:
            return found
    return None


def _split(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def _grouping(
    fields: list[str], selected: list[str], table: str, whole: bool = False
) -> Grouping | None:
    """The grouping by ``fields`` with the aggregate items ``selected`` lists; ``whole``: a
    query of aggregate items alone, one row over all the records it selects."""
    items: list[Item] = []
    for text in selected:
        match = _ITEM.match(text)
        if match is None:
            continue
        alias = match.group("alias")
        own = text.strip() if alias is None else ""
        names = (alias,) if alias else (f"expr{len(items)}", own)
        items.append(Item(match.group("op").lower(), match.group("field"), names))
    plain = [f for f in fields if _PLAIN.match(f)]
    if not items or not (plain or whole) or len(plain) != len(fields):
        return None
    return Grouping(tuple(f.strip() for f in plain), tuple(items), table)


def grouped_rows(records: list[Any], grouping: Grouping) -> list[dict[str, Any]] | None:
    """One row per group of ``records`` by the grouped fields' values, in their order."""
    groups: dict[tuple[Any, ...], list[Any]] = {} if grouping.fields else {(): []}
    for record in records:
        key = tuple(_first(field_values(record, f)) for f in grouping.fields)
        groups.setdefault(key, []).append(record)
    held = not grouping.fields or any(v is not None for key in groups for v in key)
    if not held or len(groups) > _MOST_ROWS:
        return None
    rows = []
    for key in sorted(groups, key=lambda k: tuple((v is None, str(v)) for v in k)):
        row = {_last(f): v for f, v in zip(grouping.fields, key, strict=True)}
        row = {k: as_text(v) for k, v in row.items()} if grouping.text else row
        for item in grouping.items:
            value = _value(item, groups[key])
            value = as_text(value) if grouping.text else value
            row |= {name: value for name in item.names if name}
        rows.append(row)
    return rows


def _first(values: list[Any]) -> Any:
    return values[0] if values else None


def _last(field: str) -> str:
    """A grouped field's column name: its last step (``Owner.Name`` answers ``Name``)."""
    return field.rsplit(".", 1)[-1]


def _value(item: Item, records: list[Any]) -> Any:
    if item.op == "count" and item.field in ("", "*"):
        return len(records)
    values = [v for r in records for v in field_values(r, item.field)]
    if item.op == "count":
        return len(values)
    if item.op == "count_distinct":
        return metric("cardinality", values)["value"]
    return metric(_METRICS[item.op], values)["value"]
