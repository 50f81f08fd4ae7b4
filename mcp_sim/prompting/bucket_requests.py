"""Aggregations a call asks for inside its request: buckets of records by a field's values,
with statistics per bucket, as a search service's query language writes them.

An Elasticsearch or OpenSearch body asks beside its query for ``"aggs": {"groups": {"terms":
{"field": "address.city.keyword", "size": 5}, "aggs": {"min_price": {"min": {"field":
"price"}}}}}``: the five cities holding most records, each with its count and its lowest price,
under the names the request gives. No record holds these; the call's view must (see
:mod:`mcp_sim.prompting.bucket_stats`). This module reads such a request into
:class:`Aggregation` trees by the structure the languages share, one named entry per
aggregation holding one kind:

- a **bucket** kind (``terms``, ``histogram``, ``date_histogram``, ``range``) groups the
  records by a field's values, with its own ``aggs`` computed per bucket;
- a **metric** kind (``avg``, ``sum``, ``min``, ``max``, ``value_count``, ``cardinality``,
  ``stats``) is one figure over a field's values.

A request without such an entry asks for no aggregation (:func:`requested_aggregations` says
``()``): the call is read as ever.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

BUCKET_KINDS = frozenset(["terms", "histogram", "date_histogram", "range"])
METRIC_KINDS = frozenset(["avg", "sum", "min", "max", "value_count", "cardinality", "stats"])
_AGGS_KEYS = ("aggs", "aggregations")
_OPTIONS = frozenset(["meta"])
_DEFAULT_SIZE = 10
"""How many buckets a ``terms`` aggregation answers when the request says no ``size``."""
_MOST_DEPTH = 6
"""How deep into the arguments an ``aggs`` object is looked for (a body inside a request)."""


@dataclass(frozen=True)
class Aggregation:
    """One named aggregation of a request."""

    name: str
    """The request's own name for it: the answer's key."""
    kind: str
    """A bucket or metric kind (see the module's docstring)."""
    field: str
    """The field, as the request writes it (``address.city.keyword``)."""
    size: int = _DEFAULT_SIZE
    """For ``terms``: how many buckets, most records first."""
    interval: str = ""
    """For a histogram: the width of a bucket (``50000``; ``month``, ``1M``, ``1d``)."""
    inner: tuple[Aggregation, ...] = ()
    """The aggregations computed per bucket."""
    order: tuple[str, str] = ("_count", "desc")
    """For ``terms``: what orders the buckets (``_count``, ``_key`` or an inner metric's
    name) and which way."""
    ranges: tuple[tuple[float | None, float | None, str | None], ...] = ()
    """For ``range``: each bucket's lower bound (inclusive), upper bound (exclusive) and own
    key, where the request gives them."""


def requested_aggregations(arguments: dict[str, Any]) -> tuple[Aggregation, ...]:
    """The aggregations the call's arguments ask for, wherever they stand (a top-level
    ``aggs`` argument, or one inside a request ``body``); ``()`` where none."""
    return _found(arguments, 0)


def _found(value: Any, depth: int) -> tuple[Aggregation, ...]:
    if depth > _MOST_DEPTH or not isinstance(value, dict):
        return ()
    for key in _AGGS_KEYS:
        read = _aggregations(value.get(key))
        if read:
            return read
    for inner in value.values():
        found = _found(inner, depth + 1)
        if found:
            return found
    return ()


def _aggregations(value: Any) -> tuple[Aggregation, ...]:
    """The named aggregations of an ``aggs`` object; ``()`` where an entry is none."""
    if not isinstance(value, dict) or not value:
        return ()
    read = [_aggregation(name, spec) for name, spec in value.items()]
    return tuple(a for a in read if a is not None) if all(read) else ()


def _aggregation(name: str, spec: Any) -> Aggregation | None:
    if not isinstance(spec, dict):
        return None
    kinds = [k for k in spec if k not in _AGGS_KEYS and k not in _OPTIONS]
    if len(kinds) != 1 or kinds[0] not in BUCKET_KINDS | METRIC_KINDS:
        return None
    kind = kinds[0]
    body = spec[kind]
    if not isinstance(body, dict) or not isinstance(body.get("field"), str):
        return None
    inner: tuple[Aggregation, ...] = ()
    for key in _AGGS_KEYS:
        inner = inner or _aggregations(spec.get(key))
    size = body.get("size", _DEFAULT_SIZE)
    interval = body.get("calendar_interval") or body.get("fixed_interval")
    interval = interval or body.get("interval", "")
    return Aggregation(
        name,
        kind,
        body["field"],
        size if isinstance(size, int) and not isinstance(size, bool) else _DEFAULT_SIZE,
        str(interval),
        inner if kind in BUCKET_KINDS else (),
        _order(body.get("order")),
        _ranges(body.get("ranges")),
    )


def _ranges(value: Any) -> tuple[tuple[float | None, float | None, str | None], ...]:
    """A ``range`` aggregation's ranges: ``[{"to": 100}, {"from": 100, "to": 200}]``."""
    read = []
    for entry in value if isinstance(value, list) else []:
        if not isinstance(entry, dict):
            continue
        low, high, key = entry.get("from"), entry.get("to"), entry.get("key")
        read.append(
            (
                float(low) if isinstance(low, int | float) else None,
                float(high) if isinstance(high, int | float) else None,
                str(key) if key is not None else None,
            )
        )
    return tuple(read)


def _order(value: Any) -> tuple[str, str]:
    """A ``terms`` aggregation's order: ``{"_key": "asc"}`` (``_term`` in older versions),
    ``{"_count": "asc"}``, ``{"avg_price": "desc"}``; the first of a list."""
    if isinstance(value, list) and value:
        value = value[0]
    if not isinstance(value, dict) or len(value) != 1:
        return ("_count", "desc")
    ((by, way),) = value.items()
    by = "_key" if by == "_term" else str(by)
    return (by, "asc" if str(way).lower() == "asc" else "desc")
