"""A date bound on a field of epoch times: ``after:2025-03-08`` on a message's
``internalDate`` of ``1741392000000`` (milliseconds), ``created_before=2024-06-01`` on a
charge's ``created`` of ``1717200000`` (seconds).

When no date field fits a bound written as a date, the fields whose numbers are times since
1970 in seconds or milliseconds, and whose range holds the date (give or take a year), take
it, as the number of that scale the date is; of them, those whose path has a word of the
bound's name, if any do.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from mcp_sim.prompting.record_fields import SELF, FieldSchema, magnitude

EPOCH_DAY = date(1970, 1, 1).toordinal()
_DAY_SECONDS = 86_400
_SLACK_SECONDS = 366 * _DAY_SECONDS
"""How far outside the times a field holds a date may lie and still bound them."""
_SCALES = (1, 1000)
"""Seconds and milliseconds since 1970."""
_EARLIEST_SECONDS = 10**8
"""Times since 1970 below this (1973) are more likely counts than times."""


def epoch_bound(
    schema: FieldSchema, value: Any, words: tuple[str, ...]
) -> tuple[list[str], int] | None:
    """The epoch-time fields a date bound ``value`` falls among (see the module) and the
    bound as their number; ``None`` when it is no date or no such field holds times."""
    day = magnitude(value) if isinstance(value, str) else None
    if day is None:
        return None
    seconds = (int(day) - EPOCH_DAY) * _DAY_SECONDS
    for scale in _SCALES:
        wanted, slack = seconds * scale, _SLACK_SECONDS * scale
        fields = [
            path
            for path, info in schema.fields.items()
            if path != SELF
            and info.sorts_as == "number"
            and info.low is not None
            and info.high is not None
            and info.low >= _EARLIEST_SECONDS * scale
            and info.low - slack <= wanted <= info.high + slack
        ]
        named = [p for p in fields if set(words) & {w for s in schema.fields[p].words for w in s}]
        if fields:
            return named or fields, wanted
    return None
