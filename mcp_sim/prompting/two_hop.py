"""Joins of two hops: the records a call asks for, reached from the record its arguments name
through a middle collection that refers to both.

``practitioner_patients(npi)``: the arguments find a practitioner, and no field of the
practitioner refers to patients; encounters refer to the practitioner and to a patient. The
answer lists the patients reached through the practitioner's encounters. So when the tool's
name names a collection (the *targets*) that the starting records do not refer to, the records
of another collection holding a starting record's key (its key in the collection, or its id,
bare or in a typed reference such as ``Practitioner/10003``) at one field are the *links*, and
the join from them to the targets is found as for any link records (see
:func:`mcp_sim.prompting.link_join.follow`): each target is shown once with how many links
reach it when the tool asks for counts (see :mod:`mcp_sim.prompting.link_groups`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import Any, Protocol

from mcp_sim.prompting.field_names import tokens
from mcp_sim.prompting.field_tables import FieldTables
from mcp_sim.prompting.link_groups import asks_each_once
from mcp_sim.prompting.link_join import (
    LinkJoin,
    follow,
    named_collections,
    said_collections,
)
from mcp_sim.prompting.link_keys import key_fields, reference_field, target_keys
from mcp_sim.prompting.link_kinds import kind_words
from mcp_sim.prompting.link_rows import LinkRows, answer_words
from mcp_sim.prompting.link_values import answer_lists
from mcp_sim.prompting.partitions import partition_pattern
from mcp_sim.prompting.record_fields import SELF, field_paths
from mcp_sim.prompting.search_result import SearchResult
from mcp_sim.prompting.tool_asks import asked_words
from mcp_sim.runtime.state_index import StateOverlay
from mcp_sim.runtime.state_paths import resolve
from mcp_sim.runtime.state_shape import Collection, normalize, record_pointer
from mcp_sim.spec.world import ToolSpec

MOST_STARTS = 3
"""Starting records a two-hop join is tried from: more are a search, not a record named."""
_INDEX = re.compile(r"/\d+(?=/|$)")
"""A list's index inside a field path (``participant/0/individual``): one field for all."""


class Named(Protocol):
    """A record picked for a call, and why (``named``: an argument names it)."""

    reason: str


class Searches(Protocol):
    """The field-aware searches of a call."""

    searches: list[SearchResult]


def two_hop_rows(
    overlay: StateOverlay,
    state: Any,
    tool: ToolSpec | None,
    picks: Mapping[str, Named],
    call: Searches,
) -> LinkRows | None:
    """The rows of the two-hop join from the records the arguments name (by key, else the
    records a search found: those of one collection) to the collection the tool's name names,
    if one is found; ``None`` for a write, or when the starting records refer to those
    records themselves."""
    starts = [p for p, pick in picks.items() if pick.reason == "named"]
    for search in call.searches if not starts else ():
        # A nested match (a practitioner's identifier) starts from the record it is in; a
        # search finding many records (the links a description names) starts none.
        records = dict.fromkeys(record_pointer(search.collection, p) for p in search.full)
        if 0 < len(records) <= MOST_STARTS:
            starts = list(records)
            break
    if tool is None or tool.effect == "write" or not 0 < len(starts) <= MOST_STARTS:
        return None
    searched = {s.collection.pointer for s in call.searches if s.full}
    join = two_hop(overlay, state, tool, starts, searched)
    if join is None:
        return None
    tables = FieldTables.of(overlay.base)
    return LinkRows(
        join,
        tables.schema(join.links),
        tables.schema(join.targets),
        answer_words(tool),
        answer_lists(tool),
        once=asks_each_once(tool),
    )


