"""Writing an aggregation (:class:`.AggRequest`) as its family asks for it: an Elasticsearch
body, a MongoDB pipeline, a Hasura GraphQL document and its variables, Prisma's ``groupBy`` or
``aggregate`` arguments, SQL or SOQL text. Fields are written by :class:`Columns`: a document
store's by their stored path (``details.hull``), a table's by one identifier."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from benchmarks.zoo.random_shapes.aggregation_requests import AggRequest, AggStyle, Metric
from benchmarks.zoo.random_shapes.query_objects import QueryStyle, Term, render

DOCUMENTS = ("elastic", "mongo")
"""Families naming a field by its stored path; the others by one identifier."""


@dataclass(frozen=True)
class Columns:
    """How a family writes the fields: canonical name → written name, and back."""

    written: dict[str, str]
    text: frozenset[str]
    """Canonical names of string fields (Elasticsearch asks for their ``.keyword``)."""
    table: str
    keyword: bool = False

    @classmethod
    def of(cls, family: str, paths: dict[str, tuple[str, ...]], text: frozenset[str],
           table: str, keyword: bool = False) -> Columns:  # fmt: skip
        if family in DOCUMENTS:
            written = {name: ".".join(path) for name, path in paths.items()}
            return cls(written, text, table, keyword and family == "elastic")
        # A table names a column by one identifier: the stored name, made one.
        written = {name: re.sub(r"\W", "_", path[-1]) for name, path in paths.items()}
        return cls(written, text, re.sub(r"\W", "_", table))

    def name(self, canonical: str, exact: bool = False) -> str:
        """The written name (with ``.keyword`` for an exact-value field where asked)."""
        plain = self.written[canonical]
        return f"{plain}.keyword" if exact and self.keyword and canonical in self.text else plain

    def canonical(self, written: str) -> str:
        plain = written.removesuffix(".keyword")
        found = next((c for c, w in self.written.items() if w == plain), None)
        if found is None:
            raise KeyError(f"unknown field {written}")
        return found

    def terms(self, request: AggRequest) -> list[Term]:
        return [(tuple(self.name(f).split(".")), op, v) for f, op, v in request.filters]


def filter_style(style: AggStyle) -> QueryStyle:
    """The query-object style a family's filter is written in (:mod:`.query_objects`)."""
    return QueryStyle(style.family, style.arg, False, 1 if style.naming % 2 else 0)


def write(style: AggStyle, request: AggRequest, columns: Columns) -> dict[str, Any]:
    """The tool's arguments asking for ``request``."""
    family = style.family
    if family == "elastic":
        return {style.arg: _elastic(style, request, columns)}
    if family == "mongo":
        return {style.arg: _pipeline(style, request, columns)}
    if family == "hasura":
        return _hasura(style, request, columns)
    if family == "prisma":
        return {style.arg: _prisma(style, request, columns)}
    return {style.arg: sql_text(style, request, columns)}


def _metric_agg(metric: Metric, columns: Columns) -> dict[str, Any]:
    assert metric.field is not None
    exact = metric.op in ("cardinality", "value_count")
    return {metric.op: {"field": columns.name(metric.field, exact)}}


def _elastic(style: AggStyle, request: AggRequest, columns: Columns) -> dict[str, Any]:
    body: dict[str, Any] = {"size": 0}
    if request.filters:
        body |= render(filter_style(style), columns.terms(request))
    subs = {m.name: _metric_agg(m, columns) for m in request.metrics}
    if request.interval is not None:
        assert request.group is not None
        bucket = {"field": columns.name(request.group), "calendar_interval": request.interval}
        body["aggs"] = {request.name: {"date_histogram": bucket} | ({"aggs": subs} if subs else {})}
    elif request.group is not None:
        terms: dict[str, Any] = {"field": columns.name(request.group, exact=True)}
        if request.size is not None and not (request.size == 10 and style.naming % 2):
            terms["size"] = request.size
        by = {"count": "_count", "key": "_key"}.get(request.order, request.order)
        if (by, request.descending) != ("_count", True) or style.naming % 3 == 0:
            terms["order"] = {by: "desc" if request.descending else "asc"}
        body["aggs"] = {request.name: {"terms": terms} | ({"aggs": subs} if subs else {})}
    else:
        body["aggs"] = subs
    return body


