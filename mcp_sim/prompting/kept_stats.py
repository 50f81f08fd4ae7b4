"""Group statistics kept across calls, for the very records they were read from.

A summary of a whole collection reads every field of every record (11,000 bookings at 5 MB:
200-500 ms), and a world's calls sum up the same records again and again: the same tool with
arguments that select none of them, the same search in another episode, a session that
changed other records. A committed state is never changed in place (see
:func:`mcp_sim.runtime.state.copied_along`), so a record that is still the same object holds
the same values: the statistics of a large group are kept on the world's index with the
records they were read from, and given again while each record is the very same object,
whatever the session and its state's version. A record a patch changed is a new object: the
group's statistics are read anew.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from mcp_sim.prompting.summary_stats import GroupStats, group_stats
from mcp_sim.runtime.state_index import StateIndex

FEWEST_KEPT = 500
"""Smaller groups are read on every call: a few milliseconds."""
MOST_KEPT = 8
"""Groups kept per world (the oldest goes): each holds its records' values."""

_Kept = tuple[list[Any], list[str] | None, GroupStats]
"""The records read, their keys, and the statistics read from them."""


def kept_group_stats(
    index: StateIndex,
    name: str,
    records: list[Any],
    keys: list[str] | None,
    kinds: frozenset[str],
    asked: frozenset[str],
) -> GroupStats:
    """:func:`group_stats` of the arguments, kept on ``index`` (see the module); a copy, so
    that a caller may set its :attr:`GroupStats.outer`."""
    if len(records) < FEWEST_KEPT:
        return group_stats(name, records, keys, kinds, asked)
    kept: dict[tuple[Any, ...], _Kept] = index.derived.setdefault("group stats", {})
    key = (name, len(records), kinds, asked)
    found = kept.get(key)
    if found is not None and found[1] == keys and _same(found[0], records):
        return replace(found[2])
    stats = group_stats(name, records, keys, kinds, asked)
    kept.pop(key, None)
    oldest = next(iter(kept), None) if len(kept) >= MOST_KEPT else None
    if oldest is not None:
        kept.pop(oldest, None)
    kept[key] = (list(records), None if keys is None else list(keys), stats)
    return replace(stats)


def _same(read: list[Any], records: list[Any]) -> bool:
    """Whether ``records`` are the very objects read, in the same order."""
    return len(read) == len(records) and all(a is b for a, b in zip(read, records, strict=True))
