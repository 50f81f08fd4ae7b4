"""Series keyed by time at any level of a state, beside a few keys that are no part of them.

A time series exported as one object (``{"2025-03-01T06:00": {...}, ...}``) is a collection of
records keyed by their time; but an export often keeps other things beside it in the same
object (a directory of the series' stations, its metadata). Those keys are no records of the
series: :func:`odd_keys` names them, so the series is read as one collection without them and
each of them as what it is (a collection of its own, or a plain object).

When each time holds a map of same-shaped records keyed by their source (``"2025-03-01T06:00":
{"DE-0412": {reading}, ...}``), the series' records are those readings, keyed
``TIME/SOURCE`` (:func:`slotted`, :func:`slot_items`): a search for a station's readings after
a time meets single readings, not whole time slots holding every station.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from jsonpointer import escape

_TIME_KEY = re.compile(
    r"^\d{4}-\d{2}(-\d{2})?([T ]\d{2}(:\d{2}){0,2}([.,]\d+)?(Z|[+-]\d{2}:?\d{2})?)?$"
)
_MIN_TIMES = 4
_MOST_ODD = 8
_SAMPLE = 24


def time_key(key: str) -> bool:
    """A key that is a date or a timestamp (``2025-03``, ``2025-03-01``, ``2025-03-01T06:00Z``)."""
    return bool(_TIME_KEY.match(key))


def series_odd(value: Any) -> list[str] | None:
    """The keys of an object of records keyed by time that are not times (a few, holding
    objects or arrays); ``None`` when ``value`` is no such object."""
    if not isinstance(value, dict) or len(value) < _MIN_TIMES:
        return None
    odd = [k for k in value if not time_key(k)]
    times = len(value) - len(odd)
    if len(odd) > _MOST_ODD or times < max(_MIN_TIMES, len(odd) * 4):
        return None
    return odd if all(isinstance(value[k], dict | list) for k in odd) else None


def odd_keys(value: Any) -> list[str]:
    """:func:`series_odd`, ``[]`` for no series."""
    return series_odd(value) or []


def _source_map(slot: Any) -> bool:
    """A map of records keyed by their source (no times): objects sharing most fields."""
    if not isinstance(slot, dict) or not slot:
        return False
    records = list(slot.items())[:_SAMPLE]
    if not all(isinstance(r, dict) and r and not time_key(k) for k, r in records):
        return False
    first = set(records[0][1])
    return all(len(first & set(r)) * 2 >= len(first | set(r)) for _, r in records)


def slotted(series: dict[str, Any]) -> bool:
    """Whether each time of ``series`` (its odd keys left out) holds a map of records keyed
    by their source (a reading per station)."""
    slots = list(series.values())[:_SAMPLE]
    return bool(slots) and all(_source_map(s) for s in slots)


def slot_items(series: Any, odd: frozenset[str]) -> Iterator[tuple[str, str, Any]]:
    """``(key "TIME/SOURCE", pointer below the series, record)`` for each record."""
    if not isinstance(series, dict):
        return
    for time, slot in series.items():
        if time in odd or not isinstance(slot, dict):
            continue
        for source, record in slot.items():
            yield f"{time}/{source}", f"{escape(time)}/{escape(source)}", record


def key_values(key: str) -> list[str]:
    """What a record's key says: a slotted series' ``TIME/SOURCE`` its time and its source
    (each a value a call may name), any other key itself."""
    time, _, source = key.partition("/")
    return [time, source] if source and time_key(time) else [key]
