"""The shape of a large state: its collections of records, and the values each record holds.

A world written or imported without grounding hints still has collections, and they can be
found by their shape: an array of objects, or an object whose values are same-shaped objects
(the key is the record's id, whether or not the record repeats it), at any depth of the
document outside another collection. Declared ``entities`` are collections too, whatever
their shape, and so are tables whose rows hold no field names (see
:mod:`mcp_sim.runtime.state_tables`): :func:`mcp_sim.runtime.state_paths.resolve` gives such
a row as an object of its columns' names, so whatever reads records reads those rows alike. A GraphQL connection's
edges are the records their nodes are (``Collection.inner``), pages of one collection are
that collection (:mod:`mcp_sim.runtime.state_pages`), and a record's id is found whatever
its field is called (:mod:`mcp_sim.runtime.record_ids`).

:func:`record_facts` lists what one record holds: its scalar values (normalized by
:func:`normalize`, so a lookup by ``"12"`` finds ``12``) and the keys of its nested maps (a
product's variants by item id, a flight's days by date), each with where in the record it
sits. :mod:`mcp_sim.runtime.state_index` indexes them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from jsonpointer import escape, unescape

from mcp_sim.runtime.composite_keys import composite_id, key_parts
from mcp_sim.runtime.envelopes import envelope_field, holds_envelopes, members_holding_collections
from mcp_sim.runtime.member_arrays import member_array
from mcp_sim.runtime.mixed_collections import Kind, array_pointer
from mcp_sim.runtime.record_ids import column_key, id_field_of, refers
from mcp_sim.runtime.state_keys import KeyPattern, key_patterns, pattern_of, pattern_records
from mcp_sim.runtime.state_pages import page_field, page_position, paged, wrapper_of
from mcp_sim.runtime.state_paths import resolve
from mcp_sim.runtime.state_series import key_values, series_odd, slot_items, slotted
from mcp_sim.runtime.state_tables import (
    Table,
    row_count,
    table_at,
    table_rows,
)
from mcp_sim.runtime.typed_references import typed_reference
from mcp_sim.runtime.uri_schemes import unschemed
from mcp_sim.spec.world import World

MAX_VALUE_CHARS = 120
"""Longer strings (descriptions, bodies) are not indexed: nobody looks a record up by them."""
_MAX_DEPTH = 6
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
    keyed ``TIME/SOURCE``, two levels below ``pointer``."""
    kind: Kind | None = None
    """The kind of the records, when they are those of one kind in an array of several
    (see :mod:`mcp_sim.runtime.mixed_collections`); ``pointer`` then ends with the kind."""


def within(collection: str, pointer: str) -> bool:
    """Whether ``pointer`` is a record of the collection at ``collection``, or inside one."""
    parent, _, last = collection.rpartition("/")
    if array_pointer(collection) != collection:
        # Any item of the array may be of the kind: the index knows which (see
        # :meth:`mcp_sim.runtime.state_index.StateIndex.collection_of`).
        return pointer.startswith(parent + "/")
    pattern = pattern_of(unescape(last))
    if pattern is None:
        return pointer.startswith(collection + "/")
    if not pointer.startswith(parent + "/"):
        return False
    key = unescape(pointer[len(parent) + 1 :].split("/", 1)[0])
    return pattern.id_of(key) is not None


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


