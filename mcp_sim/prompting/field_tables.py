"""The fields of a world's starting state as columns, and the tests a field's value meets.

A search scans lists of values instead of walking a multi-MB document: per collection and
field path, ``(record pointer, values)`` in document order, built on first use and kept on
the world's :class:`StateIndex` (shared by every session; a session's changed records are
tested as they are now). :func:`value_test` says whether one value meets a constraint:
equality by normalized value (a date meets a timestamp of that day), bounds on numbers and
dates, prefixes and substrings.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Container, Iterable
from dataclasses import dataclass, field
from typing import Any

from mcp_sim.prompting.constraints import Constraint
from mcp_sim.prompting.epoch_times import as_time, epoch_time, names_date
from mcp_sim.prompting.record_fields import SELF, FieldSchema, path_reference, values_at
from mcp_sim.prompting.relevance import terms
from mcp_sim.prompting.schema_links import name_links
from mcp_sim.prompting.side_maps import side_map
from mcp_sim.prompting.truth_fields import TRUTH_OP, meets_truth
from mcp_sim.prompting.value_labels import ValueLabels, equal_labels
from mcp_sim.runtime.quantities import bound_magnitude, suffixed_magnitude, unit_of
from mcp_sim.runtime.state_index import StateIndex
from mcp_sim.runtime.state_paths import resolve
from mcp_sim.runtime.state_series import key_values
from mcp_sim.runtime.state_shape import Collection, normalize, record_items
from mcp_sim.runtime.typed_references import collection_word

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}")
_NUMERIC = re.compile(r"^-?\d+(\.\d+)?$")
_WRITTEN = 50
"""Quantities kept as written per field, to tell the unit a bound without one is in."""
"""A number stored as a string (a key-value store's ``"78"``): bounded as the number."""
Column = list[tuple[str, list[Any]]]
"""``(record pointer, the values it holds at one field path)`` in document order."""


class FieldTables:
    """The field schemas, columns and word sets of a world's starting state, built on first
    use and kept on its :class:`StateIndex` (shared by every session)."""

    def __init__(self, index: StateIndex) -> None:
        self.index = index
        self.schemas: dict[str, FieldSchema] = {}
        self.columns: dict[tuple[str, str, str], Column] = {}
        self.words: dict[str, dict[str, frozenset[str]]] = {}
        self.positions: dict[str, dict[str, int]] = {}
        self.labels: dict[tuple[str, str, str], dict[str, set[str]]] = {}
        self.sorted: dict[tuple[str, str, str], Ordered] = {}
        self.inner: dict[tuple[str, str], dict[str, dict[str, list[str]]]] = {}
        self.items: dict[str, list[tuple[str, str, Any]]] = {}

    @property
    def kinds(self) -> frozenset[str]:
        """The kinds of record the state holds (see :func:`collection_word`)."""
        return frozenset(collection_word(c.pointer) for c in self.index.collections)

    @classmethod
    def of(cls, index: StateIndex) -> FieldTables:
        tables = index.derived.get("fields")
        if not isinstance(tables, FieldTables):
            # Set only if unset: a call and the background warm-up may get here at once,
            # and both must fill the same tables.
            tables = index.derived.setdefault("fields", cls(index))
        return tables

    def records(self, collection: Collection) -> list[tuple[str, str, Any]]:
        """``(key, pointer, record)`` of each record, listed once: a table's rows are named,
        and a flat export's records gathered, on the first pass only."""
        found = self.items.get(collection.pointer)
        if found is None:
            value = resolve(self.index.state, collection.pointer)
            found = self.items[collection.pointer] = list(record_items(collection, value))
        return found

    def schema(self, collection: Collection) -> FieldSchema:
        found = self.schemas.get(collection.pointer)
        if found is None:
            pairs = [(key, record) for key, _, record in self.records(collection)]
            side = side_map(self.index, collection)
            labels = side.labels if side is not None else {}
            found = FieldSchema.of(collection.pointer, pairs, labels)
            name_links(self.index, found)  # a declared link answers to its target's key too
            self.schemas[collection.pointer] = found
        return found

    def column(self, collection: Collection, path: str, entity: str = "") -> Column:
        """``(record pointer, values at path)`` per record; with ``entity``, per record of
        that kind nested in the collection's records (``/divisions/3/units/0/members/2``)."""
        found = self.columns.get((collection.pointer, path, entity))
        if found is None:
            if entity:
                found = nested_column(self.records(collection), path, entity)
            else:
                found = [
                    (pointer, held_values(key, record, path))
                    for key, pointer, record in self.records(collection)
                ]
            self.columns[(collection.pointer, path, entity)] = found
        return found

    def label_index(
        self, collection: Collection, path: str, entity: str = ""
    ) -> dict[str, set[str]]:
        """Each normalized value at ``path`` (and the day of each timestamp) → the records
        holding it: equality is a dictionary look-up, not a scan."""
        found = self.labels.get((collection.pointer, path, entity))
        if found is None:
            found = {}
            labelled = ValueLabels(self.epoch(collection, path, entity))
            for pointer, values in self.column(collection, path, entity):
                for value in values:
                    for label in labelled(value):
                        found.setdefault(label, set()).add(pointer)
            self.labels[(collection.pointer, path, entity)] = found
        return found

    def places(self, collection: Collection, path: str) -> dict[str, dict[str, list[str]]]:
        """Each normalized value at ``path`` → the records holding it → where in each (the
        relative pointers :func:`values_at` gives): where a search's values sit in a record
        (its focus) is a look-up, not a walk of the record per call."""
        found = self.inner.get((collection.pointer, path))
        if found is None:
            found = {}
            labelled = ValueLabels(self.epoch(collection, path))
            for _, pointer, record in self.records(collection):
                for inner, value in values_at(record, path):
                    for label in labelled(value):
                        found.setdefault(label, {}).setdefault(pointer, []).append(inner)
            self.inner[(collection.pointer, path)] = found
        return found

    def ordered(self, collection: Collection, path: str, entity: str = "") -> Ordered:
        """The numbers and the dates at ``path``, each sorted with its record: a bound is
        two bisections, not a scan."""
        found = self.sorted.get((collection.pointer, path, entity))
        if found is None:
            numbers: list[tuple[float, str]] = []
            dates: list[tuple[str, str]] = []
            written: list[str] = []
            unit = self.epoch(collection, path, entity)
            for pointer, values in self.column(collection, path, entity):
                for value in values:
                    if unit is not None and (time := epoch_time(value, unit)) is not None:
                        # An epoch time is bounded as a number and as the date it stands for.
                        dates.append((time, pointer))
                    if (isinstance(value, int | float) and not isinstance(value, bool)) or (
                        isinstance(value, str) and _NUMERIC.match(value)
                    ):
                        numbers.append((float(value), pointer))
                    elif isinstance(value, str) and _DATE.match(value):
                        dates.append((value, pointer))
                    elif (read := suffixed_magnitude(value)) is not None:
                        # ``"1536Mi"``, ``"12 kg"``: compared by magnitude, not as text.
                        numbers.append((read, pointer))
                        written.append(value)
            found = self.sorted[(collection.pointer, path, entity)] = Ordered(
                sorted(numbers), sorted(dates), tuple(written[:_WRITTEN])
            )
        return found

    def epoch(self, collection: Collection, path: str, entity: str = "") -> float | None:
        """The unit of the epoch times at ``path`` (see :mod:`mcp_sim.prompting.epoch_times`),
        ``None`` when it holds none (or is a nested ``entity``'s field)."""
        if entity:
            return None
        info = self.schema(collection).fields.get(path)
        return None if info is None else info.epoch

    def record(self, collection: Collection, pointer: str) -> Any:
        """The starting-state record at ``pointer`` (``None`` when no record of the collection
        is there), looked up: a summary reads thousands of records, each resolved anew from
        the document's root otherwise."""
        at = self.position(collection).get(pointer)
        return None if at is None else self.records(collection)[at][2]

    def position(self, collection: Collection) -> dict[str, int]:
        found = self.positions.get(collection.pointer)
        if found is None:
            found = {p: i for i, (_, p, _) in enumerate(self.records(collection))}
            self.positions[collection.pointer] = found
        return found

    def word_sets(
        self, collection: Collection, *, shallow: bool = False
    ) -> dict[str, frozenset[str]]:
        """Each record's content words; ``shallow``: only those of its own text fields (a
        title, a summary), not of the parts nested in it (its sections' bodies)."""
        key = collection.pointer + ("#shallow" if shallow else "")
        found = self.words.get(key)
        if found is None:
            terms_of = own_terms if shallow else record_terms
            found = {p: terms_of(r) for _, p, r in self.records(collection)}
            self.words[key] = found
        return found


def nested_column(records: Iterable[tuple[str, str, Any]], path: str, entity: str) -> Column:
    """The values at ``path`` grouped by the ``entity`` record (at any depth) holding them."""
    grouped: dict[str, list[Any]] = {}
    for _, pointer, record in records:
        for inner, value in values_at(record, path):
            grouped.setdefault(pointer + sub_record_of(inner, path, entity), []).append(value)
    return list(grouped.items())


def sub_record_of(inner: str, path: str, entity: str) -> str:
    """The pointer (relative to the record) of the ``entity`` record holding ``inner``."""
    segments = path.split("/")
    depth = max(i for i, s in enumerate(segments) if i and s == "*" and segments[i - 1] == entity)
    return "/".join(inner.split("/")[: depth + 2])


@dataclass(frozen=True)
class Ordered:
    numbers: list[tuple[float, str]]
    """Numbers, and quantities written with units by their magnitude (see
    :mod:`mcp_sim.runtime.quantities`)."""
    dates: list[tuple[str, str]]
    written: tuple[str, ...] = ()
    """Some of the quantities as written: the unit a bound without one is in."""

    def bounded(self, op: str, wanted: Any, argument: str = "") -> set[str] | None:
        """The records with a value at or above (``min``) or below (``max``) ``wanted`` (of
        the argument named ``argument``, whose name may say its unit: ``min_memory_gib``);
        ``None`` when the records must be scanned (a quantity with a unit); none when
        nothing compares with ``wanted`` (see :func:`may_bound`)."""
        if isinstance(wanted, str) and _DATE.match(wanted):
            keys: list[Any] = [d for d, _ in self.dates]
            pairs: list[Any] = self.dates
            # A date bounds the whole day of a timestamp.
            edge: Any = wanted if op == "min" else wanted + "\uffff"
        else:
            try:
                edge = float(wanted)
            except (TypeError, ValueError):
                return None if may_bound(wanted) else set()
            if self.written:
                edge = bound_magnitude(edge, argument, self.written)
            keys, pairs = [n for n, _ in self.numbers], self.numbers
        if op == "min":
            return {p for _, p in pairs[bisect_left(keys, edge) :]}
        return {p for _, p in pairs[: bisect_right(keys, edge)]}


def held_values(key: str, record: Any, path: str) -> list[Any]:
    if path == SELF:
        return list(key_values(key))
    return [value for _, value in values_at(record, path)]


def own_terms(record: Any) -> frozenset[str]:
    """The content words of a record's own text fields (its top-level strings)."""
    if not isinstance(record, dict):
        return record_terms(record)
    found: set[str] = set()
    for value in record.values():
        if isinstance(value, str):
            found |= terms(value)
    return frozenset(found)


def record_terms(record: Any) -> frozenset[str]:
    """The content words of a record's text (its strings, at any depth)."""
    found: set[str] = set()
    stack = [record]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, str):
            found |= terms(item)
    return frozenset(found)


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    try:
        return float(value) if isinstance(value, str) else None
    except ValueError:
        return suffixed_magnitude(value)


