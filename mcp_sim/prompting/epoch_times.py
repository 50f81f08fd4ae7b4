"""Times written as seconds (or milliseconds) since 1970: ``"created": 1714567890``.

Many APIs write a time as a Unix epoch number, not as a date: payment and chat APIs in
seconds (``created``, a message's ``ts`` as ``"1714567890.000200"``), mail and search
services in milliseconds (``internalDate: "1714567890123"``). A call still asks by date
(``created_from: "2025-05-01"``, ``month: "2025-05"``, ``before: "2025-07-21"``), and no
such number is a date, so a search or a summary over that date would find nothing.

A field is read as such a time by its name and its values together: a word of its name says
time (``created``, ``ts``, ``paid_at``, ``internalDate``) and every number sampled from it lies
where epoch seconds (or milliseconds) of the years 2000-2100 lie. Its values are then also
known by the UTC time they stand for (``2024-05-01T12:31:30Z``), which a date compares,
bounds and prefixes as it does any timestamp; they are shown as stored.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from mcp_sim.prompting.field_names import tokens

SECONDS = 1.0
MILLISECONDS = 1000.0
_EARLIEST = 946_684_800.0
"""2000-01-01, in seconds since 1970."""
_LATEST = 4_102_444_800.0
"""2100-01-01, in seconds since 1970."""
_TIME_WORDS = frozenset(
    {
        "at",
        "created",
        "date",
        "datetime",
        "deleted",
        "due",
        "end",
        "expire",
        "expires",
        "expiry",
        "issued",
        "modified",
        "on",
        "received",
        "sent",
        "since",
        "start",
        "time",
        "timestamp",
        "ts",
        "until",
        "updated",
        "when",
    }
)
"""Words of a field's name that say it holds a time (singular, as :func:`tokens` gives)."""
_NUMBER_TEXT = re.compile(r"^\d{9,13}(\.\d+)?$")
_DATE = re.compile(r"^\d{4}-\d{2}(-\d{2})?")


def names_time(path: str) -> bool:
    """Whether the last named segment of a field path has a word that says time."""
    named = [s for s in path.split("/") if s not in ("#", "*", "^") and not s.isdigit()]
    return bool(named) and any(w in _TIME_WORDS for w in tokens(named[-1]))


def epoch_unit(path: str, low: float | None, high: float | None) -> float | None:
    """:data:`SECONDS` or :data:`MILLISECONDS` when the field at ``path`` holds epoch times
    (its name says time, its numbers from ``low`` to ``high`` lie in one unit's range), else
    ``None``."""
    if low is None or high is None or not names_time(path):
        return None
    for unit in (SECONDS, MILLISECONDS):
        if _EARLIEST * unit <= low and high <= _LATEST * unit:
            return unit
    return None


def epoch_number(value: Any) -> float | None:
    """A number, or text holding one (``"1714567890.000200"``), else ``None``."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str) and _NUMBER_TEXT.match(value):
        return float(value)
    return None


def epoch_time(value: Any, unit: float | None = None) -> str | None:
    """The UTC time (``2024-05-01T12:31:30Z``) an epoch number stands for, in ``unit``
    (seconds or milliseconds; when ``None``, whichever range the number lies in); ``None``
    when it is no epoch time."""
    number = epoch_number(value)
    if number is None:
        return None
    units = (unit,) if unit is not None else (SECONDS, MILLISECONDS)
    for each in units:
        seconds = number / each
        if _EARLIEST <= seconds <= _LATEST:
            return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return None


def names_date(wanted: Any) -> bool:
    """Whether ``wanted`` is a date, a month or a time written as text: what an epoch number
    is compared with as the time it stands for (see :func:`as_time`)."""
    return isinstance(wanted, str) and _DATE.match(wanted) is not None


def as_time(actual: Any) -> Any:
    """``actual`` as the UTC time it stands for when it is an epoch number (a changed
    record's value tested against a date), else ``actual``."""
    found = epoch_time(actual)
    return actual if found is None else found
