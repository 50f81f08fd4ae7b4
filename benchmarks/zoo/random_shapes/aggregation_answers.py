"""Answering an aggregation (:class:`.AggRequest`) from the records, as its family answers:
the groups of the records meeting the filter (a group field is never sparse, so no group is
``null``), ordered (ties by key, ascending) and cut; each group's metrics over the values
present, typed as the family types them (Elasticsearch's and SOQL's figures are doubles and
an empty sum is ``0.0`` or ``null``; MongoDB's ``$sum`` keeps integers and an empty one is
``0``; SQL, Hasura and Prisma keep the column's type and an empty sum is ``null``); and the
answer in the family's form (an Elasticsearch search answer with ``aggregations``, MongoDB
documents, Hasura's ``aggregate``, Prisma's groups, SQL rows, SOQL ``AggregateResult``s)."""

from __future__ import annotations

import calendar
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from benchmarks.zoo.random_shapes.aggregation_requests import AggRequest, AggStyle, Metric
from benchmarks.zoo.random_shapes.aggregation_writing import Columns, by_op
from benchmarks.zoo.random_shapes.searches import meets

Value = Callable[[dict[str, Any], str], Any]
"""A record's value of a canonical field (``None`` where it has none)."""
DOUBLES = ("elastic", "soql")


@dataclass(frozen=True)
class Grouping:
    matched: int
    """How many records meet the filter."""
    groups: list[tuple[Any, list[dict[str, Any]]]]
    """The groups shown: key and records, in order."""
    other: int
    """How many matching records sit in groups cut off."""


def _month(day: str, interval: str) -> str:
    return day[:4] + "-01-01" if interval == "year" else day[:7] + "-01"


def _histogram(request: AggRequest, records: list[dict[str, Any]], value: Value) -> list[Any]:
    """Elasticsearch's buckets of a ``date_histogram``: every interval from the first date's
    to the last's, empty ones too, oldest first."""
    assert request.group is not None and request.interval is not None
    days = {r_id: value(r, request.group) for r_id, r in enumerate(records)}
    keys = sorted({_month(d, request.interval) for d in days.values() if d is not None})
    if not keys:
        return []
    filled, (year, month) = [], (int(keys[0][:4]), int(keys[0][5:7]))
    while (key := f"{year:04d}-{month:02d}-01") <= keys[-1]:
        filled.append(key)
        year, month = (
            (year + 1, 1) if request.interval == "year" or month == 12 else (year, month + 1)
        )
    return [
        (
            k,
            [
                r
                for i, r in enumerate(records)
                if days[i] and _month(days[i], request.interval) == k
            ],
        )
        for k in filled
    ]


def metric(op: str, group: list[dict[str, Any]], field: str | None, value: Value) -> Any:
    """A metric of a group, untyped (``None``: no value to compute it over)."""
    if op == "count":
        return len(group)
    present = [v for r in group if (v := value(r, field or "")) is not None]
    if op == "value_count":
        return len(present)
    if op == "cardinality":
        return len(set(map(str, present)))
    if not present:
        return None
    if op == "sum":
        return sum(present)
    if op == "avg":
        return sum(present) / len(present)
    return min(present) if op == "min" else max(present)


def group(request: AggRequest, records: list[dict[str, Any]], value: Value) -> Grouping:
    """The groups ``request`` asks for over ``records``."""
    matched = [r for r in records if all(meets(op, value(r, f), v) for f, op, v in request.filters)]
    if request.group is None:
        return Grouping(len(matched), [(None, matched)], 0)
    if request.interval is not None:
        return Grouping(len(matched), _histogram(request, matched, value), 0)
    held: dict[Any, list[dict[str, Any]]] = {}
    for r in matched:
        key = value(r, request.group)
        if key is not None:
            held.setdefault(key, []).append(r)
    groups = sorted(held.items(), key=lambda pair: str(pair[0]))
    if request.order == "key":
        groups.sort(key=lambda pair: str(pair[0]), reverse=request.descending)
    else:
        chosen = _ordering(request)

        def figure(pair: tuple[Any, list[dict[str, Any]]]) -> float:
            found = metric(chosen.op, pair[1], chosen.field, value)
            return float("-inf") if found is None else float(found)

        # Stable sorts keep ties in key order, whichever way the figure sorts.
        groups.sort(key=lambda pair: -figure(pair) if request.descending else figure(pair))
    shown = groups[: request.size] if request.size is not None else groups
    return Grouping(
        len(matched), shown, sum(len(g) for _, g in groups) - sum(len(g) for _, g in shown)
    )


