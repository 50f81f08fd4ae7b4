"""The shape of a large state: its collections of records, and the values each record holds.

A world written or imported without grounding hints still has collections, and they can be
found by their shape: an array of objects, or an object whose values are same-shaped objects
(the key is the record's id, whether or not the record repeats it), at any depth of the
document outside another collection. Declared ``entities`` are collections too, whatever
their shape.

:func:`record_facts` lists what one record holds: its scalar values (normalized by
:func:`normalize`, so a lookup by ``"12"`` finds ``12``) and the keys of its nested maps (a
product's variants by item id, a flight's days by date), each with where in the record it
sits. :mod:`mcp_sim.runtime.state_index` indexes them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from jsonpointer import escape, unescape

from mcp_sim.spec.world import World

MAX_VALUE_CHARS = 120
"""Longer strings (descriptions, bodies) are not indexed: nobody looks a record up by them."""
_MAX_DEPTH = 6
_MAX_RECORD_DEPTH = 24
"""How deep inside a record values are indexed: a tree of units keeps the people a lookup
names a dozen levels down."""
_ID_FIELD = re.compile(
    r"^(id|key|uuid|slug|code|number|.*(_id|Id|ID|_key|Key|_number|Number|_code|Code|_no|No))$"
)
_NUMBER = re.compile(r"^-?\d+(\.\d+)?$")


def normalize(value: Any) -> str | None:
    """How a value is looked up: strings case-folded and stripped, numbers by value (``12``,
    ``12.0`` and ``"12"`` agree); ``None`` for what is not indexed."""
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
            return str(int(number)) if number.is_integer() and "." not in text else repr(number)
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


def id_field_of(records: Sequence[Any]) -> str | None:
    """The field whose values tell the records apart: named like an id, unique, scalar."""
    if not records or not isinstance(records[0], dict):
        return None
    for name in records[0]:
        if not _ID_FIELD.match(name):
            continue
        values = [r.get(name) if isinstance(r, dict) else None for r in records]
        if all(isinstance(v, str | int) and not isinstance(v, bool) for v in values) and len(
            set(values)
        ) == len(values):
            return str(name)
    return None


def find_collections(world: World, state: Mapping[str, Any]) -> list[Collection]:
    """The collections of ``state``: the declared entities' first, then those found by shape
    outside them (outermost only: a collection inside a record is part of that record)."""
    found: dict[str, Collection] = {}
    for name, spec in world.entities.items():
        value = _resolve(state, spec.collection)
        if isinstance(value, dict | list):
            found[spec.collection] = Collection(
                spec.collection, isinstance(value, dict), spec.id, len(value), name
            )

    def walk(value: Any, pointer: str, depth: int) -> None:
        if pointer in found or depth > _MAX_DEPTH:
            return
        if looks_records(value):
            found[pointer] = Collection(pointer, False, id_field_of(value), len(value))
        elif looks_keyed(value):
            found[pointer] = Collection(pointer, True, None, len(value))
        elif isinstance(value, dict):
            for key, item in value.items():
                walk(item, f"{pointer}/{escape(key)}", depth + 1)

    walk(state, "", 0)
    return sorted(found.values(), key=lambda c: c.pointer)


def _resolve(state: Any, pointer: str) -> Any:
    value = state
    for part in pointer.split("/")[1:] if pointer else []:
        key = unescape(part)
        if isinstance(value, dict) and key in value:
            value = value[key]
        elif isinstance(value, list) and key.isdigit() and int(key) < len(value):
            value = value[int(key)]
        else:
            return None
    return value


def record_size(value: Any) -> int:
    """The length of ``value``'s compact JSON (0 for nothing)."""
    if value is None:
        return 0
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")))


def resolve(state: Any, pointer: str) -> Any:
    """The value at ``pointer`` in ``state``, or ``None`` where there is none."""
    return _resolve(state, pointer)


def record_items(collection: Collection, value: Any) -> Iterator[tuple[str, str, Any]]:
    """``(key, pointer, record)`` for each record of ``collection`` found in ``value``."""
    if isinstance(value, dict):
        for key, record in value.items():
            yield key, f"{collection.pointer}/{escape(key)}", record
    elif isinstance(value, list):
        for i, record in enumerate(value):
            key = str(i)
            if collection.id_field and isinstance(record, dict):
                key = str(record.get(collection.id_field, i))
            yield key, f"{collection.pointer}/{i}", record


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
    own = normalize(key)
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

    walk(record, "", 0)
    return facts
