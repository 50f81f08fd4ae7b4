"""Search constraints written as a nested query object, as search APIs take them, instead of
one argument per field or a query string: an Elasticsearch Query DSL ``bool`` query (``term``,
``terms``, ``range``, ``prefix`` clauses in ``filter`` or ``must``, exclusions in
``must_not``), a MongoDB filter document (``{"price": {"$gte": 10}, "name": {"$regex":
"^Ab"}}``, or its terms under ``$and``), a GraphQL ``where`` input object (generic ``eq`` /
``gte`` / ``startsWith``, Hasura's ``_eq`` / ``_gte`` / ``_ilike``, Prisma's ``equals`` /
``gte`` / ``startsWith``; sub-objects nested as the record nests them, terms under ``AND``
where the seed says) and a list of filters (``{"field", "op", "value"}``, or HubSpot's
``filterGroups`` of ``{"propertyName", "operator", "value"}``). A term names a field by where
the record stores it (``details.hull``), not by an argument's name.

The planner's arguments (one per constraint) are written into the object (:func:`render`)
and the tool reads them back out of it (:func:`parse`), so that the answer is the one the
arguments per field give."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Any

FAMILIES = ("elastic", "mongo", "graphql", "hasura", "prisma", "filters", "hubspot")
OPS: dict[str, tuple[dict[str, str], ...]] = {
    "graphql": ({"eq": "eq", "ne": "ne", "in": "in", "ge": "gte", "le": "lte"},),
    "hasura": ({"eq": "_eq", "ne": "_neq", "in": "_in", "ge": "_gte", "le": "_lte"},),
    "prisma": ({"eq": "equals", "ne": "not", "in": "in", "ge": "gte", "le": "lte"},),
    "filters": (
        {"eq": "=", "ne": "!=", "in": "in", "ge": ">=", "le": "<=", "prefix": "starts_with"},
        {"eq": "eq", "ne": "neq", "in": "in", "ge": "gte", "le": "lte", "prefix": "startswith"},
    ),
    "hubspot": ({"eq": "EQ", "ne": "NEQ", "in": "IN", "ge": "GTE", "le": "LTE"},),
}
"""Each family's spellings of the operators (a seed draws one); prefixes are spelt apart."""
FILTER_KEYS = (("field", "op", "value"), ("column", "operator", "value"), ("key", "cmp", "val"))
ARGS = {
    "elastic": ("body", "request", "search_body"),
    "mongo": ("filter", "query", "criteria", "q"),
    "graphql": ("where", "filter"),
    "hasura": ("where",),
    "prisma": ("where",),
    "filters": ("filters", "criteria", "conditions"),
    "hubspot": ("body", "search_request"),
}
"""The names a family's query argument goes by."""
PAGING = {
    "elastic": ("size", "from"),
    "mongo": ("limit", "skip"),
    "graphql": ("first", "offset"),
    "hasura": ("limit", "offset"),
    "prisma": ("take", "skip"),
    "filters": ("limit", "offset"),
    "hubspot": ("limit", "after"),
}
"""A family's page size and offset (in the body, where the object is the whole request)."""
SHARE = 0.42
"""The share of the seeds without query strings that draw query objects (about 3 in 10)."""
JOINED = {"graphql": "AND", "hasura": "_and", "prisma": "AND", "mongo": "$and"}
Term = tuple[tuple[str, ...], str, Any]
"""A constraint as a query object holds it: the field's stored path, the operator, the value."""


@dataclass(frozen=True)
class QueryStyle:
    """How a seed's searches write their constraints."""

    family: str
    arg: str
    """The argument holding the object (``query``, ``filter``, ``where``, ``body``..)."""
    joined: bool = False
    """Terms listed one by one under ``AND`` (``$and``, ``must``) rather than merged."""
    spelling: int = 0
    """Which of the family's operator spellings (and a filter list's keys)."""

    @property
    def body(self) -> bool:
        """Whether the object is a whole request body holding the paging too."""
        return self.family in ("elastic", "hubspot")

    @property
    def paging(self) -> tuple[str, str]:
        return PAGING[self.family]

    @property
    def names(self) -> str:
        return f"query object {self.family} {self.arg}"

    def ops(self) -> dict[str, str]:
        spellings = OPS.get(self.family, ({},))
        return spellings[self.spelling % len(spellings)]


