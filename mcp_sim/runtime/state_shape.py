"""The shape of a large state: its collections of records, and the values each record holds.

A :class:`Collection` says where a collection's records are and how they are laid out: the
items of an array or the values of an object keyed by id, the rows of a table that holds no
field names (see :mod:`mcp_sim.runtime.state_tables`: :func:`mcp_sim.runtime.state_paths.resolve`
gives such a row as an object of its columns' names, so whatever reads records reads those rows
alike), a GraphQL connection's edges wrapping their nodes (``Collection.inner``), pages of one
collection (:mod:`mcp_sim.runtime.state_pages`), and so on; :func:`record_items` reads its
records and :func:`record_key` their ids (found whatever the field is called, see
:mod:`mcp_sim.runtime.record_ids`). :mod:`mcp_sim.runtime.state_collections` finds them.

:func:`record_facts` lists what one record holds: its scalar values (normalized by
:func:`normalize`, so a lookup by ``"12"`` finds ``12``) and the keys of its nested maps (a
product's variants by item id, a flight's days by date), each with where in the record it
sits. :mod:`mcp_sim.runtime.state_index` indexes them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from jsonpointer import escape, unescape

from mcp_sim.runtime.composite_keys import composite_id, key_parts
from mcp_sim.runtime.mixed_collections import Kind, array_pointer
from mcp_sim.runtime.state_keys import KeyPattern, pattern_of
from mcp_sim.runtime.state_pages import page_position, paged, paged_count
from mcp_sim.runtime.state_partitions import partition_items
from mcp_sim.runtime.state_paths import resolve
from mcp_sim.runtime.state_series import key_values, slot_items
from mcp_sim.runtime.state_tables import Table, row_count, table_rows
from mcp_sim.runtime.typed_references import typed_reference
from mcp_sim.runtime.uri_schemes import unschemed

MAX_VALUE_CHARS = 120
"""Longer strings (descriptions, bodies) are not indexed: nobody looks a record up by them."""
_MAX_RECORD_DEPTH = 24
"""How deep inside a record values are indexed: a tree of units keeps the people a lookup
names a dozen levels down."""
_NUMBER = re.compile(r"^-?\d+(\.\d+)?$")


def normalize(value: Any) -> str | None:
    """How a value is looked up: strings case-folded and stripped, numbers by value (``12``,
    ``12.0``, ``"12"`` and ``"12.00"`` agree: an export writes amounts as text with their
    decimals); ``None`` for what is not indexed."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        return str(int(value)) if float(value).is_integer() else repr(float(value))
    if isinstance(value, str):
        text = value.strip()
        if not text or len(text) > MAX_VALUE_CHARS:
            return None
        if _NUMBER.match(text):
            number = float(text)
            return str(int(number)) if number.is_integer() else repr(number)
        return text.casefold()
    return None


@dataclass(frozen=True)
class Collection:
    pointer: str
    """JSON pointer to the array or object holding the records, e.g. ``/orders``."""
    keyed: bool
    """Records are the values of an object, keyed by id (else the items of an array)."""
    id_field: str | None
    """The field that holds a record's id, when records carry one."""
    size: int
    entity: str | None = None
    """The declared entity whose collection this is, if any."""
    table: Table | None = None
    """How the rows are laid out when the records are a table's rows, which hold no field
    names (see :mod:`mcp_sim.runtime.state_tables`); ``pointer`` is then where the rows are."""
    keys: KeyPattern | None = None
    """The key pattern of the records, when they are the keys of a flat key-value export
    following it (see :mod:`mcp_sim.runtime.state_keys`); ``pointer`` ends with the pattern."""
    inner: str = ""
    """Where inside each item of an array the record is (``/node``: a GraphQL connection's
    edges wrap each record beside its cursor); ``""``: the item is the record."""
    pages: str = ""
    """The field of each item holding its records, when the array's items are pages of one
    collection (see :mod:`mcp_sim.runtime.state_pages`)."""
    members: bool = False
    """The pages are members with fields of their own (a calendar holding its events; see
    :mod:`mcp_sim.runtime.member_arrays`), which are the context of their records."""
    odd: frozenset[str] = frozenset()
    """Keys of a keyed collection's object that are no records of it (a directory beside a
    series keyed by time; see :mod:`mcp_sim.runtime.state_series`)."""
    slots: bool = False
    """The records are the entries of each time's map (a series of readings per station),
    keyed ``TIME/SOURCE``, two levels below ``pointer``; or, not ``keyed``, the items of each
    partition's array (see :mod:`mcp_sim.runtime.state_partitions`), at ``PART/N``."""
    kind: Kind | None = None
    """The kind of the records, when they are those of one kind in an array of several
    (see :mod:`mcp_sim.runtime.mixed_collections`); ``pointer`` then ends with the kind."""
    lines: bool = False
    """The array's items are lines of text, those holding a record read as it (see
    :mod:`mcp_sim.runtime.text_rows`): the other lines (a header, ``CREATE TABLE``) are none."""


