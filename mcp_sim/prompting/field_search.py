"""Field-aware search: which records of a large state meet a call's constraints, ranked.

The call's arguments are read as constraints on one collection (see
:mod:`mcp_sim.prompting.constraints`); each record is tested on the fields each constraint
names, and the records are ranked by how many constraints they meet: every record meeting all
of them first (in the order the state holds them), then those meeting fewer. The fields of
the world's starting state are kept as columns per collection and path, built on first use
and shared by every session (a session's changed records are tested as they are now), so a
search scans lists of values instead of walking a multi-MB document.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterator
from typing import Any

from jsonpointer import unescape

from mcp_sim.prompting.changed_records import changed_terms, changed_values
from mcp_sim.prompting.constraints import Constraint, Reading
from mcp_sim.prompting.field_names import names_collection, read_argument, tokens
from mcp_sim.prompting.field_tables import (
    FieldTables,
    Places,
    held_values,
    own_terms,
    value_test,
)
from mcp_sim.prompting.joins import FEW_DIRECT, two_hop
from mcp_sim.prompting.kind_links import follow_kind
from mcp_sim.prompting.link_groups import asks_each_once
from mcp_sim.prompting.link_join import follow_links
from mcp_sim.prompting.link_kinds import holds, place_key
from mcp_sim.prompting.listed_in import listing_reading
from mcp_sim.prompting.named_keys import keyed_by_names
from mcp_sim.prompting.nested_records import (
    in_sequence,
    movement,
    narrowed,
    nested_entity,
    nested_hits,
)
from mcp_sim.prompting.parent_paths import searched_reading, through_parents
from mcp_sim.prompting.partitions import searched_partitions
from mcp_sim.prompting.reading_rank import names_one, rank_readings, refers
from mcp_sim.prompting.relevance import terms
from mcp_sim.prompting.scalar_arguments import scalar_arguments
from mcp_sim.prompting.search_hops import referring
from mcp_sim.prompting.search_result import SearchResult
from mcp_sim.prompting.tool_asks import asked_collections, asked_words, tool_words
from mcp_sim.prompting.value_fields import LEAST_WORD
from mcp_sim.prompting.value_labels import equal_labels
from mcp_sim.runtime.state_index import StateOverlay
from mcp_sim.runtime.state_paths import resolve
from mcp_sim.runtime.state_shape import Collection, normalize, record_pointer
from mcp_sim.spec.world import ToolSpec


def _said(tool: ToolSpec | None) -> tuple[str, str, dict[str, Any] | None]:
    return (tool.name, tool.description, tool.output_schema) if tool else ("", "", None)


def _named(tool: ToolSpec | None) -> tuple[set[str], set[str]]:
    """The words of a tool's name, and those of its name and its description's first
    sentence."""
    if tool is None:
        return set(), set()
    return set(tokens(tool.name)), tool_words(tool.name, tool.description)


def _natural(pointer: str) -> list[tuple[int, str]]:
    return [(int(p), "") if p.isdigit() else (-1, p) for p in pointer.split("/")]


def _linked_to(
    tool: ToolSpec | None, named: set[str], collection: str, arguments: dict[str, Any]
) -> set[str] | None:
    """The words of the collection the records found may be links to: the tool's name's,
    when it asks for a list (an owner's boats, not an order's user); ``None`` when a query's
    ``field:value`` names the records found (``is:pr`` of ``search_issues``): they are what
    it asks for."""
    if any(
        read_argument(name).op == "match" and names_collection(collection, value)
        for name, value in scalar_arguments(arguments)
    ):
        return None
    said = _said(tool)
    return named if (said[2] or {}).get("type") == "array" else named & asked_words(*said)


def _other_kinds(asked: set[str], found: str) -> set[str]:
    """Of the collections a tool asks a list of, those whose records are of another kind than
    those ``found`` (its last name's): another index's ``hits`` are not what a search of one
    index asks beside the hits it found."""
    own = tokens(found.rsplit("/", 1)[-1])
    return {p for p in asked if tokens(p.rsplit("/", 1)[-1]) != own}


def _loose(overlay: StateOverlay, arguments: dict[str, Any]) -> set[str]:
    """The arguments whose text no record holds whole nor is keyed by (``title_word=indigo``,
    ``author=Laine``): a value a record holds names that record, but one none holds may be a
    word inside values (see :func:`mcp_sim.prompting.constraints.read_collection`)."""
    found: set[str] = set()
    for name, value in scalar_arguments(arguments):
        label = normalize(value) if isinstance(value, str) else None
        if (
            label is not None
            and len(label) >= LEAST_WORD
            and not overlay.holders(label)
            and not overlay.key_hits(label)
        ):
            found.add(name)
    return found


MOST_PARTIAL = 200
"""Records meeting some constraints of a nested search kept, best first."""
LINKED_SEARCHES = 2
"""Collections searched for records linked to one an identifier names (its loans, its stock)."""
MOST_RANKED = 2000
"""Records a search's start-to-end order is tested on (each is walked)."""


class FieldSearch:
    """Runs a call's constraints over a session's state."""

    def __init__(self, overlay: StateOverlay, state: Any) -> None:
        self.overlay, self.state, self.tables = overlay, state, FieldTables.of(overlay.base)
        self.counted = False  # whether the tool's answer counts the records reached

    def search(self, tool: ToolSpec | None, arguments: dict[str, Any]) -> list[SearchResult]:
        """The ranked records the arguments select: of the collection they fit best, and
        when that names one record by an identifier (a member by ``member_no``), also of the
        collection whose fields name it (the member's loans); none when the arguments select
        nothing by field or only name records by key (a lookup)."""
        collections = self.overlay.base.collections
        self.counted = asks_each_once(tool)
        listing = listing_reading(self.tables, collections, tool, arguments)
        if listing is not None:  # the records whose array the description names list it
            return [self.run(self.collection(listing.collection), listing)]
        schemas = {c.pointer: self.tables.schema(c) for c in collections}
        named, told = _named(tool)
        ids = {c.pointer: c.id_field for c in collections}
        asked = asked_collections(*_said(tool), list(schemas)) if tool is not None else set()
        loose = _loose(self.overlay, arguments)
        readings, lookup = rank_readings(
            [*schemas.values()], arguments, named, ids, asked, told, loose
        )
        if not readings:
            return []
        first = searched_reading(readings, collections, arguments)
        # A path through a reference (``Account.Industry``) constrains the parent records.
        first = through_parents(
            first, schemas[first.collection], collections, schemas, arguments, self.run, self.keys
        )
        results = [self.run(self.collection(first.collection), first)]
        if lookup or names_one(first, schemas[first.collection]):
            # A lookup's readings are those that refer to the records it names already.
            linked = readings[1:] if lookup else [r for r in readings[1:] if refers(r)]
            chosen = linked[:LINKED_SEARCHES]
            results += [self.run(self.collection(r.collection), r) for r in chosen]
        listed = _linked_to(tool, named, first.collection, arguments)
        results += searched_partitions(collections, results, self.run)
        if listed is None or follow_links(self.tables, self.state, collections, results, listed):
            return results
        if follow_kind(self.tables, self.state, results, listed - set(tokens(first.collection))):
            return results  # a kind of its own records the tool asks for (an issue's epic)
        others = _other_kinds(asked, first.collection)
        hop = referring(self, results[0], others, {r.collection.pointer for r in results})
        return [hop, *results] if hop is not None else results

    def collection(self, pointer: str) -> Collection:
        return next(c for c in self.overlay.base.collections if c.pointer == pointer)

    def run(self, collection: Collection, reading: Reading) -> SearchResult:
        reading = keyed_by_names(self.overlay, self.tables, collection, reading)
        schema = self.tables.schema(collection)
        entity = nested_entity(schema, reading, self.tables.kinds, self.tables.records(collection))
        if entity is not None:
            return self.run_nested(collection, narrowed(reading, entity), entity)
        met: dict[str, int] = {}
        hits = [self.meeting(collection, c) for c in reading.constraints]
        for found in hits:
            for pointer in found:
                met[pointer] = met.get(pointer, 0) + 1
        position = self.tables.position(collection)
        order = sorted(met, key=lambda p: position.get(p, len(position)))
        wanted = len(reading.constraints)
        full = self.own_text_first(collection, reading, [p for p in order if met[p] == wanted])
        if len(full) > 1 and (ends := movement(reading)) is not None:
            full = in_sequence(self.state, ends, full[:MOST_RANKED]) + full[MOST_RANKED:]
        partial = sorted(((p, met[p]) for p in order if met[p] < wanted), key=lambda item: -item[1])
        result = SearchResult(collection, reading, full, partial)
        result.places = Places(self.tables, collection, self.overlay.changed)
        if len(full) < FEW_DIRECT and wanted > 1:

            def values(path: str, pointers: list[str]) -> list[tuple[str, list[Any]]]:
                return self.current(collection, path, pointers)

            result.join = two_hop(values, schema, reading, hits, order, full)
            if result.join is not None:
                result.full = result.join.records
        return result

    def own_text_first(
        self, collection: Collection, reading: Reading, pointers: list[str]
    ) -> list[str]:
        """``pointers`` with the records whose own text fields (a title, a summary) hold the
        words of the search's text constraints first: a search engine indexes those, and
        seldom every word of every nested part."""
        words = [terms(str(c.value)) for c in reading.constraints if c.op == "text"]
        if not words or len(pointers) < 2:
            return pointers
        shallow = self.tables.word_sets(collection, shallow=True)
        changed = self.overlay.changed

        def own(pointer: str) -> frozenset[str]:
            if pointer in changed:
                return own_terms(resolve(self.state, pointer))
            return shallow.get(pointer, frozenset())

        first = [p for p in pointers if all(w <= own(p) for w in words)]
        chosen = set(first)
        return first + [p for p in pointers if p not in chosen]

    def run_nested(self, collection: Collection, reading: Reading, entity: str) -> SearchResult:
        """The search on the ``entity`` records nested inside the collection's records."""
        changed = {p for p in self.overlay.changed if holds(self.overlay, collection.pointer, p)}

        def now() -> Iterator[tuple[str, Any]]:
            for pointer in changed:
                record = resolve(self.state, pointer)
                if record is not None:
                    yield pointer, record

        met: dict[str, int] = {}
        for constraint in reading.constraints:
            test = value_test(constraint)
            hits: set[str] = set()
            for path in constraint.fields:
                hits |= self.base_hits(collection, path, constraint, test, entity)
            if changed:
                hits = {h for h in hits if record_pointer(collection, h) not in changed}
            hits |= nested_hits(now, constraint, entity, test)
            for pointer in hits:
                met[pointer] = met.get(pointer, 0) + 1
        wanted = len(reading.constraints)
        full = sorted((p for p, n in met.items() if n == wanted), key=_natural)
        # A bound most nested records meet (grade ≥ 2) leaves tens of thousands of partial
        # matches: only the best few are ordered.
        partial: list[tuple[str, int]] = []
        for count in range(wanted - 1, 0, -1):
            room = MOST_PARTIAL - len(partial)
            if room <= 0:
                break
            bucket = [p for p, n in met.items() if n == count]
            partial += [(p, count) for p in heapq.nsmallest(room, bucket)]
        return SearchResult(collection, reading, full, partial, nested=entity)

    def meeting(self, collection: Collection, constraint: Constraint) -> set[str]:
        """The records of ``collection`` (as they are now) meeting ``constraint``."""
        changed = self.overlay.changed
        hits: set[str] = set()
        if constraint.op == "text":
            wanted = terms(str(constraint.value))
            for pointer, words in self.tables.word_sets(collection).items():
                if pointer not in changed and wanted <= words:
                    hits.add(pointer)
            for pointer, words in changed_terms(self.overlay, self.state, collection.pointer):
                if wanted <= words:
                    hits.add(pointer)
            return hits
        test = value_test(constraint)
        for path in constraint.fields:
            hits |= self.base_hits(collection, path, constraint, test) - changed.keys()
            now = changed_values(self.overlay, self.state, collection.pointer, path)
            for pointer, values in now:
                if any(test(v) for v in values):
                    hits.add(pointer)
        return hits

    def base_hits(
        self,
        collection: Collection,
        path: str,
        constraint: Constraint,
        test: Callable[[Any], bool],
        entity: str = "",
    ) -> set[str]:
        """The records (or nested ``entity`` records) of the starting state meeting
        ``constraint`` at ``path``."""
        if constraint.op == "eq":
            index = self.tables.label_index(collection, path, entity)
            found: set[str] = set()
            for label in equal_labels(constraint.value):
                found |= index.get(label, set())
            return found
        if constraint.op in ("min", "max"):
            ordered = self.tables.ordered(collection, path, entity)
            bounded = ordered.bounded(constraint.op, constraint.value, constraint.argument)
            if bounded is not None:
                return bounded
        column = self.tables.column(collection, path, entity)
        return {p for p, values in column if any(map(test, values))}

    def current(
        self, collection: Collection, path: str, pointers: list[str]
    ) -> list[tuple[str, list[Any]]]:
        """``(pointer, values at path)`` for ``pointers`` (records of ``collection``) as they
        are now, in the order given."""
        wanted = set(pointers)
        changed = self.overlay.changed
        found = {
            p: v
            for p, v in self.tables.column(collection, path)
            if p in wanted and p not in changed
        }
        for pointer in wanted - found.keys():
            facts = changed.get(pointer)
            if facts is not None:
                record = resolve(self.state, pointer)
                found[pointer] = held_values(facts.key, record, path)
        return [(p, found[p]) for p in pointers if p in found]

    def keys(self, collection: Collection, pointers: list[str]) -> dict[str, str]:
        """Each record's key: its id field's value, else its place in the collection."""
        if collection.id_field is None:
            return {p: place_key(self.overlay, collection, p) for p in pointers}
        ids = self.current(collection, collection.id_field, pointers)
        return {p: str(v[0]) if v else unescape(p.rsplit("/", 1)[-1]) for p, v in ids}
