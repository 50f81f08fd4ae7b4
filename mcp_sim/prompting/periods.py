"""Arguments that name a period rather than a value: ``month: "2025-04"``, ``year: "2024"``.

A report of "a hotel's arrivals in a month" takes the month as ``YYYY-MM``; no field holds that
value, but every date in it starts with it. Such an argument (an equality, its value a year or a
year and month that no field holds) is read as a prefix of the dates of the records: of the
date field its name names (``arrival_month`` ↔ ``arrival``), else the one the tool's name or
description names (``arrivals`` ↔ ``Stay/Arrival``), else every date field most records hold,
when they are few.
"""

from __future__ import annotations

import re
from collections.abc import Set
from typing import Any

from mcp_sim.prompting.field_names import name_score, read_argument, stem
from mcp_sim.prompting.record_fields import SELF, FieldSchema
from mcp_sim.runtime.state_shape import normalize

_PERIOD = re.compile(r"\d{4}(-(0[1-9]|1[0-2]))?")
_YEARS = re.compile(r"(\d{4})\s*(?:-|\.\.|–)\s*(\d{4})")
"""A span of years written as one value (``year:2015-2019``, ``1990..1999``)."""
_MOST_YEARS = 200
"""Years a span may cover, at most: a wider one is no span of years (a range of numbers)."""
_NAMED = 0.6
"""The least name fit that ties a period to a date field (as any argument to a field)."""
_MOST_FIELDS = 3
"""Date fields a period no name ties may stand for, at most."""


def is_period(constraint: Any) -> bool:
    """Whether a constraint is a period's prefix of dates (two bounds in one: it narrows the
    records a lookup links to, as a bound does)."""
    value = constraint.value
    return constraint.op == "prefix" and isinstance(value, str) and bool(_PERIOD.fullmatch(value))


def year_span(value: Any) -> list[str] | None:
    """The years of a span written as one value (``2015-2019``: each year from the first to
    the last), any of which a record's date may lie in; ``None`` when ``value`` is none."""
    match = _YEARS.fullmatch(value.strip()) if isinstance(value, str) else None
    if match is None:
        return None
    first, last = int(match[1]), int(match[2])
    return [str(y) for y in range(first, last + 1)] if 0 <= last - first <= _MOST_YEARS else None


def period_fields(
    schema: FieldSchema, name: str, value: Any, told: Set[str]
) -> tuple[tuple[str, ...], float] | None:
    """The date fields ``value`` (a period) is a prefix of, and how well a name ties them
    (``_NAMED`` by the argument's or the tool's words, 0 when none does); ``None`` when the
    argument names no period of this collection's dates."""
    periods = value if isinstance(value, list) else [value]
    if not periods or not all(isinstance(p, str) and _PERIOD.fullmatch(p) for p in periods):
        return None
    how = read_argument(name)
    if how.op not in ("eq", "match"):
        return None
    wanted = {normalize(p) for p in periods}
    if any(wanted & info.distinct for info in schema.fields.values()):
        return None  # a field holds the period itself (a record's ``month``)
    dates = [
        path
        for path, info in schema.fields.items()
        if path != SELF and info.sorts_as == "date" and info.records * 2 >= schema.sampled
    ]
    named = [p for p in dates if name_score(how.words, schema.fields[p].words) >= _NAMED]
    stems = {stem(word) for word in told}
    said = [p for p in dates if (words := schema.fields[p].words) and stem(words[-1][-1]) in stems]
    chosen = named or said
    if chosen:
        return tuple(chosen), _NAMED
    if not dates or len(dates) > _MOST_FIELDS:
        return None
    return tuple(dates), 0.0