def may_bound(wanted: Any) -> bool:
    """Whether a bound of ``wanted`` compares with any value (see :func:`_compare`): a
    number, a date or a quantity with a unit does, a time of day (``"23:05:00"``) or a word
    none, so no column need be scanned for it."""
    if isinstance(wanted, str) and _DATE.match(wanted):
        return True
    return _number(wanted) is not None


def _compare(actual: Any, wanted: Any) -> int | None:
    """-1, 0, 1 for actual below, at, above wanted; ``None`` when they do not compare."""
    if isinstance(wanted, str) and _DATE.match(wanted):
        actual = as_time(actual)
        if isinstance(actual, str):
            if not _DATE.match(actual):
                return None
            cut = actual[: len(wanted)]
            return (cut > wanted) - (cut < wanted)
    a, w = _number(actual), _number(wanted)
    if a is None or w is None:
        return None
    return (a > w) - (a < w)


def _equal_to(wanted: Any) -> Callable[[Any], bool]:
    """Whether a value equals ``wanted``, whose label is read once: a search tests thousands
    of changed records (every one after an insert moved them)."""
    label, date = normalize(wanted), isinstance(wanted, str) and bool(_DATE.match(wanted))

    def equal(actual: Any) -> bool:
        if date:
            actual = as_time(actual)
        if label is not None and (normalize(actual) == label or path_reference(actual) == label):
            return True
        return date and isinstance(actual, str) and actual.startswith(wanted)

    return equal


