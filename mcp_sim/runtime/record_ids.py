"""Which field of a record is its id, whatever it is called.

A record names its id ``id``, ``ref``, ``sku``, ``itemId``, ``ITEM_REF`` or ``item-id``: a
field whose name's last word names an id, whose values are distinct scalars. A table without
such a column is keyed by a first column of distinct codes (``LM-400``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import Any

from mcp_sim.runtime.state_tables import Table

_ID_WORDS = frozenset(
    ("id", "key", "uuid", "guid", "slug", "code", "number", "no", "ref", "sku", "handle")
)
"""The last word of a field name that names a record's id (``id``, ``ref``, ``itemId``,
``ITEM_REF``, ``item-id``), whatever the casing."""
_SAMPLE = 24
_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")


def id_named(name: str) -> bool:
    """Whether a field's name names an id: its last word is one (see :data:`_ID_WORDS`)."""
    words = _WORD.findall(name)
    return bool(words) and words[-1].casefold() in _ID_WORDS


def id_field_of(records: Sequence[Any], skip: Collection[str] = ()) -> str | None:
    """The field whose values tell the records apart, unique and scalar: ``id`` itself, else
    the first named like an id, else a first field of codes (``LM-400``: what else is an
    unnamed first column of distinct codes?); none of ``skip`` (fields found to refer to
    other records)."""
    if not records or not isinstance(records[0], dict):
        return None
    names = [str(n) for n in records[0] if n not in skip]
    named = sorted((n for n in names if id_named(n)), key=lambda n: n.casefold() != "id")
    for name in named:
        if _distinct(records, name, _scalar_id):
            return name
    if names and _distinct(records, names[0], _code):
        return names[0]
    return None


def refers(records: Sequence[Any], name: str, keyed: Iterable[Mapping[str, Any]]) -> bool:
    """Whether field ``name`` of the records holds keys of another collection's records
    (``keyed``: objects of records by id): a reference (a movement's ``sku``), unique only
    because each record names a different one, not the record's own id. Numbers say nothing:
    every table of a database numbers its records alike (1, 2, 3 …)."""
    sample = [r.get(name) for r in records[:_SAMPLE] if isinstance(r, dict)]
    if not sample or not all(isinstance(v, str) and not v.strip().isdigit() for v in sample):
        return False
    return any(all(v in keys for v in sample) for keys in keyed)


def _scalar_id(value: Any) -> bool:
    return isinstance(value, str | int) and not isinstance(value, bool)


def _distinct(records: Sequence[Any], name: str, test: Callable[[Any], bool]) -> bool:
    values = [r.get(name) if isinstance(r, dict) else None for r in records]
    return all(map(test, values)) and len(set(values)) == len(values)


def column_key(records: Sequence[dict[str, Any]], table: Table) -> str | None:
    """The column telling a table's rows apart: named like an id (see :func:`id_field_of`), else
    the first column whose values are all distinct codes (no spaces, a digit in each)."""
    found = id_field_of(records)
    positions = tuple(str(i) for i in range(len(table.labels)))
    if found is not None or not records or (table.labels and table.labels != positions):
        # Rows labelled by more than their position are keyed by their labels.
        return found
    for name in table.columns:
        values = [r.get(name) for r in records]
        if all(_code(v) for v in values) and len(set(values)) == len(values):
            return name
    return None


def _code(value: Any) -> bool:
    """A string like ``K-17`` or ``V500012`` (a bare number is as likely a count)."""
    if not isinstance(value, str):
        return False
    return 0 < len(value) <= 40 and " " not in value and any(c.isdigit() for c in value)
