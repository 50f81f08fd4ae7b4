"""How the collections a call's arguments may select are ranked: the readings of the
arguments over each collection's fields (see :mod:`mcp_sim.prompting.constraints`), best
first, a lookup by key told from a search, and the records referring to a looked-up one."""

from __future__ import annotations

from collections.abc import Set
from typing import Any

from jsonpointer import unescape

from mcp_sim.prompting.argument_kinds import own_kind, state_kinds
from mcp_sim.prompting.constraints import Reading, read_collection
from mcp_sim.prompting.field_names import names_collection, read_argument, tokens
from mcp_sim.prompting.periods import is_period
from mcp_sim.prompting.record_fields import KEY, SELF, FieldSchema
from mcp_sim.prompting.scalar_arguments import scalar_arguments
from mcp_sim.runtime.state_shape import normalize


def rank_readings(
    schemas: list[FieldSchema],
    arguments: dict[str, Any],
    named: set[str],
    id_fields: dict[str, str | None],
    asked: Set[str] = frozenset(),
    told: Set[str] = frozenset(),
    loose: Set[str] = frozenset(),
) -> tuple[list[Reading], bool]:
    """The collections whose records the arguments select, best first (most constraints,
    best names, named by the tool: ``named`` holds the words of its name), with their
    constraints. A collection whose records the arguments only name by key (``id_fields``:
    each collection's id field) is a lookup, not a search; beside one, only collections whose
    records refer to it are searched (a user's orders by ``user_id``; see :func:`refers`), and
    those whose field merely holds its key (a depot's vehicles by ``depotCode``) only when
    the tool asks for a list of records (``asked``: see :func:`asked_collections`; a depot's
    drivers, not the depot's record). The flag says
    whether the arguments named a record by key; ``loose``: as
    :func:`~mcp_sim.prompting.constraints.read_collection` takes it."""
    found: list[Reading] = []
    keys: set[str] = set()
    told_of: set[str] = set()
    own_kinds = state_kinds(schemas)
    pairs = list(scalar_arguments(arguments))
    values = {v for _, value in pairs for v in _labels(value)}
    kinds = {v for n, v in pairs if isinstance(v, str) and read_argument(n).op in ("eq", "match")}
    if any(set(tokens(s.collection)) & named for s in schemas):
        kinds = set()  # the tool's name names the records it answers with (``relations_of``)
    for schema in schemas:
        reading = own_kind(read_collection(schema, arguments, told, loose), own_kinds, id_fields)
        if not reading.constraints:
            continue
        if is_lookup(reading, id_fields.get(schema.collection)) and not _queried(reading):
            keys |= {v for c in reading.constraints for v in _labels(c.value)}
            continue
        bonus = _named_bonus(schema.collection, named, values)
        if bonus:
            told_of.add(schema.collection)
        if bonus and names_one(reading, schema):
            # One record of the collection the tool names, by a field no two records share
            # (``get_boat``: the id inside a GraphQL edge of ``/boats/edges``): a lookup by
            # another name, before the records that refer to it.
            bonus = 1.0
        elif kinds and not bonus and not names_one(reading, schema):
            # A value naming the kind of records sought (``type: "track"`` of a search over
            # albums, artists and tracks): theirs is the collection, not one merely nesting
            # records of the kind (one record named so is a lookup: nothing to choose).
            named_kind = any(names_collection(schema.collection, v) for v in kinds)
            bonus = _KIND_BY_VALUE if named_kind else 0.0
        found.append(Reading(reading.collection, reading.constraints, reading.score + bonus))
    found.sort(key=lambda r: -r.score)
    if keys:
        # Records that merely hold a looked-up key belong to the answer only when it is a
        # list of records (the depot's drivers), not the looked-up record (the depot's).
        # The records the tool names are searched whatever else it names by key
        # (``findVehicles`` by fuel beside the depot it names).
        held = keys if asked else frozenset()
        found = [r for r in found if refers(r, held) or r.collection in told_of]
    return found, bool(keys)


def _named_bonus(collection: str, named: set[str], values: Set[str]) -> float:
    """What the tool's name (``named``: its words) and the arguments' values (``values``:
    their labels) say for ``collection``."""
    # Any segment may name the records (``/stations/edges``: a paged list of stations).
    bonus = 0.5 if set(tokens(collection)) & named else 0.0
    if normalize(unescape(collection.rsplit("/", 1)[-1])) in values:
        # An argument's value is the collection's own name (``in_channel: "deploys"`` of
        # an export's folder ``/deploys``): the records are those of that collection.
        bonus += _NAMED_BY_VALUE
    return bonus


_NAMED_BY_VALUE = 2.0
"""The argument whose value names the collection is met by the collection itself: it weighs
as a constraint does at its best (a field its name names, holding the value; see
:func:`mcp_sim.prompting.constraints.weight_of`)."""
_KIND_BY_VALUE = 1.0
"""What a value naming the records' kind (not the collection itself) adds to its reading."""


def _queried(reading: Reading) -> bool:
    """Whether every constraint is a query's ``field:value``: a query searches, whatever
    keys its values name (``is:unread`` beside ``label:travel``); those are looked up apart."""
    return all(read_argument(c.argument).op == "match" for c in reading.constraints)


def _labels(value: Any) -> set[str]:
    values = value if isinstance(value, list) else [value]
    return {label for label in map(normalize, values) if label is not None}


def refers(reading: Reading, keys: Set[str] = frozenset()) -> bool:
    """Whether every constraint names its fields outright, names entries of a map (a
    warehouse's stock of the item a lookup names) or parts of the record's key (a series'
    reading of a looked-up station), or holds ``keys`` (those of records a lookup names) in
    fields whose values are such keys (a vehicle's ``depotCode``): records linked to one."""
    named = [
        c
        for c in reading.constraints
        if c.fit >= 0.8
        or all(f.endswith(KEY) for f in c.fields)
        or (c.op == "eq" and (_labels(c.value) <= keys or c.fields == (SELF,)))
    ]
    # A bound beside them (a date "as of", "since", a month) narrows the linked records further.
    return bool(named) and all(
        c in named or c.op in ("min", "max") or is_period(c) for c in reading.constraints
    )


def is_lookup(reading: Reading, id_field: str | None) -> bool:
    """Whether the constraints only name records by key (a lookup the key index answers);
    two on the key name its parts (a reading by its time and its source): a search."""
    on_key = sum(SELF in c.fields for c in reading.constraints)
    named = all(
        c.op == "eq" and (SELF in c.fields or (id_field is not None and id_field in c.fields))
        for c in reading.constraints
    )
    return bool(reading.constraints) and on_key < 2 and named


def names_one(reading: Reading, schema: FieldSchema) -> bool:
    """Whether the constraints pick one record by a field no two records share (a member by
    ``member_no``, a user by ``email``): a lookup by another name."""
    return bool(reading.constraints) and all(
        c.op == "eq" and any(schema.fields[f].unique for f in c.fields) for c in reading.constraints
    )