def value_test(constraint: Constraint) -> Callable[[Any], bool]:
    """Whether one value of a field meets ``constraint`` (not for ``text``)."""
    wanted = constraint.value
    if constraint.op == "eq":
        equals = [_equal_to(w) for w in (wanted if isinstance(wanted, list) else [wanted])]
        return equals[0] if len(equals) == 1 else lambda actual: any(e(actual) for e in equals)
    if constraint.op == "ne":
        # A record without the field is not one whose value differs.
        ruled_out = [_equal_to(w) for w in (wanted if isinstance(wanted, list) else [wanted])]
        return lambda actual: actual is not None and not any(e(actual) for e in ruled_out)
    if constraint.op in ("min", "max"):
        sign = 1 if constraint.op == "min" else -1
        unit = unit_of(constraint.argument)
        scaled = wanted * unit.size if unit and isinstance(wanted, int | float) else wanted

        def meets(actual: Any) -> bool:
            # A quantity written with a unit compares by magnitude, the bound in its unit.
            edge = scaled if suffixed_magnitude(actual) is not None else wanted
            found = _compare(actual, edge)
            return found is not None and found * sign >= 0

        return meets
    if constraint.op == TRUTH_OP:
        return lambda actual: meets_truth(actual, wanted)
    if constraint.op == "prefix" and isinstance(wanted, list):  # any of several periods
        starts = tuple(str(w).casefold() for w in wanted)
        return lambda actual: str(as_time(actual)).casefold().startswith(starts)
    needle = str(wanted).casefold()
    if constraint.op == "prefix" and names_date(wanted):
        # A period is a prefix of the time an epoch number stands for too.
        return lambda actual: str(as_time(actual)).casefold().startswith(needle)
    if constraint.op == "prefix":
        return lambda actual: str(actual).casefold().startswith(needle)
    return lambda actual: needle in str(actual).casefold()


