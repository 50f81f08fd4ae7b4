"""Partitions: one collection stored as arrays of records under keys of one style.

An export often splits a large collection by month (``{"2025-01": [...], "2025-02": [...]}``),
by day file (``{"2025-01-05.json": [...], ...}``: a chat export's channel folder), by hash or
shard (``{"part-00001": [...], ...}``). Read apart, each array is a small collection of its own,
and a search or a count covers one of them where the tool's answer covers them all.
:func:`partitioned` finds such a map by structure, whatever its keys say: several keys of one
style carrying a digit (see :func:`mcp_sim.runtime.record_maps.of_one_style`), each holding an
array of records, the records of every partition alike in their fields.

The partitions are read as one collection whose records lie two levels below it
(``PART/N``, like a series' slots: :class:`mcp_sim.runtime.state_shape.Collection` ``slots``);
a record answers to its own id and to its partition's key (a month, a day, a shard).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

from jsonpointer import escape

from mcp_sim.runtime.record_maps import of_one_style
from mcp_sim.runtime.state_paths import resolve

_MIN_PARTS = 4
"""Fewer arrays may be a few named lists side by side (``open``, ``closed``)."""
_SAMPLE = 48
_SAMPLE_RECORDS = 8
_ALIKE = 0.5
"""The least share of the partitions' core fields that each partition's records hold."""


def partitioned(value: Any, odd: frozenset[str] = frozenset()) -> bool:
    """Whether ``value`` (its ``odd`` keys left out) is partitions of one collection."""
    if not isinstance(value, dict):
        return False
    parts = [(k, v) for k, v in value.items() if k not in odd]
    if len(parts) < _MIN_PARTS:
        return False
    sample = parts[:_SAMPLE]
    if not of_one_style([key for key, _ in sample]):
        return False
    if not all(isinstance(part, list) for _, part in sample):
        return False
    fields = [f for _, part in sample if part and (f := _fields(part)) is not None]
    if len(fields) < _MIN_PARTS or len(fields) < sum(1 for _, part in sample if part):
        return False
    # The fields most partitions' records hold; each partition's records hold most of them.
    counts = Counter(name for f in fields for name in f)
    core = {name for name, n in counts.items() if n * 2 >= len(fields)}
    return all(len(f & core) >= len(core) * _ALIKE for f in fields)


def _fields(part: list[Any]) -> frozenset[str] | None:
    """The fields a partition's first records hold; ``None`` when they are no records."""
    records = part[:_SAMPLE_RECORDS]
    if not all(isinstance(r, dict) and r for r in records):
        return None
    return frozenset(name for record in records for name in record)


def partition_items(value: Any, odd: frozenset[str]) -> Iterator[tuple[str, str, Any]]:
    """``(position "PART/N", pointer below the partitions, record)`` for each record."""
    if not isinstance(value, dict):
        return
    for part, records in value.items():
        if part in odd or not isinstance(records, list):
            continue
        for at, record in enumerate(records):
            yield f"{part}/{at}", f"{escape(part)}/{at}", record


def slot_records(slot_pointer: str, slot: Any) -> list[str]:
    """The pointers of the records a slot holds: a series' readings by source, or a
    partition's records by position."""
    if isinstance(slot, dict):
        return [f"{slot_pointer}/{escape(key)}" for key in slot]
    return [f"{slot_pointer}/{at}" for at in range(len(slot))] if isinstance(slot, list) else []


def appended(record: str, state: Any) -> str:
    """``record`` with an append's ``-`` read as the last item of its partition in ``state``."""
    part, _, last = record.rpartition("/")
    if last != "-":
        return record
    records = resolve(state, part)
    return f"{part}/{len(records) - 1 if isinstance(records, list) and records else 0}"
