"""The ``postgrest`` shape's reads: PostgREST's query string over the tables: horizontal
filters as ``column=operator.value`` (``eq``, ``neq``, ``gt``, ``gte``, ``lt``, ``lte``,
``like``, ``ilike``, ``in.(...)``, ``is``, ``cs.{...}``, each maybe behind ``not.``), ``select``
with renames, resources embedded through foreign keys (a parent as an object, children as an
array, ``bookings(count)``), aggregates grouped by the other selected columns
(``count()``, ``paid_cents.sum()``), ``order`` and ``limit``."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

from benchmarks.zoo.kit import State, ToolError
from benchmarks.zoo.postgrest_db import COLUMNS, FOREIGN, table

Row = dict[str, Any]
FUNCTIONS = ("count", "sum", "avg", "min", "max")


@dataclass(frozen=True)
class Item:
    """One item of ``select``: a column, ``*``, an aggregate or an embedded resource."""

    name: str
    alias: str
    function: str | None = None
    embedded: list[Item] = field(default_factory=list)
    embeds: bool = False


def split_top(text: str) -> list[str]:
    """``text`` split at the commas outside parentheses."""
    parts, depth, start = [], 0, 0
    for n, char in enumerate(text):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == "," and depth == 0:
            parts.append(text[start:n])
            start = n + 1
    return [p.strip() for p in [*parts, text[start:]] if p.strip()]


def parse_select(text: str) -> list[Item]:
    items = []
    for part in split_top(text):
        head = part.split("(", 1)[0]
        alias, _, rest = part.partition(":") if ":" in head else ("", "", part)
        if rest.endswith(")") and "(" in rest:
            name, inner = rest[:-1].split("(", 1)
            column, _, function = name.rpartition(".")
            if name == "count" and not inner:
                items.append(Item("*", alias or "count", "count"))
            elif function in FUNCTIONS and column:
                items.append(Item(column, alias or function, function))
            else:
                inner_items = parse_select(inner) if inner else [Item("*", "*")]
                items.append(Item(name, alias or name, None, inner_items, True))
        else:
            items.append(Item(rest, alias or rest))
    return items


def relation(source: str, target: str) -> tuple[str, str]:
    """How ``target`` embeds in ``source``: ``("one", fk column of source)`` or ``("many", fk
    column of target)``."""
    for (name, column), referenced in FOREIGN.items():
        if name == source and referenced == target:
            return "one", column
        if name == target and referenced == source:
            return "many", column
    raise ToolError(
        '{"code":"PGRST200","details":"Searched for a foreign key relationship between '
        f"'{source}' and '{target}' in the schema 'public', but no matches were found.\","
        '"hint":null,"message":"Could not find a relationship between '
        f"'{source}' and '{target}' in the schema cache\"}}"
    )


def _missing(name: str, column: str) -> ToolError:
    return ToolError(
        f'{{"code":"42703","details":null,"hint":null,"message":"column {name}.{column} does '
        'not exist"}'
    )


def _compare(op: str, actual: Any, text: str) -> bool:
    if op == "is":
        return {"null": actual is None, "true": actual is True, "false": actual is False}[text]
    if actual is None:
        return False
    if op == "in":
        return str(actual) in [v.strip('"') for v in split_top(text.strip("()"))]
    if op == "cs":
        return set(text.strip("{}").split(",")) <= set(actual)
    if op in ("like", "ilike"):
        pattern = re.escape(text).replace(r"\*", ".*").replace("%", ".*")
        flags = re.IGNORECASE if op == "ilike" else 0
        return re.fullmatch(pattern, str(actual), flags) is not None
    wanted: Any = text
    if isinstance(actual, bool):
        wanted = text == "true"
    elif isinstance(actual, int | float):
        wanted = float(text)
    return bool(
        {
            "eq": actual == wanted,
            "neq": actual != wanted,
            "gt": actual > wanted,
            "gte": actual >= wanted,
            "lt": actual < wanted,
            "lte": actual <= wanted,
        }[op]
    )


def matches(name: str, row: Row, column: str, condition: str) -> bool:
    if column not in COLUMNS[name]:
        raise _missing(name, column)
    negated = condition.startswith("not.")
    op, _, text = condition.removeprefix("not.").partition(".")
    if op not in ("eq", "neq", "gt", "gte", "lt", "lte", "like", "ilike", "in", "is", "cs"):
        raise ToolError(f'{{"code":"PGRST100","message":"failed to parse filter ({condition})"}}')
    return _compare(op, row.get(column), text) != negated


class Query:
    """One ``GET /<table>?<query>`` over a state."""

    def __init__(self, state: State, name: str, query: str) -> None:
        if name not in COLUMNS:
            raise ToolError(
                f'{{"code":"42P01","details":null,"hint":null,"message":"relation '
                f'\\"public.{name}\\" does not exist"}}'
            )
        self.state, self.name = state, name
        self.params = [
            (key, unquote(value))
            for key, _, value in (part.partition("=") for part in query.split("&") if part)
        ]
        self._children: dict[tuple[str, str], dict[Any, list[Row]]] = {}
        self._rows: dict[str, dict[Any, Row]] = {}

    def _param(self, key: str) -> str | None:
        return next((v for k, v in self.params if k == key), None)

    def rows(self) -> list[Row]:
        """The table's rows the filters keep, in the table's order."""
        filters = [(k, v) for k, v in self.params if k not in ("select", "order", "limit")]
        return [
            row
            for row in table(self.state, self.name)
            if all(matches(self.name, row, k, v) for k, v in filters)
        ]

    def answer(self) -> list[Row]:
        items = parse_select(self._param("select") or "*")
        kept = self.rows()
        if any(item.function for item in items):
            found = _grouped(self.name, kept, items)
        else:
            found = [self.project(self.name, row, items) for row in kept]
        for key, descending in reversed(_order(self._param("order"))):
            found.sort(key=lambda r: (r.get(key) is None, r.get(key)), reverse=descending)
        limit = self._param("limit")
        return found[: int(limit)] if limit else found

    def project(self, name: str, row: Row, items: list[Item]) -> Row:
        shown: Row = {}
        for item in items:
            if item.embeds:
                shown[item.alias] = self._embedded(name, row, item)
            elif item.name == "*":
                shown |= row
            elif item.name in COLUMNS[name]:
                shown[item.alias] = row[item.name]
            else:
                raise _missing(name, item.name)
        return shown

    def _embedded(self, name: str, row: Row, item: Item) -> Any:
        kind, column = relation(name, item.name)
        if kind == "one":
            parent = self._ids(item.name).get(row[column])
            return None if parent is None else self.project(item.name, parent, item.embedded)
        children = self._child_index(item.name, column).get(row["id"], [])
        if [i.name for i in item.embedded] == ["count"]:
            return [{"count": len(children)}]
        return [self.project(item.name, child, item.embedded) for child in children]

    def _ids(self, name: str) -> dict[Any, Row]:
        if name not in self._rows:
            self._rows[name] = {r["id"]: r for r in table(self.state, name)}
        return self._rows[name]

    def _child_index(self, name: str, column: str) -> dict[Any, list[Row]]:
        if (name, column) not in self._children:
            index: dict[Any, list[Row]] = {}
            for child in table(self.state, name):
                index.setdefault(child[column], []).append(child)
            self._children[(name, column)] = index
        return self._children[(name, column)]


def _order(text: str | None) -> list[tuple[str, bool]]:
    return [(part.split(".")[0], ".desc" in part) for part in (text.split(",") if text else [])]


def _reduce(function: str, values: list[Any]) -> Any:
    present = [v for v in values if v is not None]
    if function == "count":
        return len(present)
    if not present:
        return None
    if function == "sum":
        return round(sum(present), 2) if isinstance(present[0], float) else sum(present)
    if function == "avg":
        return sum(present) / len(present)
    return min(present) if function == "min" else max(present)


def _grouped(name: str, rows: list[Row], items: list[Item]) -> list[Row]:
    """Aggregates grouped by the other selected columns, groups in the order of their keys."""
    keys = [i for i in items if not i.function]
    for item in items:
        if item.name != "*" and item.name not in COLUMNS[name]:
            raise _missing(name, item.name)
    groups: dict[tuple[Any, ...], list[Row]] = {}
    for row in rows:
        groups.setdefault(tuple(row[k.name] for k in keys), []).append(row)
    found = []
    for group, members in sorted(groups.items(), key=lambda g: [str(v) for v in g[0]]):
        shown = {k.alias: value for k, value in zip(keys, group, strict=True)}
        for item in (i for i in items if i.function):
            function = item.function or "count"
            values = [1 if item.name == "*" else m[item.name] for m in members]
            shown[item.alias] = _reduce(function, values)
        found.append(shown)
    return found
