"""The changed records meeting a constraint, found by value rather than record by record.

After an insert moved an array's items, a search tests every changed record of the
collection (thousands: every one after the insert) against each constraint, on every call
until the next write (see :mod:`mcp_sim.prompting.changed_records`). Most of those records
share their values (a status, a bucket, a day), and whether a value meets a constraint
depends on the value alone: so the values at one path are grouped once per state version,
each distinct value tested once per call, and an equality is a look-up in the labels the
values carry (as :func:`~mcp_sim.prompting.field_tables.value_test` compares them).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from mcp_sim.prompting.changed_records import changed_values, keep, kept
from mcp_sim.prompting.constraints import Constraint
from mcp_sim.prompting.record_fields import path_reference
from mcp_sim.runtime.state_index import StateOverlay
from mcp_sim.runtime.state_shape import normalize

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}")
"""A wanted value that is a date, as :func:`~mcp_sim.prompting.field_tables.value_test` tells
one: a time of that day meets it too."""


def plain_equal_labels(constraint: Constraint) -> set[str] | None:
    """The labels of an equality's wanted values, where none is a date: a value meets the
    equality exactly when its normalized form or the key it references is one of them (as
    :func:`~mcp_sim.prompting.field_tables.value_test` has it); ``None`` for another
    constraint."""
    if constraint.op != "eq":
        return None
    wanted = constraint.value
    options = wanted if isinstance(wanted, list) else [wanted]
    if any(isinstance(w, str) and _DATE.match(w) for w in options):
        return None
    return {label for label in map(normalize, options) if label is not None}


class ChangedColumn:
    """The values at one path of one collection's changed records, each distinct value with
    the records holding it."""

    def __init__(self, values: list[tuple[str, list[Any]]]) -> None:
        self.holders: dict[tuple[type, Any], tuple[Any, set[str]]] = {}
        """A value, by its type and itself (a float by its spelling: ``-0.0`` is not
        ``0.0`` to every test) → the value and its records."""
        self.unhashable: list[tuple[str, Any]] = []
        """``(record, value)`` of each value that is an object or an array."""
        self._labels: dict[str, set[str]] | None = None
        for pointer, held in values:
            for value in held:
                if isinstance(value, dict | list):
                    self.unhashable.append((pointer, value))
                    continue
                key = (float, repr(value)) if isinstance(value, float) else (type(value), value)
                self.holders.setdefault(key, (value, set()))[1].add(pointer)

    def meeting(self, constraint: Constraint, test: Callable[[Any], bool]) -> set[str]:
        """The records holding a value that meets ``constraint`` (``test``, its test)."""
        labels = plain_equal_labels(constraint)
        if labels is not None:
            index = self._label_index()
            return set().union(*(index.get(label, ()) for label in labels))
        hits: set[str] = set()
        for value, pointers in self.holders.values():
            if test(value):
                hits |= pointers
        hits.update(p for p, value in self.unhashable if p not in hits and test(value))
        return hits

    def _label_index(self) -> dict[str, set[str]]:
        """Each label a value is equal to (its normalized form, the key it references) →
        the records holding such a value."""
        if self._labels is None:
            index: dict[str, set[str]] = {}
            held = [(v, ps) for v, ps in self.holders.values()]
            held += [(v, {p}) for p, v in self.unhashable]
            for value, pointers in held:
                for label in {normalize(value), path_reference(value)} - {None}:
                    index.setdefault(str(label), set()).update(pointers)
            self._labels = index
        return self._labels


def changed_column(overlay: StateOverlay, state: Any, collection: str, path: str) -> ChangedColumn:
    """The :class:`ChangedColumn` of :func:`changed_values`, made once per state version."""
    found: ChangedColumn | None = kept(overlay, state, ("column", collection, path))
    if found is None:
        found = ChangedColumn(changed_values(overlay, state, collection, path))
        keep(overlay, state, ("column", collection, path), found)
    return found