def draw_style(seed: int, query_string: bool) -> QueryStyle | None:
    """The query objects seed ``seed`` draws (none where it draws query strings), from a
    generator of its own."""
    rng = random.Random(f"query-objects/{seed}")
    drawn, family = rng.random() < SHARE, rng.choice(FAMILIES)
    style = QueryStyle(family, rng.choice(ARGS[family]), rng.random() < 0.4, rng.randrange(6))
    return style if drawn and not query_string else None


def _nest(path: tuple[str, ...], inner: dict[str, Any]) -> dict[str, Any]:
    for part in reversed(path):
        inner = {part: inner}
    return inner


def _merge(into: dict[str, Any], more: dict[str, Any]) -> None:
    for key, value in more.items():
        if isinstance(value, dict) and isinstance(into.get(key), dict):
            _merge(into[key], value)
        else:
            into[key] = value


def _where(style: QueryStyle, terms: list[Term]) -> dict[str, Any]:
    """A GraphQL ``where`` object (generic, Hasura or Prisma spelling)."""
    ops, parts = style.ops(), []
    for path, op, value in terms:
        if op == "prefix":
            inner: dict[str, Any] = {"startsWith": value}
            if style.family == "hasura":
                inner = {"_ilike": f"{value}%"}
            elif style.family == "prisma":
                inner |= {"mode": "insensitive"}
        else:
            inner = {ops[op]: value}
        parts.append(_nest(path, inner))
    if style.joined:
        return {JOINED[style.family]: parts}
    merged: dict[str, Any] = {}
    for part in parts:
        _merge(merged, part)
    return merged


def _mongo(style: QueryStyle, terms: list[Term]) -> dict[str, Any]:
    parts = []
    for path, op, value in terms:
        name = ".".join(path)
        if op == "prefix":
            parts.append({name: {"$regex": f"^{re.escape(str(value))}", "$options": "i"}})
        else:
            parts.append({name: {{"ge": "$gte", "le": "$lte"}.get(op, f"${op}"): value}})
    if style.joined:
        return {"$and": parts}
    merged: dict[str, Any] = {}
    for part in parts:
        _merge(merged, part)
    # A lone equality is written as the value itself, as Mongo's shorthand is.
    return {k: v["$eq"] if list(v) == ["$eq"] else v for k, v in merged.items()}


def _elastic(style: QueryStyle, terms: list[Term]) -> dict[str, Any]:
    clauses: list[Any] = []
    excluded: list[Any] = []
    ranges: dict[str, dict[str, Any]] = {}
    for path, op, value in terms:
        name = ".".join(path)
        if isinstance(value, str) and style.spelling % 2 and op in ("eq", "ne", "in"):
            name += ".keyword"
        if op in ("ge", "le"):
            ranges.setdefault(name, {})["gte" if op == "ge" else "lte"] = value
        elif op == "prefix":
            clauses.append({"prefix": {name: {"value": value, "case_insensitive": True}}})
        elif op == "in":
            clauses.append({"terms": {name: value}})
        else:
            (excluded if op == "ne" else clauses).append({"term": {name: value}})
    clauses += [{"range": {name: bounds}} for name, bounds in ranges.items()]
    query: dict[str, Any] = {"must" if style.joined else "filter": clauses}
    return {"bool": query | ({"must_not": excluded} if excluded else {})}


def _filters(style: QueryStyle, terms: list[Term]) -> Any:
    ops = style.ops()
    if style.family == "hubspot":
        found = []
        for path, op, value in terms:
            if op == "prefix":
                found.append({"propertyName": ".".join(path), "operator": "CONTAINS_TOKEN"})
                found[-1]["value"] = f"{value}*"
            else:
                found.append({"propertyName": ".".join(path), "operator": ops[op]})
                found[-1]["values" if op == "in" else "value"] = value
        return [{"filters": found}]
    field, cmp, val = FILTER_KEYS[style.spelling % len(FILTER_KEYS)]
    return [{field: ".".join(path), cmp: ops[op], val: value} for path, op, value in terms]


def render(style: QueryStyle, terms: list[Term]) -> Any:
    """The query object holding ``terms`` in the style's family."""
    if style.family == "elastic":
        return {"query": _elastic(style, terms)}
    if style.family == "mongo":
        return _mongo(style, terms)
    if style.family in ("filters", "hubspot"):
        found = _filters(style, terms)
        return {"filterGroups": found} if style.family == "hubspot" else found
    return _where(style, terms)