def find_collections(world: World, state: Mapping[str, Any]) -> list[Collection]:
    """The collections of ``state``: the declared entities' first, then those found by shape
    outside them (outermost only: a collection inside a record is part of that record)."""
    found: dict[str, Collection] = {}
    for name, spec in world.entities.items():
        value = resolve(state, spec.collection)
        if isinstance(value, dict | list):
            found[spec.collection] = Collection(
                spec.collection, isinstance(value, dict), spec.id, len(value), name
            )

    def walk(value: Any, pointer: str, depth: int) -> None:
        if pointer in found or depth > _MAX_DEPTH:
            return
        if (looks_records(value) or looks_keyed(value)) and (
            pages := (by_page := page_field(value)) or member_array(value)
        ):
            records = [r for _, _, r in paged(value, pages)]
            members = not by_page
            found[pointer] = Collection(
                pointer, False, id_field_of(records), len(records), pages=pages, members=members
            )
        elif looks_records(value):
            inner = wrapper_of(value)
            records = [resolve(item, inner) for item in value] if inner else value
            found[pointer] = Collection(
                pointer, False, id_field_of(records), len(value), inner=inner
            )
        elif (table := table_at(value)) is not None:
            rows = pointer + table[0]
            found[rows] = table_collection(rows, table[1], resolve(state, rows))
        elif (patterns := key_patterns(value)) is not None:
            for pattern in patterns:
                at = f"{pointer}/{escape(pattern.glob)}"
                size = len(pattern_records(value, pattern))
                found[at] = Collection(at, True, None, size, None, None, pattern)
        elif (odd := series_odd(value)) is not None and (odd or slotted(value)):
            series = {k: v for k, v in value.items() if k not in odd}
            if slotted(series):
                size = sum(1 for _ in slot_items(series, frozenset()))
                found[pointer] = Collection(
                    pointer, True, None, size, odd=frozenset(odd), slots=True
                )
            elif looks_keyed(series):
                found[pointer] = Collection(pointer, True, None, len(series), odd=frozenset(odd))
            for key in odd:
                walk(value[key], f"{pointer}/{escape(key)}", depth + 1)
        elif looks_keyed(value) and not _holds_tables(value) and not _holds_collections(value):
            found[pointer] = Collection(pointer, True, None, len(value))
        elif isinstance(value, dict):
            field = envelope_field(value)
            if field is not None and value[field] == []:
                # A list endpoint with no records yet: the collection a write adds them to.
                at = f"{pointer}/{escape(field)}"
                found[at] = Collection(at, False, None, 0)
            for key, item in members_holding_collections(value, field, depth > 0):
                walk(item, f"{pointer}/{escape(key)}", depth + (field is None or depth == 0))

    walk(state, "", 0)
    return sorted(_own_ids(found, state), key=lambda c: c.pointer)


def _own_ids(found: dict[str, Collection], state: Any) -> Iterator[Collection]:
    """The collections, an array's id field dropped for the next when it refers to another
    collection's records instead (``id`` itself is always the record's own)."""
    keyed = {p: v for p, c in found.items() if c.keyed and isinstance(v := resolve(state, p), dict)}
    for pointer, collection in found.items():
        name = collection.id_field
        if name is None or name.casefold() == "id" or collection.keyed or collection.entity:
            yield collection
            continue
        records = [r for _, _, r in record_items(collection, resolve(state, pointer))]
        others = (v for p, v in keyed.items() if p != pointer)
        if refers(records, name, others):
            collection = replace(collection, id_field=id_field_of(records, skip={name}))
        yield collection


def table_collection(pointer: str, table: Table, rows: Any) -> Collection:
    """The collection of a table's rows at ``pointer``, keyed by its id-like column if any."""
    records = [row for _, row in table_rows(table, rows)]
    return Collection(
        pointer, False, column_key(records, table), row_count(table, rows), None, table
    )


def _holds_tables(value: dict[str, Any]) -> bool:
    """An object of tables (``{"patients": {"columns": ..., "rows": ...}, ...}``) looks keyed,
    but its records are the tables' rows."""
    return any(table_at(item) is not None for item in list(value.values())[:3])


def _holds_collections(value: dict[str, Any]) -> bool:
    """An object of a few wrapped collections (``{"batches": {"edges": [...]}, ...}``, a search
    export's ``{"books": {"hits": {"total": .., "hits": [...]}}, ...}``) looks keyed, but its
    records are the arrays' items: each value holds, in objects at most a few levels down,
    more records than the object has keys (a keyed collection's record holds a few line items
    at most); and so does an export of a few list endpoints' envelopes (see
    :mod:`mcp_sim.runtime.envelopes`)."""
    if holds_envelopes(value):
        return True
    least = max(len(value), 8)
    return all(
        _most_wrapped(item) > least for item in list(value.values())[:24] if isinstance(item, dict)
    )


def _most_wrapped(value: dict[str, Any], depth: int = 3) -> int:
    """The most records an array holds inside ``value``'s objects, ``depth`` levels down."""
    most = 0
    for item in value.values():
        if looks_records(item):
            most = max(most, len(item))
        elif isinstance(item, dict) and depth > 1:
            most = max(most, _most_wrapped(item, depth - 1))
    return most


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
            record = resolve(item, inner) if inner else item
            yield record_key(collection, str(i), record), f"{collection.pointer}/{i}{inner}", record


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
