"""The aggregations a request asks for (see :mod:`mcp_sim.prompting.bucket_requests`),
computed over the records its query selects, as the service answers them.

A ``terms`` aggregation answers its buckets most records first (ties by key), each ``{"key":
…, "doc_count": …}`` with its inner aggregations under their names, and how many records
the buckets left out hold (``sum_other_doc_count``); a histogram answers every bucket from
the lowest value's to the highest's, empty ones too; a ``range`` each range asked, in order;
a metric answers ``{"value": …}`` (a ``stats`` its five figures). A field is read by its dotted path (``address.city.keyword``:
``keyword`` names the text's own sub-field, no level of the record), from the record or from
the object that wraps its fields (a document's ``_source``).
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Callable
from typing import Any

from mcp_sim.prompting.bucket_requests import Aggregation

_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
_CALENDAR = {
    **dict.fromkeys(["day", "1d", "d"], "day"),
    **dict.fromkeys(["week", "1w", "w"], "week"),
    **dict.fromkeys(["month", "1M", "M"], "month"),
    **dict.fromkeys(["quarter", "1q", "q"], "quarter"),
    **dict.fromkeys(["year", "1y", "y"], "year"),
}
_MOST_BUCKETS = 400
"""A histogram spanning more buckets than this is not listed (a tiny interval on a wide
range): the view could not hold it."""


def aggregated(records: list[Any], aggregations: tuple[Aggregation, ...]) -> dict[str, Any]:
    """Each aggregation's answer over ``records``, under the request's name for it."""
    answers: dict[str, Any] = {}
    for aggregation in aggregations:
        values = [field_values(r, aggregation.field) for r in records]
        if aggregation.kind == "terms":
            answers[aggregation.name] = _terms(records, values, aggregation)
        elif aggregation.kind == "range":
            answers[aggregation.name] = _ranged(records, values, aggregation)
        elif aggregation.kind in ("histogram", "date_histogram"):
            answers[aggregation.name] = _histogram(records, values, aggregation)
        else:
            answers[aggregation.name] = metric(aggregation.kind, [v for vs in values for v in vs])
    return answers


def field_values(record: Any, field: str) -> list[Any]:
    """The scalar values ``record`` holds at the dotted ``field``: from the record, else
    from the one object among its fields that holds the path's first step."""
    parts = field.split(".")
    if isinstance(record, dict) and parts[0] not in record:
        wrappers = [v for v in record.values() if isinstance(v, dict) and parts[0] in v]
        record = wrappers[0] if len(wrappers) == 1 else record
    return _values(record, parts)


def _values(node: Any, parts: list[str]) -> list[Any]:
    if isinstance(node, list):
        return [v for item in node for v in _values(item, parts)]
    if isinstance(node, dict):
        return _values(node[parts[0]], parts[1:]) if parts and parts[0] in node else []
    # A scalar with steps left: the steps name a sub-field of its value (``city.keyword``).
    return [] if node is None else [node]


def _terms(records: list[Any], values: list[list[Any]], spec: Aggregation) -> dict[str, Any]:
    groups: dict[Any, list[Any]] = {}
    for record, held in zip(records, values, strict=True):
        for value in dict.fromkeys(_hashable(v) for v in held):
            groups.setdefault(value, []).append(record)
    by, way = spec.order
    if by == "_key":
        ranked = sorted(groups.items(), key=lambda item: _order(item[0]))
    else:
        # By count (or an inner metric's value), ties by key: Elasticsearch's own order.
        ranked = sorted(groups.items(), key=lambda item: _order(item[0]))
        ranked.sort(key=lambda item: _ranking(item[1], by, spec), reverse=way == "desc")
    if by == "_key" and way == "desc":
        ranked.reverse()
    shown = ranked[: max(spec.size, 0)]
    return {
        "doc_count_error_upper_bound": 0,
        "sum_other_doc_count": sum(len(group) for _, group in ranked[len(shown) :]),
        "buckets": [
            _key_of(key) | {"doc_count": len(group)} | aggregated(group, spec.inner)
            for key, group in shown
        ],
    }


def _ranking(group: list[Any], by: str, spec: Aggregation) -> float:
    """A bucket's place in a ``terms`` order: its count, or an inner metric's value."""
    inner = [a for a in spec.inner if a.name == by and a.kind not in ("terms", "stats")]
    if not inner or inner[0].kind in ("histogram", "date_histogram"):
        return len(group)
    value = aggregated(group, (inner[0],))[by].get("value")
    return float(value) if isinstance(value, int | float) else -math.inf


def _key_of(key: Any) -> dict[str, Any]:
    """A bucket's key as the service writes it: a yes/no field's as 1 or 0, with its text."""
    if isinstance(key, bool):
        return {"key": int(key), "key_as_string": "true" if key else "false"}
    return {"key": key}


def _ranged(records: list[Any], values: list[list[Any]], spec: Aggregation) -> dict[str, Any]:
    """Each range's bucket, in the request's order: its key (``*-100.0``, ``100.0-200.0``,
    ``200.0-*`` unless it gives one), its bounds and the records holding a value in it."""
    buckets = []
    for low, high, key in spec.ranges:
        group = [
            record
            for record, held in zip(records, values, strict=True)
            if any(_within(_number(v), low, high) for v in held)
        ]
        named = key or f"{'*' if low is None else low}-{'*' if high is None else high}"
        bounds = {"from": low} if low is not None else {}
        bounds |= {"to": high} if high is not None else {}
        buckets.append({"key": named, **bounds, "doc_count": len(group)})
        buckets[-1] |= aggregated(group, spec.inner)
    return {"buckets": buckets}