def within(collection: str, pointer: str) -> bool:
    """Whether ``pointer`` is a record of the collection at ``collection``, or inside one."""
    return within_test(collection)(pointer)


def within_test(collection: str) -> Callable[[str], bool]:
    """:func:`within` for one collection, its pattern read once: a search asks it of every
    record a session changed (thousands, after an insert moved them)."""
    parent, _, last = collection.rpartition("/")
    if array_pointer(collection) != collection:
        # Any item of the array may be of the kind: the index knows which (see
        # :meth:`mcp_sim.runtime.state_index.StateIndex.collection_of`).
        return lambda pointer: pointer.startswith(parent + "/")
    pattern = pattern_of(unescape(last))
    if pattern is None:
        return lambda pointer: pointer.startswith(collection + "/")

    def keyed(pointer: str) -> bool:
        if not pointer.startswith(parent + "/"):
            return False
        key = unescape(pointer[len(parent) + 1 :].split("/", 1)[0])
        return pattern.id_of(key) is not None

    return keyed


def record_pointer(collection: Collection, pointer: str) -> str:
    """The pointer of ``collection``'s record that ``pointer`` is, or is inside."""
    parent = collection.pointer.rpartition("/")[0] if collection.keys else collection.pointer
    parent = array_pointer(parent)
    if collection.slots:
        return f"{parent}/{'/'.join(pointer[len(parent) + 1 :].split('/')[:2])}"
    return f"{parent}/{pointer[len(parent) + 1 :].split('/', 1)[0]}{collection.inner}"


def record_position(collection: Collection, pointer: str) -> str:
    """The key or position of the record at ``pointer`` in ``collection`` (unescaped)."""
    if collection.inner:
        return pointer[len(array_pointer(collection.pointer)) + 1 :].split("/", 1)[0]
    if collection.pages:
        return page_position(pointer[len(collection.pointer) + 1 :], collection.pages)
    if collection.slots:
        return "/".join(map(unescape, pointer[len(collection.pointer) + 1 :].split("/")[:2]))
    return unescape(pointer.rsplit("/", 1)[1])


def _record_keys(value: dict[str, Any], limit: int = 24) -> list[frozenset[str]]:
    return [frozenset(v) for v in list(value.values())[:limit] if isinstance(v, dict)]


def looks_keyed(value: Any) -> bool:
    """An object whose values are objects of one shape: records keyed by their id."""
    if not isinstance(value, dict) or len(value) < 2:
        return False
    shapes = _record_keys(value)
    if len(shapes) < min(len(value), 24) or not shapes[0]:
        return False
    first = shapes[0]
    alike = sum(1 for s in shapes if len(s & first) * 2 >= len(s | first))
    return alike * 5 >= len(shapes) * 4


def looks_records(value: Any) -> bool:
    """An array of objects."""
    if not isinstance(value, list) or not value:
        return False
    sample = value[:24]
    return sum(1 for v in sample if isinstance(v, dict)) * 5 >= len(sample) * 4


def record_items(collection: Collection, value: Any) -> Iterator[tuple[str, str, Any]]:
    """``(key, pointer, record)`` for each record of ``collection`` found in ``value``."""
    if collection.table is not None:
        for at, record in table_rows(collection.table, value):
            key = record_key(collection, at, record)
            yield key, f"{collection.pointer}/{escape(at)}", record
    elif isinstance(value, dict) and collection.keys is not None:
        parent = collection.pointer.rpartition("/")[0]
        for key, record in value.items():
            yield record_key(collection, key, record), f"{parent}/{escape(key)}", record
    elif isinstance(value, dict) and collection.slots and not collection.keyed:
        for at, below, record in partition_items(value, collection.odd):
            yield record_key(collection, at, record), f"{collection.pointer}/{below}", record
    elif isinstance(value, dict) and collection.slots:
        for key, below, record in slot_items(value, collection.odd):
            yield key, f"{collection.pointer}/{below}", record
    elif collection.pages:
        for at, below, record in paged(value, collection.pages):
            yield record_key(collection, at, record), f"{collection.pointer}/{below}", record
    elif isinstance(value, dict):
        for key, record in value.items():
            if key not in collection.odd:
                yield key, f"{collection.pointer}/{escape(key)}", record
    elif isinstance(value, list) and collection.kind is not None:
        kind, array = collection.kind, array_pointer(collection.pointer)
        for i, item in enumerate(value):
            if kind.holds(item):
                record = resolve(item, kind.inner)
                yield record_key(collection, str(i), record), f"{array}/{i}{kind.inner}", record
    elif isinstance(value, list):
        inner = collection.inner
        for i, item in enumerate(value):
            if not is_record(collection, item):
                continue
            record = resolve(item, inner) if inner else item
            yield record_key(collection, str(i), record), f"{collection.pointer}/{i}{inner}", record