def _ordering(request: AggRequest) -> Metric:
    if request.order == "count":
        return Metric("count", "count")
    return next(m for m in request.metrics if m.name == request.order)


def typed(family: str, op: str, raw: Any) -> Any:
    if op in ("count", "value_count", "cardinality"):
        return int(raw)
    if family in DOUBLES:
        if raw is None:
            return 0.0 if op == "sum" and family == "elastic" else None
        return float(raw)
    if raw is None:
        return 0 if op == "sum" and family == "mongo" else None
    return float(raw) if op == "avg" else raw


def answer(style: AggStyle, request: AggRequest, found: Grouping, columns: Columns,
           value: Value) -> Any:  # fmt: skip
    """The family's answer to ``request`` given its groups."""
    family = style.family

    def figures(records: list[dict[str, Any]]) -> dict[str, Any]:
        return {
            m.name: typed(family, m.op, metric(m.op, records, m.field, value))
            for m in request.metrics
        }

    if family == "elastic":
        return _elastic(request, found, figures)
    group = columns.name(request.group) if request.group else None
    if family == "mongo":
        docs = [{"_id": key} | figures(records) for key, records in found.groups]
        docs = docs if found.matched or group else []
        return {"documents": docs} if style.wrapped else docs
    if family in ("hasura", "prisma"):
        rows = []
        for key, records in found.groups:
            held: dict[str, Any] = {group: key} if group else {}
            held["count" if family == "hasura" else "_count"] = (
                len(records) if family == "hasura" else {"_all": len(records)}
            )
            for op, fields in by_op(request).items():
                held[op if family == "hasura" else f"_{op}"] = {
                    columns.name(f): typed(family, op, metric(op, records, f, value))
                    for f in fields
                }
            rows.append(held)
        if family == "hasura":
            return {"data": {f"{columns.table}_aggregate": {"aggregate": rows[0]}}}
        return rows if group else rows[0]
    names = ([group] if group else []) + [m.name for m in request.metrics]
    table = [
        [key, *figures(records).values()][0 if group else 1 :] for key, records in found.groups
    ]
    if family == "soql":
        records = [
            {"attributes": {"type": "AggregateResult"}} | dict(zip(names, row, strict=True))
            for row in table
        ]
        return {"totalSize": len(records), "done": True, "records": records}
    if style.wrapped:
        return {"columns": names, "rows": table}
    return [dict(zip(names, row, strict=True)) for row in table]


def _epoch_ms(day: str) -> int:
    return calendar.timegm((int(day[:4]), int(day[5:7]), 1, 0, 0, 0)) * 1000


def _elastic(request: AggRequest, found: Grouping, figures: Callable[..., dict[str, Any]]) -> Any:
    aggregations: dict[str, Any]
    if request.group is None:
        ((_, records),) = found.groups
        aggregations = {name: {"value": v} for name, v in figures(records).items()}
    else:
        buckets = []
        for key, records in found.groups:
            head: dict[str, Any] = {"key": key, "doc_count": len(records)}
            if request.interval is not None:
                head = {
                    "key_as_string": f"{key}T00:00:00.000Z",
                    "key": _epoch_ms(key),
                    "doc_count": len(records),
                }
            buckets.append(head | {name: {"value": v} for name, v in figures(records).items()})
        held: dict[str, Any] = {"buckets": buckets}
        if request.interval is None:
            held = {"doc_count_error_upper_bound": 0, "sum_other_doc_count": found.other} | held
        aggregations = {request.name: held}
    return {
        "took": 2 + found.matched // 400,
        "timed_out": False,
        "hits": {
            "total": {"value": found.matched, "relation": "eq"},
            "max_score": None,
            "hits": [],
        },
        "aggregations": aggregations,
    }