def _within(number: float | None, low: float | None, high: float | None) -> bool:
    return number is not None and (low is None or number >= low) and (high is None or number < high)


def _hashable(value: Any) -> Any:
    return value if isinstance(value, str | int | float | bool) else str(value)


def _order(key: Any) -> tuple[int, Any]:
    return (0, key) if isinstance(key, int | float) and not isinstance(key, bool) else (1, str(key))


def _histogram(records: list[Any], values: list[list[Any]], spec: Aggregation) -> dict[str, Any]:
    """Every bucket from the lowest value's to the highest's, empty ones too."""
    step = _stepper(spec)
    if step is None:
        return {"buckets": []}
    start_of, following, label = step
    groups: dict[float, list[Any]] = {}
    for record, held in zip(records, values, strict=True):
        for start in {s for s in map(start_of, held) if s is not None}:
            groups.setdefault(start, []).append(record)
    if not groups:
        return {"buckets": []}
    buckets: list[dict[str, Any]] = []
    at, last = min(groups), max(groups)
    while at <= last and len(buckets) < _MOST_BUCKETS:
        group = groups.get(at, [])
        bucket = {"key_as_string": label(at)} if label is not None else {}
        key = int(at) if spec.kind == "date_histogram" else at
        buckets.append({**bucket, "key": key, "doc_count": len(group)})
        buckets[-1] |= aggregated(group, spec.inner)
        at = following(at)
    return {"buckets": buckets} if at > last else {"buckets": []}


Stepper = tuple[
    Callable[[Any], float | None], Callable[[float], float], Callable[[float], str] | None
]


def _stepper(spec: Aggregation) -> Stepper | None:
    """How a value finds its bucket's start, the bucket after one, and a bucket's key as
    text (a date histogram's ``key_as_string``)."""
    if spec.kind == "histogram":
        width = _number(spec.interval)
        if width is None or width <= 0:
            return None
        size = width

        def start(value: Any) -> float | None:
            number = _number(value)
            return None if number is None else math.floor(number / size) * size

        return start, lambda at: at + size, None
    unit = _CALENDAR.get(spec.interval)
    if unit is None:
        return None
    return (
        lambda value: _calendar_start(value, unit),
        lambda at: _next_start(at, unit),
        lambda at: _moment(at).strftime("%Y-%m-%dT%H:%M:%S.000Z"),
    )


def _moment(milliseconds: float) -> dt.datetime:
    return _EPOCH + dt.timedelta(milliseconds=milliseconds)


def _millis(moment: dt.datetime) -> float:
    return (moment - _EPOCH).total_seconds() * 1000


def _calendar_start(value: Any, unit: str) -> float | None:
    moment = _time(value)
    if moment is None:
        return None
    day = moment.replace(hour=0, minute=0, second=0, microsecond=0)
    if unit == "week":
        day -= dt.timedelta(days=day.weekday())
    elif unit == "month":
        day = day.replace(day=1)
    elif unit == "quarter":
        day = day.replace(month=(day.month - 1) // 3 * 3 + 1, day=1)
    elif unit == "year":
        day = day.replace(month=1, day=1)
    return _millis(day)


def _next_start(at: float, unit: str) -> float:
    moment = _moment(at)
    if unit in ("day", "week"):
        return _millis(moment + dt.timedelta(days=1 if unit == "day" else 7))
    months = {"month": 1, "quarter": 3, "year": 12}[unit]
    index = moment.year * 12 + moment.month - 1 + months
    return _millis(moment.replace(year=index // 12, month=index % 12 + 1))


def _time(value: Any) -> dt.datetime | None:
    """A date as text (ISO 8601) or as an epoch number (seconds, or milliseconds where
    larger than any plausible count of seconds)."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        seconds = value / 1000 if abs(value) > 1e11 else value
        return _EPOCH + dt.timedelta(seconds=seconds)
    if not isinstance(value, str):
        return None
    try:
        moment = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment.replace(tzinfo=dt.UTC) if moment.tzinfo is None else moment.astimezone(dt.UTC)


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    try:
        return float(value) if isinstance(value, str) else None
    except ValueError:
        return None


def metric(kind: str, values: list[Any]) -> dict[str, Any]:
    """One metric aggregation's answer over a field's values."""
    if kind == "value_count":
        return {"value": len(values)}
    if kind == "cardinality":
        return {"value": len({_hashable(v) for v in values})}
    numbers = [n for n in map(_number, values) if n is not None]
    if kind == "stats":
        return {
            "count": len(numbers),
            "min": min(numbers) if numbers else None,
            "max": max(numbers) if numbers else None,
            "avg": sum(numbers) / len(numbers) if numbers else None,
            "sum": float(sum(numbers)),
        }
    if kind == "sum":
        return {"value": float(sum(numbers))}
    if not numbers:
        return {"value": None}
    if kind == "avg":
        return {"value": sum(numbers) / len(numbers)}
    return {"value": min(numbers) if kind == "min" else max(numbers)}