def is_record(collection: Collection, item: Any) -> bool:
    """Whether an item of ``collection``'s array is one of its records: in an array of text
    lines, only a line read as a record is (a header, ``CREATE TABLE`` are none)."""
    return not collection.lines or isinstance(item, dict)


def record_key(collection: Collection, position: str, record: Any) -> str:
    """The key of the record at ``position`` of an array collection or a table: its id
    field's value, else its row's label (pandas' index), else its position; a flat export's
    record by its key's id part."""
    if collection.keys is not None:
        return collection.keys.id_of(position) or position
    if collection.id_field and isinstance(record, dict) and collection.id_field in record:
        return str(record[collection.id_field])
    if collection.table is None and (composite := composite_id(record)) is not None:
        return composite
    table = collection.table
    if table is not None and table.labels and position.isdigit():
        at = int(position) - table.first
        if 0 <= at < len(table.labels):
            return table.labels[at]
    return position


@dataclass
class RecordFacts:
    """What the index knows of one record: its key, its collection and its values."""

    key: str
    collection: str
    values: dict[str, str] = field(default_factory=dict)
    """Each normalized value → the first place inside the record that holds it (relative
    pointer, ``""`` for the record itself)."""
    inner_keys: dict[str, str] = field(default_factory=dict)
    """Keys of the record's nested maps (normalized) → their relative pointer."""


def record_facts(key: str, collection: str, record: Any) -> RecordFacts:
    facts = RecordFacts(key, collection)
    # A slotted series' reading answers to its time and its source, each alone.
    for own in map(normalize, {key: None} | dict.fromkeys(key_values(key))):
        if own is not None:
            facts.values.setdefault(own, "")

    def walk(value: Any, where: str, depth: int) -> None:
        if depth > _MAX_RECORD_DEPTH:
            return
        if isinstance(value, dict):
            # The keys of a map of records (variants by item id, days by date) are values a
            # call may name; the field names of an ordinary object are not.
            keyed = all(isinstance(item, dict) for item in value.values())
            for name, item in value.items():
                inner = f"{where}/{escape(name)}"
                if isinstance(item, dict) and (keyed or any(c.isdigit() for c in name)):
                    label = normalize(name)
                    if label is not None:
                        facts.inner_keys.setdefault(label, inner)
                        facts.values.setdefault(label, inner)
                walk(item, inner, depth + 1)
        elif isinstance(value, list):
            for i, item in enumerate(value[:256]):
                walk(item, f"{where}/{i}", depth + 1)
        else:
            label = normalize(value)
            if label is not None:
                facts.values.setdefault(label, where)
            # A composite key's parts are what a call names (``1042`` of ``MEMBER#1042``),
            # a typed reference's id (``10234`` of ``Patient/10234``) and a scheme-prefixed
            # value's own (``ana@example.org`` of ``mailto:ana@example.org``).
            for part in _parts(value) if isinstance(value, str) else ():
                if (label := normalize(part)) is not None:
                    facts.values.setdefault(label, where)

    walk(record, "", 0)
    return facts


def _parts(value: str) -> list[str]:
    """The parts of a string a call may name on their own (see :func:`record_facts`)."""
    typed = typed_reference(value)
    parts = [*key_parts(value), typed[1]] if typed else key_parts(value)
    bare = unschemed(value)
    return parts if bare is None else [*parts, bare]


def record_count(collection: Collection, value: Any) -> int | None:
    """How many records an array collection or a table holds (``None``: keyed ones)."""
    if collection.table is not None:
        return row_count(collection.table, value)
    if collection.pages:
        return paged_count(value, collection.pages)
    if collection.lines and isinstance(value, list):
        return sum(isinstance(item, dict) for item in value)
    return len(value) if isinstance(value, list) else None
