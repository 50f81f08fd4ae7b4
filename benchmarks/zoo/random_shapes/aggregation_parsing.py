"""Reading an aggregation back out of a family's request (:mod:`.aggregation_writing`): the
tool answers what the request asks, not what the planner meant. A clause the family does not
know (or the generator never writes) is an error, as the service's is."""

from __future__ import annotations

import re
from typing import Any

from benchmarks.zoo.kit import ToolError
from benchmarks.zoo.random_shapes.aggregation_requests import AggRequest, AggStyle, Metric
from benchmarks.zoo.random_shapes.aggregation_writing import Columns, filter_style
from benchmarks.zoo.random_shapes.query_object_parsing import parse as parse_terms

HASURA = re.compile(r"(\w+)_aggregate\(where: \$where\) \{ aggregate \{ (.*) \} \} \}")
SQL = re.compile(
    r"SELECT (?P<chosen>.+?) FROM (?P<table>\w+)(?: WHERE (?P<where>.+?))?"
    r"(?: GROUP BY (?P<group>\w+) ORDER BY (?P<order>.+?))?(?: LIMIT (?P<size>\d+))?;?$"
)
SQL_METRIC = re.compile(r"(COUNT_DISTINCT|COUNT|SUM|AVG|MIN|MAX)\((DISTINCT )?([\w*]+)\)")
CONDITION = re.compile(r"(\w+) (=|>=|<=|IN) (.+)")


def _filters(style: AggStyle, held: Any, columns: Columns) -> tuple[tuple[str, str, Any], ...]:
    terms = parse_terms(filter_style(style), held)
    return tuple((columns.canonical(".".join(path)), op, value) for path, op, value in terms)


def _elastic(style: AggStyle, body: dict[str, Any], columns: Columns) -> AggRequest:
    filters = _filters(style, {"query": body["query"]}, columns) if "query" in body else ()
    aggs: dict[str, Any] = body.get("aggs", {})

    def metrics(held: dict[str, Any]) -> tuple[Metric, ...]:
        found = []
        for name, agg in held.items():
            ((op, inner),) = agg.items()
            if op not in ("sum", "avg", "min", "max", "value_count", "cardinality"):
                raise ToolError(f"unsupported aggregation {op}")
            found.append(Metric(name, op, columns.canonical(inner["field"])))
        return tuple(found)

    bucketed = [(n, a) for n, a in aggs.items() if {"terms", "date_histogram"} & set(a)]
    if not bucketed:
        return AggRequest(filters, metrics=metrics(aggs))
    ((name, agg),) = bucketed
    subs = metrics(agg.get("aggs", {}))
    if "date_histogram" in agg:
        held = agg["date_histogram"]
        group = columns.canonical(held["field"])
        interval = held["calendar_interval"]
        return AggRequest(filters, group, subs, "key", False, None, interval, name)
    terms = agg["terms"]
    ((by, way),) = terms.get("order", {"_count": "desc"}).items()
    order = {"_count": "count", "_key": "key"}.get(by, by)
    group = columns.canonical(terms["field"])
    return AggRequest(filters, group, subs, order, way == "desc", terms.get("size", 10), None, name)


def _pipeline(style: AggStyle, stages: list[dict[str, Any]], columns: Columns) -> AggRequest:
    filters: tuple[tuple[str, str, Any], ...] = ()
    group, metrics, order, descending, size = None, [], "count", True, None
    for stage in stages:
        ((kind, held),) = stage.items()
        if kind == "$match":
            filters = _filters(style, held, columns)
        elif kind == "$group":
            key = held["_id"]
            group = columns.canonical(key[1:]) if isinstance(key, str) else None
            for name, accumulator in held.items():
                if name == "_id":
                    continue
                ((op, value),) = accumulator.items()
                if value == 1 and op == "$sum":
                    metrics.append(Metric(name, "count"))
                else:
                    metrics.append(Metric(name, op[1:], columns.canonical(value[1:])))
        elif kind == "$sort":
            by, way = next(iter(held.items()))
            counted = next((m for m in metrics if m.name == by), None)
            order = "key" if by == "_id" else "count" if counted and counted.op == "count" else by
            descending = way == -1
        elif kind == "$limit":
            size = int(held)
        else:
            raise ToolError(f"unsupported stage {kind}")
    return AggRequest(filters, group, tuple(metrics), order, descending, size)