def _pipeline(style: AggStyle, request: AggRequest, columns: Columns) -> list[dict[str, Any]]:
    stages: list[dict[str, Any]] = []
    if request.filters:
        stages.append({"$match": render(filter_style(style), columns.terms(request))})
    group: dict[str, Any] = {"_id": f"${columns.name(request.group)}" if request.group else None}
    for m in request.metrics:
        group[m.name] = (
            {"$sum": 1} if m.op == "count" else {f"${m.op}": f"${columns.name(m.field or '')}"}
        )
    stages.append({"$group": group})
    if request.group is not None:
        way = -1 if request.descending else 1
        by = "_id" if request.order == "key" else _metric(request, request.order).name
        stages.append({"$sort": {by: way} | ({"_id": 1} if by != "_id" else {})})
    if request.size is not None:
        stages.append({"$limit": request.size})
    return stages


def _metric(request: AggRequest, name: str) -> Metric:
    if name == "count":
        return next(m for m in request.metrics if m.op == "count")
    return next(m for m in request.metrics if m.name == name)


def by_op(request: AggRequest) -> dict[str, list[str]]:
    """The fields of each operation but the count, in the order first asked."""
    found: dict[str, list[str]] = {}
    for m in request.metrics:
        if m.op != "count" and m.field is not None:
            found.setdefault(m.op, []).append(m.field)
    return found


def _hasura(style: AggStyle, request: AggRequest, columns: Columns) -> dict[str, Any]:
    table = columns.table
    chosen = ["count"] + [
        f"{op} {{ {' '.join(columns.name(f) for f in fields)} }}"
        for op, fields in by_op(request).items()
    ]
    text = (
        f"query Aggregate($where: {table}_bool_exp) {{ {table}_aggregate(where: $where) "
        f"{{ aggregate {{ {' '.join(chosen)} }} }} }}"
    )
    where = render(filter_style(style), columns.terms(request)) if request.filters else {}
    return {style.arg: text, "variables": {"where": where}}


def _prisma(style: AggStyle, request: AggRequest, columns: Columns) -> dict[str, Any]:
    held: dict[str, Any] = {}
    group = columns.name(request.group) if request.group else None
    if group is not None:
        held["by"] = [group]
    if request.filters:
        held["where"] = render(filter_style(style), columns.terms(request))
    held["_count"] = {"_all": True}
    for op, fields in by_op(request).items():
        held[f"_{op}"] = {columns.name(f): True for f in fields}
    if group is not None:
        way = "desc" if request.descending else "asc"
        if request.order == "key":
            held["orderBy"] = [{group: way}]
        else:
            m = _metric(request, request.order)
            inner = (
                {"_count": {group: way}}
                if m.op == "count"
                else {f"_{m.op}": {columns.name(m.field or ""): way}}
            )
            held["orderBy"] = [inner, {group: "asc"}]
        if request.size is not None:
            held["take"] = request.size
    return held


def sql_expression(family: str, metric: Metric, columns: Columns) -> str:
    """A metric as SQL (``COUNT(*)``, ``COUNT(DISTINCT x)``) or SOQL (``COUNT(Id)``,
    ``COUNT_DISTINCT(x)``) writes it."""
    if metric.op == "count":
        return "COUNT(Id)" if family == "soql" else "COUNT(*)"
    column = columns.name(metric.field or "")
    if metric.op == "cardinality":
        return f"COUNT_DISTINCT({column})" if family == "soql" else f"COUNT(DISTINCT {column})"
    return f"{metric.op.upper()}({column})"


def literal(value: Any) -> str:
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    return repr(value)


def sql_text(style: AggStyle, request: AggRequest, columns: Columns) -> str:
    """A request as SQL or SOQL text (SOQL names an aggregate with a bare alias, or not at
    all, and orders by the aggregate itself)."""
    soql = style.family == "soql"
    group = columns.name(request.group) if request.group else None
    chosen = [group] if group else []
    for m in request.metrics:
        expression = sql_expression(style.family, m, columns)
        if not soql:
            chosen.append(f"{expression} AS {m.name}")
        else:
            chosen.append(expression if m.name.startswith("expr") else f"{expression} {m.name}")
    text = f"SELECT {', '.join(chosen)} FROM {columns.table}"
    conditions = []
    for f, op, value in request.filters:
        sign = {"eq": "=", "ge": ">=", "le": "<=", "in": "IN"}[op]
        held = f"({', '.join(map(literal, value))})" if op == "in" else literal(value)
        conditions.append(f"{columns.name(f)} {sign} {held}")
    if conditions:
        text += " WHERE " + " AND ".join(conditions)
    if group is not None:
        way = "DESC" if request.descending else "ASC"
        text += f" GROUP BY {group} ORDER BY "
        if request.order == "key":
            text += f"{group} {way}"
        else:
            m = _metric(request, request.order)
            text += f"{sql_expression('soql', m, columns) if soql else m.name} {way}, {group} ASC"
        if request.size is not None:
            text += f" LIMIT {request.size}"
    return text
