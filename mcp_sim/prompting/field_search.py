"""Field-aware search: which records of a large state meet a call's constraints, ranked.

The call's arguments are read as constraints on one collection (see
:mod:`mcp_sim.prompting.constraints`); each record is tested on the fields each constraint
names, and the records are ranked by how many constraints they meet: every record meeting all
of them first (in the order the state holds them), then those meeting fewer. The fields of
the world's starting state are kept as columns per collection and path, built on first use
and shared by every session (a session's changed records are tested as they are now), so a
search scans lists of values instead of walking a multi-MB document.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from jsonpointer import unescape

from mcp_sim.prompting.constraints import Constraint, Reading, best_reading
from mcp_sim.prompting.field_names import tokens
from mcp_sim.prompting.record_fields import KEY, FieldSchema, values_at
from mcp_sim.prompting.relevance import terms
from mcp_sim.runtime.state_index import StateIndex, StateOverlay
from mcp_sim.runtime.state_shape import Collection, normalize, record_items, resolve
from mcp_sim.spec.world import ToolSpec

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}")
Column = list[tuple[str, list[Any]]]
"""``(record pointer, the values it holds at one field path)`` in document order."""


class FieldTables:
    """The field schemas, columns and word sets of a world's starting state, built on first
    use and kept on its :class:`StateIndex` (shared by every session)."""

    def __init__(self, index: StateIndex) -> None:
        self.index = index
        self.schemas: dict[str, FieldSchema] = {}
        self.columns: dict[tuple[str, str], Column] = {}
        self.words: dict[str, dict[str, frozenset[str]]] = {}
        self.positions: dict[str, dict[str, int]] = {}

    @classmethod
    def of(cls, index: StateIndex) -> FieldTables:
        tables = index.derived.get("fields")
        if not isinstance(tables, FieldTables):
            tables = index.derived["fields"] = cls(index)
        return tables

    def records(self, collection: Collection) -> Iterator[tuple[str, str, Any]]:
        value = resolve(self.index.state, collection.pointer)
        return record_items(collection, value)

    def schema(self, collection: Collection) -> FieldSchema:
        found = self.schemas.get(collection.pointer)
        if found is None:
            pairs = [(key, record) for key, _, record in self.records(collection)]
            found = self.schemas[collection.pointer] = FieldSchema.of(collection.pointer, pairs)
        return found

    def column(self, collection: Collection, path: str) -> Column:
        found = self.columns.get((collection.pointer, path))
        if found is None:
            found = [
                (pointer, held_values(key, record, path))
                for key, pointer, record in self.records(collection)
            ]
            self.columns[(collection.pointer, path)] = found
        return found

    def position(self, collection: Collection) -> dict[str, int]:
        found = self.positions.get(collection.pointer)
        if found is None:
            found = {p: i for i, (_, p, _) in enumerate(self.records(collection))}
            self.positions[collection.pointer] = found
        return found

    def word_sets(self, collection: Collection) -> dict[str, frozenset[str]]:
        found = self.words.get(collection.pointer)
        if found is None:
            found = {p: record_terms(r) for _, p, r in self.records(collection)}
            self.words[collection.pointer] = found
        return found


def held_values(key: str, record: Any, path: str) -> list[Any]:
    if path == KEY:
        return [key]
    return [value for _, value in values_at(record, path)]


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
        return None


def _compare(actual: Any, wanted: Any) -> int | None:
    """-1, 0, 1 for actual below, at, above wanted; ``None`` when they do not compare."""
    if isinstance(wanted, str) and _DATE.match(wanted) and isinstance(actual, str):
        if not _DATE.match(actual):
            return None
        cut = actual[: len(wanted)]
        return (cut > wanted) - (cut < wanted)
    a, w = _number(actual), _number(wanted)
    if a is None or w is None:
        return None
    return (a > w) - (a < w)


def _equal(actual: Any, wanted: Any) -> bool:
    if normalize(actual) == normalize(wanted) and normalize(actual) is not None:
        return True
    return (
        isinstance(wanted, str)
        and isinstance(actual, str)
        and _DATE.match(wanted) is not None
        and actual.startswith(wanted)
    )


def value_test(constraint: Constraint) -> Callable[[Any], bool]:
    """Whether one value of a field meets ``constraint`` (not for ``text``)."""
    wanted = constraint.value
    if constraint.op == "eq":
        options = wanted if isinstance(wanted, list) else [wanted]
        return lambda actual: any(_equal(actual, w) for w in options)
    if constraint.op in ("min", "max"):
        sign = 1 if constraint.op == "min" else -1
        return lambda actual: (
            (_compare(actual, wanted) or 0) * sign >= 0 and (_compare(actual, wanted) is not None)
        )
    needle = str(wanted).casefold()
    if constraint.op == "prefix":
        return lambda actual: str(actual).casefold().startswith(needle)
    return lambda actual: needle in str(actual).casefold()


@dataclass
class SearchResult:
    """The records of one collection ranked by the constraints they meet."""

    collection: Collection
    reading: Reading
    full: list[str]
    """Records meeting every constraint, in document order."""
    partial: list[tuple[str, int]]
    """Records meeting some: ``(pointer, how many)``, most first."""
    focus: dict[str, set[str]] = field(default_factory=dict)
    """Where inside a shown record its matching values sit (filled in by :meth:`focus_of`)."""

    @property
    def constraints(self) -> tuple[Constraint, ...]:
        return self.reading.constraints

    def focus_of(self, pointer: str, record: Any) -> set[str]:
        """The sub-records of ``record`` holding the values the constraints name (a
        calendar's requested date, an order's matching item)."""
        found: set[str] = set()
        for constraint in self.constraints:
            if constraint.op == "text":
                continue
            test = value_test(constraint)
            for path in constraint.fields:
                if path == KEY:
                    continue
                for inner, value in values_at(record, path):
                    if test(value):
                        found.add(sub_record(inner))
        found.discard("")
        return found


def sub_record(inner: str) -> str:
    """The sub-record a value sits in: ``/dates/2024-05-01/status`` → ``/dates/2024-05-01``
    (a value on the record itself, ``/email``, focuses nothing)."""
    parts = inner.split("/")
    return "/".join(parts[:3]) if len(parts) > 3 else (inner if len(parts) == 3 else "")


class FieldSearch:
    """Runs a call's constraints over a session's state."""

    def __init__(self, overlay: StateOverlay, state: Any) -> None:
        self.overlay = overlay
        self.state = state
        self.tables = FieldTables.of(overlay.base)

    def reading(self, tool: ToolSpec | None, arguments: dict[str, Any]) -> Reading | None:
        collections = self.overlay.base.collections
        schemas = [self.tables.schema(c) for c in collections]
        named = set(tokens(tool.name)) if tool is not None else set()
        id_fields = {c.pointer: c.id_field for c in collections}
        return best_reading(schemas, arguments, named, id_fields)

    def collection(self, pointer: str) -> Collection:
        return next(c for c in self.overlay.base.collections if c.pointer == pointer)

    def search(self, tool: ToolSpec | None, arguments: dict[str, Any]) -> SearchResult | None:
        """The ranked records the arguments select, or ``None`` when they select nothing
        by field or only name records by key (a lookup)."""
        reading = self.reading(tool, arguments)
        if reading is None:
            return None
        return self.run(self.collection(reading.collection), reading)

    def run(self, collection: Collection, reading: Reading) -> SearchResult:
        met: dict[str, int] = {}
        for constraint in reading.constraints:
            for pointer in self.meeting(collection, constraint):
                met[pointer] = met.get(pointer, 0) + 1
        position = self.tables.position(collection)
        order = sorted(met, key=lambda p: position.get(p, len(position)))
        wanted = len(reading.constraints)
        full = [p for p in order if met[p] == wanted]
        partial = sorted(((p, met[p]) for p in order if met[p] < wanted), key=lambda item: -item[1])
        return SearchResult(collection, reading, full, partial)

    def meeting(self, collection: Collection, constraint: Constraint) -> set[str]:
        """The records of ``collection`` (as they are now) meeting ``constraint``."""
        changed = self.overlay.changed
        prefix = collection.pointer + "/"
        hits: set[str] = set()
        if constraint.op == "text":
            wanted = terms(str(constraint.value))
            for pointer, words in self.tables.word_sets(collection).items():
                if pointer not in changed and wanted <= words:
                    hits.add(pointer)
            for pointer, facts in changed.items():
                if (
                    facts is not None
                    and pointer.startswith(prefix)
                    and wanted <= record_terms(resolve(self.state, pointer))
                ):
                    hits.add(pointer)
            return hits
        test = value_test(constraint)
        for path in constraint.fields:
            for pointer, values in self.tables.column(collection, path):
                if pointer not in changed and any(test(v) for v in values):
                    hits.add(pointer)
            for pointer, facts in changed.items():
                if facts is None or not pointer.startswith(prefix):
                    continue
                record = resolve(self.state, pointer)
                if any(test(v) for v in held_values(facts.key, record, path)):
                    hits.add(pointer)
        return hits

    def current(
        self, collection: Collection, path: str, pointers: list[str]
    ) -> list[tuple[str, list[Any]]]:
        """``(pointer, values at path)`` for ``pointers`` (records of ``collection``) as they
        are now, in the order given."""
        wanted = set(pointers)
        changed = self.overlay.changed
        found = {
            p: v
            for p, v in self.tables.column(collection, path)
            if p in wanted and p not in changed
        }
        for pointer in wanted - found.keys():
            facts = changed.get(pointer)
            if facts is not None:
                record = resolve(self.state, pointer)
                found[pointer] = held_values(facts.key, record, path)
        return [(p, found[p]) for p in pointers if p in found]

    def keys(self, collection: Collection, pointers: list[str]) -> dict[str, str]:
        """Each record's key: its id field's value, else its place in the collection."""
        if collection.id_field is None:
            return {p: unescape(p.rsplit("/", 1)[-1]) for p in pointers}
        ids = self.current(collection, collection.id_field, pointers)
        return {p: str(v[0]) if v else unescape(p.rsplit("/", 1)[-1]) for p, v in ids}