@dataclass(frozen=True)
class Places:
    """Where the starting-state records of a collection hold a value (see
    :meth:`FieldTables.places`), for the records a session has not changed."""

    tables: FieldTables
    collection: Collection
    changed: Container[str]
    labels: dict[int, tuple[Constraint, set[str]]] = field(default_factory=dict, compare=False)
    """Each constraint's :func:`equal_labels`, read once: :meth:`of` runs per record found."""

    def record(self, pointer: str) -> Any:
        """The record at ``pointer`` as the session has it, when it has not changed it (as
        the starting state has it); ``None`` when it must be resolved in the session's state."""
        return None if pointer in self.changed else self.tables.record(self.collection, pointer)

    def of(self, pointer: str, path: str, constraint: Constraint) -> list[str] | None:
        """The relative pointers of the values at ``path`` of the record at ``pointer``
        equal to ``constraint``'s; ``None`` when the record must be walked (a changed record,
        a constraint other than equality)."""
        if constraint.op != "eq" or pointer in self.changed:
            return None
        index = self.tables.places(self.collection, path)
        known = self.labels.get(id(constraint))
        if known is None or known[0] is not constraint:
            known = self.labels[id(constraint)] = (constraint, equal_labels(constraint.value))
        return [i for label in known[1] for i in index.get(label, {}).get(pointer, ())]
