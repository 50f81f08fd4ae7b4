"""Series keyed by time at any level of a state, beside a few keys that are no part of them.

A time series exported as one object (``{"2025-03-01T06:00": {...}, ...}``) is a collection of
records keyed by their time; but an export often keeps other things beside it in the same
object (a directory of the series' stations, its metadata). Those keys are no records of the
series: :func:`odd_keys` names them, so the series is read as one collection without them and
each of them as what it is (a collection of its own, or a plain object).
"""

from __future__ import annotations

import re
from typing import Any

_TIME_KEY = re.compile(
    r"^\d{4}-\d{2}(-\d{2})?([T ]\d{2}(:\d{2}){0,2}([.,]\d+)?(Z|[+-]\d{2}:?\d{2})?)?$"
)
_MIN_TIMES = 4
_MOST_ODD = 8


def time_key(key: str) -> bool:
    """A key that is a date or a timestamp (``2025-03``, ``2025-03-01``, ``2025-03-01T06:00Z``)."""
    return bool(_TIME_KEY.match(key))


def odd_keys(value: Any) -> list[str]:
    """The keys of an object of records keyed by time that are not times (a few, holding
    objects); ``[]`` when ``value`` is no such object or every key is a time."""
    if not isinstance(value, dict) or len(value) < _MIN_TIMES:
        return []
    odd = [k for k in value if not time_key(k)]
    if not odd or len(odd) > _MOST_ODD or (len(value) - len(odd)) < max(_MIN_TIMES, len(odd) * 4):
        return []
    return odd if all(isinstance(value[k], dict | list) for k in odd) else []
