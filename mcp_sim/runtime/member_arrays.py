"""Records inside large members: the events of a few calendars, the transactions of a few
accounts, the readings of a few stations.

An array of a few members, each far too large to show whole and each holding one large
array of alike items at the same place (``/calendars/N/jcal/2``: a jCal calendar's
components), keeps its records in those inner arrays: a call names an event, not the calendar
it is filed in. Read as a collection of its members, a lookup or a search finds a whole
calendar it cannot show. :func:`member_array` finds where in each member the records are; the
collection is then read as pages (see :mod:`mcp_sim.runtime.state_pages`), each member a page
of its records, all members' records one collection whose pointers stay real
(``/calendars/2/jcal/2/17``).
"""

from __future__ import annotations

import json
from typing import Any

from jsonpointer import escape

from mcp_sim.runtime.envelopes import kinds_differ
from mcp_sim.runtime.state_pages import at_path

_LARGE_MEMBER = 16_000
"""A member of more characters (compact JSON, on average) is too large to show whole."""
_DOMINANT = 0.8
"""The share of the members' characters their inner arrays must hold: the rest is each
member's own few fields (a calendar's name and url)."""
_LEAST_RECORDS = 24
"""The least records a member holds on average: a large array, not a record's few parts (a
division's dozen units, each of which is shown with its people)."""
_MAX_DEPTH = 4


def _size(value: Any) -> int:
    return len(json.dumps(value, separators=(",", ":"), default=str))


def _containers(items: list[Any]) -> bool:
    sample = items[:24]
    return bool(sample) and all(isinstance(item, dict | list) for item in sample)


def _largest(value: Any, path: str, depth: int) -> tuple[int, str]:
    """The most items an array of containers holds in ``value``, and its path."""
    best = (0, "")
    if depth > _MAX_DEPTH:
        return best
    if isinstance(value, list) and _containers(value):
        best = (len(value), path)
    children = value.items() if isinstance(value, dict) else enumerate(value)
    if isinstance(value, dict | list):
        for key, item in children:
            if isinstance(item, dict | list):
                part = escape(str(key))
                found = _largest(item, f"{path}/{part}" if path else part, depth + 1)
                if found[0] > best[0]:
                    best = found
    return best


def member_array(value: Any) -> str:
    """Where in each member of ``value`` (an array's items, or an object's values keyed by
    id) its records are (a path below the member, ``jcal/2``) when the members are too large
    to show, each holding most of its size in an array of alike items there (of one kind in
    every member: envelopes of different kinds are several collections, see
    :mod:`mcp_sim.runtime.envelopes`); else ``""``."""
    members = list(value.values()) if isinstance(value, dict) else value
    if not isinstance(members, list) or len(members) < 2:
        return ""
    if not all(isinstance(member, dict) for member in members):
        return ""
    if sum(map(_size, members[:3])) * 2 < _LARGE_MEMBER * len(members[:3]):
        return ""  # most collections' records are small: no need to measure them all
    sizes = [_size(member) for member in members]
    if sum(sizes) < _LARGE_MEMBER * len(members):
        return ""
    count, path = _largest(members[0], "", 0)
    if not path or count < 2:
        return ""
    arrays = [at_path(member, path) for member in members]
    if not all(isinstance(a, list) for a in arrays):
        return ""
    if sum(len(a) for a in arrays) < _LEAST_RECORDS * len(members):
        return ""
    if sum(_size(a) for a in arrays) < _DOMINANT * sum(sizes):
        return ""
    kinds = {type(item) for a in arrays for item in a[:24]}
    # Members keyed by name are told from a few tables or exports of different kinds by
    # their records' fields, which arrays of arrays do not name.
    alike = {dict} if isinstance(value, dict) else {dict, list}
    if len(kinds) != 1 or not kinds <= alike or kinds_differ(arrays):
        return ""
    return path
