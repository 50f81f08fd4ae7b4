"""Searches whose records sit inside other records: people in the units of a tree, lines in
orders, files in folders.

A collection found by shape is the outermost array or map of records; a tree (divisions →
units → members) or a nested list keeps the records a search is about deeper down. When every
constraint of a search names a field of one kind of nested record, found at any depth (the
``members`` of a unit, of a sub-unit, of a sub-sub-unit), the search is run on those nested
records: each is tested on its own fields, and the matches are the nested records themselves
(``/divisions/3/units/0/members/2``), not the outer records that hold one of them. Maps keyed
by id or date (a flight's calendar) are entries of their record, not records of their own.

Nested items are records of their own only when they are: an item holding fewer than two
values of its own (a MARC subfield ``{"d": "1406"}``, a wrapper ``{"999": {...}}``) is a
leaf of its record, and a value that each record holds once (a patient's one identifier, a
catalogue record's one control number) names the record however deep it sits. Then the
search is on the collection's records (see :func:`own_records`): the unit of a search, and
of a lookup by a value, is the record that holds the match, never a leaf in its place.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from itertools import pairwise
from typing import Any

from mcp_sim.prompting.constraints import Constraint, Reading
from mcp_sim.prompting.field_names import side_of, tokens
from mcp_sim.prompting.field_tables import sub_record_of
from mcp_sim.prompting.record_fields import ANY, KEY, FieldSchema, values_at
from mcp_sim.runtime.state_paths import resolve
from mcp_sim.runtime.state_shape import normalize
from mcp_sim.runtime.typed_references import kind_word

LEAST_OWN_VALUES = 2
"""Values of its own (scalars under its keys) a nested item holds, on average, to be a record
rather than a leaf of one (a property list's one-key entry, a one-key wrapper)."""
PART_SAMPLE = 50
"""Records whose nested items are counted to tell records from leaves."""


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


def nested_entity(
    schema: FieldSchema,
    reading: Reading,
    kinds: frozenset[str] = frozenset(),
    records: Sequence[tuple[str, str, Any]] = (),
) -> str | None:
    """The kind of nested record every constraint names a field of (an array's items, not a
    map's entries), or ``None``; ``None`` too when two constraints want different values of
    one field (a parcel's events at facility A and at facility B): no one nested record can
    meet both, the record holding them can; and for references (an id beside the kind of
    ``kinds`` it names: a talk's ``{"type": "speakers", "id": "7"}``), which are the holding
    record's, not records of their own; and, given the collection's ``(key, pointer, record)``
    ``records``, when its items are leaves of their records (see :func:`own_records`)."""
    common: set[str] | None = None
    wanted: dict[tuple[str, ...], Any] = {}
    for constraint in reading.constraints:
        value = constraint.value
        if constraint.op == "eq" and wanted.setdefault(constraint.fields, value) != value:
            return None
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
            if _references(schema, name, kinds):
                return None
            # Spread over the collection: some kinds of item sit in a few records only.
            step = max(1, len(records) // PART_SAMPLE)
            sample = [record for _, _, record in records[::step][:PART_SAMPLE]]
            own = not records or own_records(schema, narrowed(reading, name), name, sample)
            return name if own else None
    return None


def own_records(schema: FieldSchema, reading: Reading, entity: str, records: Sequence[Any]) -> bool:
    """Whether the ``entity`` items the (narrowed) ``reading`` tests are records of their own
    (see the module): not when each record of the collection holds at most one value at every
    field tested (in ``schema``'s sample), nor when the items hold fewer than
    :data:`LEAST_OWN_VALUES` scalars each on average (in ``records``, a sample)."""
    fields = [f for c in reading.constraints for f in c.fields if f in schema.fields]
    if fields and all(schema.fields[f].values <= schema.fields[f].records for f in fields):
        return False
    prefixes = sorted({p for f in fields if (p := _item_prefix(f, entity)) is not None})
    items = scalars = 0
    for record in records[:PART_SAMPLE]:
        for prefix in prefixes:
            for item in _items_at(record, prefix.split("/")):
                items += 1
                scalars += sum(1 for v in item.values() if not isinstance(v, dict | list))
    return items == 0 or scalars >= LEAST_OWN_VALUES * items


def _item_prefix(path: str, entity: str) -> str | None:
    """The path of the ``entity`` items ``path`` lies in: ``units/*/members/*/grade`` →
    ``units/*/members/*``."""
    found = entity_of(path)
    if found is None or found[0] != entity:
        return None
    return path[: len(path) - len(found[1]) - 1]


def _items_at(value: Any, segments: list[str]) -> Iterator[dict[str, Any]]:
    """The objects at the path ``segments`` of ``value`` (``*``: any item or entry)."""
    if not segments:
        if isinstance(value, dict):
            yield value
        return
    head, rest = segments[0], segments[1:]
    if head == ANY:
        inner = (
            value.values() if isinstance(value, dict) else value if isinstance(value, list) else []
        )
        for item in inner:
            yield from _items_at(item, rest)
    elif isinstance(value, dict) and head in value:
        yield from _items_at(value[head], rest)


def _references(schema: FieldSchema, entity: str, kinds: frozenset[str]) -> bool:
    """Whether the ``entity`` records nested in the schema's are typed references: two
    fields, one of whose values all name kinds of record the state holds."""
    tails = {
        path: info
        for path, info in schema.fields.items()
        if (found := entity_of(path)) is not None and found[0] == entity and "/" not in found[1]
    }
    return len(tails) == 2 and any(
        info.originals and all(kind_word(v) in kinds for v in info.originals)
        for info in tails.values()
    )


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


def movement(reading: Reading) -> tuple[Constraint, Constraint] | None:
    """The two constraints that name where a movement starts and where it ends in one
    sequence of nested records (``origin``, ``destination`` over a parcel's events at
    facilities): equalities on the same field of a list's items, their arguments on the start
    and on the end side of a movement."""
    sides: dict[int, Constraint] = {}
    for c in reading.constraints:
        if c.op == "eq" and len(c.fields) == 1 and ANY in c.fields[0].split("/"):
            side = side_of(tokens(c.argument))
            if side is not None:
                sides.setdefault(side, c)
    if len(sides) < 2 or sides[0].fields != sides[1].fields or sides[0].value == sides[1].value:
        return None
    return sides[0], sides[1]


def sequence_rank(record: Any, start: Constraint, end: Constraint) -> int:
    """2 when ``record``'s sequence goes from the start's value straight to the end's (repeats
    aside: arrived at A, left A, arrived at B), 1 when it reaches the end's value after the
    start's, else 0."""
    a, b = normalize(start.value), normalize(end.value)
    steps: list[str | None] = []
    for _, value in values_at(record, start.fields[0]):
        label = normalize(value)
        if not steps or steps[-1] != label:
            steps.append(label)
    if any(x == a and y == b for x, y in pairwise(steps)):
        return 2
    return 1 if a in steps and b in steps[steps.index(a) :] else 0


def in_sequence(state: Any, ends: tuple[Constraint, Constraint], pointers: list[str]) -> list[str]:
    """``pointers`` (records of ``state``) with those whose sequence goes from the start of
    ``ends`` straight to its end first, then those reaching it later (see
    :func:`sequence_rank`)."""
    ranks = {p: sequence_rank(resolve(state, p), *ends) for p in pointers}
    return sorted(pointers, key=lambda p: -ranks[p])
