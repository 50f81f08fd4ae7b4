"""Finding a large state's collections of records by their shape.

A world written or imported without grounding hints still has collections, and they can be
found by their shape: an array of objects, or an object whose values are same-shaped objects
(the key is the record's id, whether or not the record repeats it), at any depth of the
document outside another collection. Declared ``entities`` are collections too, whatever
their shape. The walk tells apart, at each place, the forms a collection takes (see
:class:`mcp_sim.runtime.state_shape.Collection`): pages or large members holding records
(:mod:`mcp_sim.runtime.state_pages`, :mod:`mcp_sim.runtime.member_arrays`), an array of
records or of wrapped records, a table's rows (:mod:`mcp_sim.runtime.state_tables`), a flat
key-value export's key patterns (:mod:`mcp_sim.runtime.state_keys`), a series keyed by time
(:mod:`mcp_sim.runtime.state_series`), partitions of one collection (arrays of alike records
under keys of one style: :mod:`mcp_sim.runtime.state_partitions`), an object keyed by id (its
records of one shape, or a large map of records of several: :mod:`mcp_sim.runtime.record_maps`,
whose records' nested lists stay fields of theirs), and an envelope or an object it must look
inside (:mod:`mcp_sim.runtime.envelopes`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import replace
from typing import Any

from jsonpointer import escape

from mcp_sim.runtime.envelopes import envelope_field, holds_envelopes, members_holding_collections
from mcp_sim.runtime.member_arrays import member_array
from mcp_sim.runtime.record_ids import column_key, id_field_of, refers
from mcp_sim.runtime.record_maps import record_map
from mcp_sim.runtime.state_keys import key_patterns, pattern_records
from mcp_sim.runtime.state_pages import page_field, paged, wrapper_of
from mcp_sim.runtime.state_partitions import partition_items, partitioned
from mcp_sim.runtime.state_paths import resolve
from mcp_sim.runtime.state_series import series_odd, slot_items, slotted
from mcp_sim.runtime.state_shape import Collection, looks_keyed, looks_records, record_items
from mcp_sim.runtime.state_tables import Table, held_tables, row_count, table_at, table_rows
from mcp_sim.spec.world import World

_MAX_DEPTH = 6

_Found = dict[str, Collection]


def find_collections(world: World, state: Mapping[str, Any]) -> list[Collection]:
    """The collections of ``state``: the declared entities' first, then those found by shape
    outside them (outermost only: a collection inside a record is part of that record)."""
    found: _Found = {}
    for name, spec in world.entities.items():
        value = resolve(state, spec.collection)
        if isinstance(value, dict | list):
            found[spec.collection] = Collection(
                spec.collection, isinstance(value, dict), spec.id, len(value), name
            )
    _walk(found, state, state, "", 0)
    return sorted(_own_ids(found, state), key=lambda c: c.pointer)


def _walk(found: _Found, state: Any, value: Any, pointer: str, depth: int) -> None:
    """Add the collections at or below ``pointer`` (``value``) to ``found``."""
    if pointer in found or depth > _MAX_DEPTH:
        return
    if held_tables(value):
        for position, item in enumerate(value):
            _walk(found, state, item, f"{pointer}/{position}", depth + 1)
    elif (array := _array_collection(value, pointer)) is not None:
        found[pointer] = array
    elif (table := table_at(value)) is not None:
        rows = pointer + table[0]
        found[rows] = table_collection(rows, table[1], resolve(state, rows))
    elif (patterns := key_patterns(value)) is not None:
        for pattern in patterns:
            at = f"{pointer}/{escape(pattern.glob)}"
            size = len(pattern_records(value, pattern))
            found[at] = Collection(at, True, None, size, None, None, pattern)
    elif partitioned(value):
        found[pointer] = _partitions(value, pointer, frozenset())
    elif (odd := series_odd(value)) is not None and (odd or slotted(value)):
        series = {k: v for k, v in value.items() if k not in odd}
        if (collection := _series(series, pointer, frozenset(odd))) is not None:
            found[pointer] = collection
        for key in odd:
            _walk(found, state, value[key], f"{pointer}/{escape(key)}", depth + 1)
    elif _keyed_records(value):
        found[pointer] = Collection(pointer, True, None, len(value))
    elif isinstance(value, dict):
        field = envelope_field(value)
        if field is not None and value[field] == []:
            # A list endpoint with no records yet: the collection a write adds them to.
            at = f"{pointer}/{escape(field)}"
            found[at] = Collection(at, False, None, 0)
        for key, item in members_holding_collections(value, field, depth > 0):
            below = depth + (field is None or depth == 0)
            _walk(found, state, item, f"{pointer}/{escape(key)}", below)


def _array_collection(value: Any, pointer: str) -> Collection | None:
    """The collection at ``pointer`` when ``value`` holds pages or large members of records,
    or is an array of records (each maybe wrapped); else ``None``."""
    if (looks_records(value) or looks_keyed(value)) and (
        pages := (by_page := page_field(value)) or member_array(value)
    ):
        records = [r for _, _, r in paged(value, pages)]
        members = not by_page
        return Collection(
            pointer, False, id_field_of(records), len(records), pages=pages, members=members
        )
    if looks_records(value):
        inner = wrapper_of(value)
        records = [resolve(item, inner) for item in value] if inner else value
        return Collection(pointer, False, id_field_of(records), len(value), inner=inner)
    return None


def _series(series: dict[str, Any], pointer: str, odd: frozenset[str]) -> Collection | None:
    """The collection of a series keyed by time (its odd keys left out), if it is one."""
    if partitioned(series):
        return _partitions(series, pointer, odd)
    if slotted(series):
        size = sum(1 for _ in slot_items(series, frozenset()))
        return Collection(pointer, True, None, size, odd=odd, slots=True)
    if looks_keyed(series):
        return Collection(pointer, True, None, len(series), odd=odd)
    return None


def _partitions(value: dict[str, Any], pointer: str, odd: frozenset[str]) -> Collection:
    """The one collection its partitions hold (see :mod:`mcp_sim.runtime.state_partitions`)."""
    records = [r for _, _, r in partition_items(value, odd)]
    return Collection(pointer, False, id_field_of(records), len(records), odd=odd, slots=True)


def _own_ids(found: _Found, state: Any) -> Iterator[Collection]:
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


def _keyed_records(value: Any) -> bool:
    """An object of records keyed by id: of one shape, or a large map of records of several
    (see :mod:`mcp_sim.runtime.record_maps`), holding neither tables nor collections."""
    return (
        (looks_keyed(value) or record_map(value))
        and not _holds_tables(value)
        and not _holds_collections(value)
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