def two_hop(
    overlay: StateOverlay,
    state: Any,
    tool: ToolSpec,
    starts: Sequence[str],
    searched: AbstractSet[str] = frozenset(),
) -> LinkJoin | None:
    """The join from the links referring to ``starts`` to the targets the tool names, unless
    a search of the arguments found targets themselves (``searched``: the collections whose
    records a search found; ``find_bikes(model, station)``: the bikes at the station, not
    those of the rides from it)."""
    tables = FieldTables.of(overlay.base)
    by_pointer = {c.pointer: c for c in tables.index.collections}
    first = overlay.base.records.get(starts[0])
    if first is None or first.collection not in by_pointer:
        return None
    own = by_pointer[first.collection]
    if any(_collection_of(overlay, s) != own.pointer for s in starts):
        return None
    labels = _start_labels(overlay, state, own, starts, key_fields(tables, own))
    named = set(tokens(tool.name))
    kinds = kind_words(tables.index.collections)
    collections = tables.index.collections
    said = set(tokens(tool.description))
    excluded = {own.pointer, *searched}
    # The records its name names, then those its description asks a list of ("The members
    # who booked a space", for ``space_bookers``).
    asked = asked_words(tool.name, tool.description, tool.output_schema) - named
    candidates = named_collections(collections, named, excluded, inner=True)
    candidates += [
        c for c in named_collections(collections, asked, excluded) if c not in candidates
    ]
    for targets in candidates:
        keys = target_keys(tables, targets)
        referring = _referring(overlay, labels, {own.pointer, targets.pointer})
        # The description may name the records in between ("the distributors a batch has
        # shipments with"): the way through them, though the batch lists distributors too.
        middles = said_collections((by_pointer[r[0]] for r in referring), said, [own, targets])
        described = [r for r in referring if by_pointer[r[0]] in middles]
        # Else starting records that refer to the targets themselves are joined in one hop.
        direct = not described and reference_field(
            keys, state, list(starts), labels, targets, kinds=kinds
        )
        if direct:
            return None
        for links, found, partitions in described or referring:
            join = follow(tables, state, by_pointer[links], found, targets, labels)
            if join is not None:
                join.partitions = partitions
                join.found_by = f"a reference to {', '.join(starts)}"
                return join
    return None


def _collection_of(overlay: StateOverlay, pointer: str) -> str:
    facts = overlay.facts(pointer)
    return facts.collection if facts is not None else ""


def _start_labels(
    overlay: StateOverlay,
    state: Any,
    own: Collection,
    starts: Sequence[str],
    keyed_at: Sequence[str] = (),
) -> set[str]:
    """The keys the starting records are referred to by: their keys in the collection, the
    values of its id field and of the fields holding keys (``keyed_at``: an id held deep, in
    a property list's ``fields/ID``, is what the links name)."""
    labels: set[str] = set()
    for pointer in starts:
        facts = overlay.facts(pointer)
        record = resolve(state, pointer)
        # Its key in the collection, where that is no position (a composite key's id).
        keyed = own.keyed or SELF in keyed_at
        values = [facts.key if facts is not None and keyed else None]
        if own.id_field is not None and isinstance(record, dict):
            values.append(record.get(own.id_field))
        held = field_paths(record) if keyed_at else {}
        values.extend(v for path in keyed_at for v in held.get(path, ())[:1])
        labels.update(label for label in map(normalize, values) if label is not None)
    return labels


def _referring(
    overlay: StateOverlay, labels: set[str], excluded: set[str]
) -> list[tuple[str, list[str], list[str]]]:
    """The collections whose records hold one of ``labels``, each with those records (in
    document order) and the other partitions of it holding them too (see
    :mod:`mcp_sim.prompting.partitions`: their records follow), those holding them at one
    field most often first."""
    held: dict[tuple[str, str], list[str]] = {}
    parts: dict[str, dict[str, None]] = {}
    for label in sorted(labels):
        for pointer, inner in overlay.value_hits(label).items():
            collection = _collection_of(overlay, pointer)
            if collection and collection not in excluded:
                pattern = partition_pattern(collection)
                held.setdefault((pattern, _INDEX.sub("", inner)), []).append(pointer)
                parts.setdefault(pattern, {})[collection] = None
    counts = Counter({key: len(found) for key, found in held.items()})
    ordered: dict[str, tuple[str, list[str], list[str]]] = {}
    for (pattern, path), _count in counts.most_common():
        if pattern not in ordered:
            found = set(held[(pattern, path)])
            first, *others = sorted(parts[pattern], key=_natural)
            records = [p for c in (first, *others) for p in overlay.pointers(c) if p in found]
            ordered[pattern] = (first, records, others)
    return list(ordered.values())


def _natural(pointer: str) -> list[tuple[int, str]]:
    return [(int(p), "") if p.isdigit() else (-1, p) for p in pointer.split("/")]
