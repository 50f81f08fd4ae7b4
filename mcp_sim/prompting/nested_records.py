"""Searches whose records sit inside other records: people in the units of a tree, lines in
orders, files in folders.

A collection found by shape is the outermost array or map of records; a tree (divisions →
units → members) or a nested list keeps the records a search is about deeper down. When every
constraint of a search names a field of one kind of nested record, found at any depth (the
``members`` of a unit, of a sub-unit, of a sub-sub-unit), the search is run on those nested
records: each is tested on its own fields, and the matches are the nested records themselves
(``/divisions/3/units/0/members/2``), not the outer records that hold one of them. Maps keyed
by id or date (a flight's calendar) are entries of their record, not records of their own.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from mcp_sim.prompting.constraints import Constraint, Reading
from mcp_sim.prompting.field_tables import sub_record_of
from mcp_sim.prompting.record_fields import ANY, KEY, FieldSchema, values_at


def entity_of(path: str) -> tuple[str, str] | None:
    """``(entity, tail)`` of a field path inside nested records: ``units/*/members/*/grade``
    → (``members``, ``grade``); ``None`` for a field of the record itself."""
    segments = path.split("/")
    for i in range(len(segments) - 2, 0, -1):
        rest = segments[i + 1 :]
        if segments[i] == ANY and any(s not in (ANY, KEY) for s in rest):
            if segments[i - 1] in (ANY, KEY):
                return None
            return segments[i - 1], "/".join(rest)
    return None


def nested_entity(schema: FieldSchema, reading: Reading) -> str | None:
    """The kind of nested record every constraint names a field of (an array's items, not a
    map's entries), or ``None``."""
    common: set[str] | None = None
    for constraint in reading.constraints:
        if constraint.op == "text":
            return None
        names = {e[0] for f in constraint.fields if (e := entity_of(f)) is not None}
        common = names if common is None else common & names
        if not common:
            return None
    if not common:
        return None
    for name in sorted(common):
        if not any(p.endswith(f"{name}/{KEY}") for p in schema.fields):
            return name
    return None


def narrowed(reading: Reading, entity: str) -> Reading:
    """``reading`` with each constraint's fields kept to those of ``entity`` records."""
    kept = []
    for c in reading.constraints:
        fields = tuple(f for f in c.fields if (e := entity_of(f)) is not None and e[0] == entity)
        kept.append(Constraint(c.argument, c.op, c.value, fields, c.fit))
    return Reading(reading.collection, tuple(kept), reading.score)


Records = Callable[[], Iterator[tuple[str, Any]]]
"""``(record pointer, record)`` for each record of the collection, as they are now."""


def nested_hits(
    records: Records, constraint: Constraint, entity: str, test: Callable[[Any], bool]
) -> set[str]:
    """The ``entity`` records (absolute pointers) inside ``records`` meeting ``constraint``."""
    hits: set[str] = set()
    for pointer, record in records():
        for path in constraint.fields:
            for inner, value in values_at(record, path):
                if test(value):
                    hits.add(pointer + sub_record_of(inner, path, entity))
    return hits
