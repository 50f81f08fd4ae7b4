"""Constraints on the records another record refers to, written as a path through the
reference: SOQL's ``Account.Industry = 'Retail'`` over opportunities, SQL's
``a.nationality = 'British'`` over ``objects o join artists a on a.id = o.artist_id``.

A query language lets a search of one collection constrain the record each of its records
refers to (its parent) by a dotted path whose head names the parent: the parent's type
(``Account``), or the alias a SQL ``FROM``/``JOIN`` gives its table (``artists a``). No field
of the searched records holds such a value, so read as a constraint on them it is lost and
the search finds every record the other constraints meet. Read here instead: the head is
resolved to a collection (by its name, or the table an alias stands for), the rest of the
path is read as a constraint on that collection's records (as any argument is, see
:func:`mcp_sim.prompting.constraints.read_collection`), and the records meeting it give their
keys; the searched records' field holding those keys (the one named for the parent:
``AccountId``, ``artist_id``; else the one holding most of them) must then hold one of them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from mcp_sim.prompting.constraints import Constraint, Reading, read_collection
from mcp_sim.prompting.field_names import names_collection, tokens
from mcp_sim.prompting.record_fields import SELF, FieldSchema
from mcp_sim.prompting.scalar_arguments import scalar_arguments
from mcp_sim.prompting.search_result import SearchResult
from mcp_sim.runtime.state_shape import Collection, normalize

MOST_PARENT_KEYS = 400
"""Keys of the parent records found that a constraint tests (the first, in document order)."""
_ALIAS = re.compile(
    r"(?i)\b(?:from|join)\s+[\"`\[]?(?P<table>[A-Za-z_][\w]*)[\"`\]]?\s+(?:as\s+)?"
    r"(?!(?:on|where|join|inner|left|right|full|outer|cross|natural|group|order|limit|using)\b)"
    r"(?P<alias>[A-Za-z_]\w*)"
)
"""A table and the alias a SQL ``FROM`` or ``JOIN`` gives it (``join artists a``)."""
_STATEMENT = re.compile(r"(?i)\s*(?:select|with)\b")
"""The start of a SQL query."""
_COLUMN = re.compile(r"^[A-Za-z_]\w*\.[A-Za-z_]\w*$")
"""A value that is another table's column (``o.artist_id`` of a join condition): no value."""

Run = Callable[[Collection, Reading], SearchResult]
"""Runs a reading over a collection (the search's own way)."""
Keys = Callable[[Collection, list[str]], dict[str, str]]
"""Each record's key (its id field's value, else its place)."""


def aliases(arguments: dict[str, Any]) -> dict[str, str]:
    """The aliases a SQL statement among the arguments gives its tables (``o`` →
    ``objects``); prose's "from Alice about" gives none."""
    found: dict[str, str] = {}
    for value in arguments.values():
        if isinstance(value, str) and _STATEMENT.match(value):
            for match in _ALIAS.finditer(value):
                found.setdefault(match["alias"].casefold(), match["table"])
    return found


def _parent(
    head: str, own: Collection, collections: Sequence[Collection], named: dict[str, str]
) -> Collection | None:
    """The collection a path's head names (its table, through an alias), unless the searched
    one: the only one it names."""
    name = named.get(head.casefold(), head)
    found = [c for c in collections if names_collection(c.pointer, name)]
    if len(found) != 1 or found[0].pointer == own.pointer:
        return None
    return found[0]


def searched_reading(
    readings: Sequence[Reading], collections: Sequence[Collection], arguments: dict[str, Any]
) -> Reading:
    """Of the readings ranked best first, the one of the records searched: that of the table a
    SQL statement selects ``FROM``; else not a parent a path's head names (``Account`` of
    ``Account.Industry``), while another collection's reading says at least half as much."""
    named = aliases(arguments)
    first = readings[0]
    if named:
        table = next(iter(named.values()))
        return next((r for r in readings if names_collection(r.collection, table)), first)
    heads = {
        c.pointer
        for name, _ in scalar_arguments(arguments)
        if "." in name
        for c in collections
        if names_collection(c.pointer, name.split(".")[0])
    }
    if first.collection not in heads:
        return first
    others = [r for r in readings if r.collection not in heads and r.score * 2 >= first.score]
    return others[0] if others else first


def _referring_field(schema: FieldSchema, parent: Collection, keys: list[str]) -> str | None:
    """The field of ``schema`` holding the parent's keys: of those holding some, the one
    named for the parent (``AccountId``, ``artist_id``), else the one holding most."""
    labels = {label for label in map(normalize, keys) if label is not None}
    parent_words = {w for s in parent.pointer.split("/") for w in tokens(s)}
    best: tuple[bool, int] = (False, 0)
    chosen: str | None = None
    for path, info in schema.fields.items():
        shared = len(info.distinct & labels)
        if path == SELF or not shared:
            continue
        rank = (bool(parent_words & {w for s in info.words for w in s}), shared)
        if rank > best:
            best, chosen = rank, path
    return chosen


def through_parents(
    reading: Reading,
    schema: FieldSchema,
    collections: Sequence[Collection],
    schemas: dict[str, FieldSchema],
    arguments: dict[str, Any],
    run: Run,
    keys: Keys,
) -> Reading:
    """``reading`` with each constraint written as a path through a reference (see the
    module) read on the parent and tested as the parent keys the searched records hold; the
    reading as it was when the arguments hold none."""
    own = next((c for c in collections if c.pointer == reading.collection), None)
    if own is None:
        return reading
    named = aliases(arguments)
    known = {alias for alias in named} | {t.casefold() for t in named.values()}
    added: dict[str, Constraint] = {}
    for name, value in scalar_arguments(arguments):
        head, dot, rest = name.partition(".")
        if not dot or not rest or (isinstance(value, str) and _COLUMN.match(value)):
            continue
        parent = _parent(head, own, collections, named)
        if parent is None or (named and head.casefold() not in known):
            continue
        on_parent = read_collection(schemas[parent.pointer], {rest: value})
        if not on_parent.constraints:
            continue
        found = run(parent, on_parent).full
        parent_keys = list(keys(parent, found[:MOST_PARENT_KEYS]).values())
        field = _referring_field(schema, parent, parent_keys) if parent_keys else None
        if field is not None:
            label = f"keys of {parent.pointer} whose {rest}"
            added[name] = Constraint(label, "eq", parent_keys, (field,), 1.0)
    if not added:
        return reading
    kept = tuple(c for c in reading.constraints if c.argument not in added)
    return Reading(reading.collection, kept + tuple(added.values()), reading.score + len(added))