def _hasura(style: AggStyle, args: dict[str, Any], columns: Columns) -> AggRequest:
    matched = HASURA.search(args[style.arg])
    if matched is None:
        raise ToolError("expected a <table>_aggregate query")
    metrics = []
    for op, fields in re.findall(r"(\w+)(?: \{ ([\w ]+) \})?", matched.group(2)):
        if op == "count":
            metrics.append(Metric("count", "count"))
            continue
        for written in fields.split():
            field = columns.canonical(written)
            metrics.append(Metric(f"{op}:{field}", op, field))
    where = args.get("variables", {}).get("where", {})
    return AggRequest(_filters(style, where, columns) if where else (), None, tuple(metrics))


def _prisma(style: AggStyle, held: dict[str, Any], columns: Columns) -> AggRequest:
    group = columns.canonical(held["by"][0]) if "by" in held else None
    filters = _filters(style, held["where"], columns) if "where" in held else ()
    metrics = [Metric("count", "count")]
    for key, chosen in held.items():
        if key.startswith("_") and key != "_count":
            op = key[1:]
            metrics += [Metric(f"{op}:{f}", op, f) for f in map(columns.canonical, chosen)]
    order, descending = "count", True
    if group is not None:
        ((by, inner),) = held["orderBy"][0].items()
        if isinstance(inner, dict):
            ((written, way),) = inner.items()
            order = "count" if by == "_count" else f"{by[1:]}:{columns.canonical(written)}"
        else:
            order, way = "key", inner
        descending = way == "desc"
    return AggRequest(filters, group, tuple(metrics), order, descending, held.get("take"))


def _value(text: str) -> Any:
    if text.startswith("'"):
        return text[1:-1].replace("''", "'")
    return float(text) if "." in text else int(text)


def _sql(style: AggStyle, text: str, columns: Columns) -> AggRequest:
    matched = SQL.match(text.strip())
    if matched is None:
        raise ToolError(f"unsupported statement: {text[:80]}")
    soql, group = style.family == "soql", matched["group"]
    metrics: list[Metric] = []
    expressions: dict[str, str] = {}
    for item in matched["chosen"].split(", "):
        held = SQL_METRIC.match(item)
        if held is None:
            continue
        op = {"COUNT_DISTINCT": "cardinality"}.get(held[1], held[1].lower())
        op = "cardinality" if held[2] else op
        field = None if held[3] in ("*", "Id") else columns.canonical(held[3])
        alias = item[held.end() :].strip().removeprefix("AS ")
        name = alias or f"expr{len(metrics)}"
        metrics.append(Metric(name, op, field))
        expressions[held[0]] = name
    filters = []
    for condition in (matched["where"] or "").split(" AND ") if matched["where"] else []:
        found = CONDITION.fullmatch(condition)
        if found is None:
            raise ToolError(f"unsupported condition {condition}")
        name, sign, raw = found.groups()
        op = {"=": "eq", ">=": "ge", "<=": "le", "IN": "in"}[sign]
        value = [_value(v) for v in raw[1:-1].split(", ")] if op == "in" else _value(raw)
        filters.append((columns.canonical(name), op, value))
    order, descending = "count", True
    if group:
        by, way = matched["order"].split(", ")[0].rsplit(" ", 1)
        named = expressions.get(by, by) if soql else by
        counted = next((m for m in metrics if m.name == named), None)
        order = "key" if by == group else "count" if counted and counted.op == "count" else named
        descending = way == "DESC"
    size = int(matched["size"]) if matched["size"] else None
    group_name = columns.canonical(group) if group else None
    return AggRequest(tuple(filters), group_name, tuple(metrics), order, descending, size)


def parse(style: AggStyle, args: dict[str, Any], columns: Columns) -> AggRequest:
    """The aggregation a call's arguments ask for (an unknown clause is an error)."""
    try:
        family, held = style.family, args[style.arg]
        if family == "elastic":
            return _elastic(style, held, columns)
        if family == "mongo":
            return _pipeline(style, held, columns)
        if family == "hasura":
            return _hasura(style, args, columns)
        if family == "prisma":
            return _prisma(style, held, columns)
        return _sql(style, held, columns)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as error:
        raise ToolError(f"malformed aggregation request: {error!r}") from error
