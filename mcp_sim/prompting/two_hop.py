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
    reference_field,
    target_keys,
)
from mcp_sim.prompting.link_kinds import kind_words
from mcp_sim.prompting.link_rows import LinkRows, answer_words
from mcp_sim.prompting.link_values import answer_lists
from mcp_sim.prompting.search_result import SearchResult
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
    labels = _start_labels(overlay, state, own, starts)
    named = set(tokens(tool.name))
    kinds = kind_words(tables.index.collections)
    collections = tables.index.collections
    for targets in named_collections(collections, named, {own.pointer, *searched}, inner=True):
        keys = target_keys(tables, targets)
        # Starting records that refer to the targets themselves are joined in one hop.
        if reference_field(keys, state, list(starts), labels, targets, kinds=kinds):
            return None
        for links, found in _referring(overlay, labels, {own.pointer, targets.pointer}):
            join = follow(tables, state, by_pointer[links], found, targets, labels)
            if join is not None:
                join.found_by = f"a reference to {', '.join(starts)}"
                return join
    return None


def _collection_of(overlay: StateOverlay, pointer: str) -> str:
    facts = overlay.facts(pointer)
    return facts.collection if facts is not None else ""


def _start_labels(
    overlay: StateOverlay, state: Any, own: Collection, starts: Sequence[str]
) -> set[str]:
    """The keys the starting records are referred to by: their keys in the collection and
    the values of its id field."""
    labels: set[str] = set()
    for pointer in starts:
        facts = overlay.facts(pointer)
        record = resolve(state, pointer)
        values = [facts.key if facts is not None and own.keyed else None]
        if own.id_field is not None and isinstance(record, dict):
            values.append(record.get(own.id_field))
        labels.update(label for label in map(normalize, values) if label is not None)
    return labels


def _referring(
    overlay: StateOverlay, labels: set[str], excluded: set[str]
) -> list[tuple[str, list[str]]]:
    """The collections whose records hold one of ``labels``, each with those records (in
    document order), those holding them at one field most often first."""
    held: dict[tuple[str, str], list[str]] = {}
    for label in sorted(labels):
        for pointer, inner in overlay.value_hits(label).items():
            collection = _collection_of(overlay, pointer)
            if collection and collection not in excluded:
                held.setdefault((collection, _INDEX.sub("", inner)), []).append(pointer)
    counts = Counter({key: len(found) for key, found in held.items()})
    ordered: dict[str, list[str]] = {}
    for (collection, path), _count in counts.most_common():
        if collection not in ordered:
            found = set(held[(collection, path)])
            ordered[collection] = [p for p in overlay.pointers(collection) if p in found]
    return list(ordered.items())
