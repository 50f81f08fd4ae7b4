"""Joins through link records: the records a call asks for, reached through the records its
arguments find.

``boats_of_owner(owner_id)``, where charters refer to an owner and to a boat: the arguments
find the owner's charters (the *links*); the answer lists the boats they refer to (the
*targets*), often with something of each link (its date). A link refers to its target by the
target's key, however it is written: a plain id, a nested ``{"id": ...}``, a typed
``{"type": ..., "id": ...}`` or a resource path (``/boats/BT-7``). A target's key is its key in
the collection (of a collection keyed by id) or the value of a field that tells its records
apart (``node/station_id`` of a GraphQL edge); the links' field that refers to targets is the
one whose values are such keys in most links (a link's other numbers may
equal some keys by chance). The view (see :mod:`mcp_sim.prompting.link_rows`) shows each link
followed by the records it refers to, in the links' order, so that each reads as a row of the
answer.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from mcp_sim.prompting.constraints import Constraint
from mcp_sim.prompting.field_names import tokens
from mcp_sim.prompting.field_tables import FieldTables
from mcp_sim.prompting.link_chains import Middle, middle_of, reached_through
from mcp_sim.prompting.link_keys import (
    Keys,
    own_keys,
    reference_field,
    target_keys,
    targets_of,
)
from mcp_sim.prompting.link_kinds import kind_words, typed_values
from mcp_sim.prompting.partitions import partition_pattern
from mcp_sim.prompting.schema_links import declared_fields
from mcp_sim.runtime.state_paths import resolve
from mcp_sim.runtime.state_shape import Collection, normalize

MOST_LINKS = 200
"""Links followed per call (the view shows those that fit, and says how many there are)."""
MOST_COUNTED = 5000
"""Links followed when the answer counts the links of each record reached (see
:meth:`LinkJoin.every_row`)."""


@dataclass
class LinkJoin:
    """Links found by a call's arguments and the target records each refers to."""

    links: Collection
    targets: Collection
    rows: list[tuple[str, list[str]]]
    """``(link pointer, target pointers)`` in the links' order."""
    total: int
    """Links found (more than :attr:`rows` holds when over :data:`MOST_LINKS`)."""
    reference: str
    """The links' field path holding the targets' keys."""
    target_key: str
    """The targets' field path holding those keys (``^``: their keys in the collection)."""
    given: tuple[str, ...]
    """The links' field paths the arguments constrain (the reference to the argument's
    record): not worth repeating on every row."""
    found_by: str = ""
    """What the arguments were read as (``owner/id = "OW-7"``)."""
    pending: list[str] = field(default_factory=list)
    """Links found past :data:`MOST_LINKS`: followed only when each counts."""
    keys: Keys = field(default_factory=dict)
    labels: set[str] = field(default_factory=set)
    """The labels of the arguments' values (no target is one)."""
    kinds: frozenset[str] = frozenset()
    """The kinds of record the state holds (a reference naming another is none of these)."""
    partitions: list[str] = field(default_factory=list)
    """The other partitions of :attr:`links` whose links the rows hold too."""
    middle: Middle | None = None
    """The records in between, when the links refer to the targets through them."""

    def reach(self, state: Any, pointer: str, paths: Counter[str] | None = None) -> list[str]:
        """The targets the link at ``pointer`` refers to (``paths`` counts the target
        fields holding their keys)."""
        record = resolve(state, pointer)
        if self.middle is not None:
            return reached_through(
                state,
                record,
                self.reference,
                self.middle,
                self.keys,
                self.labels,
                self.targets,
                self.kinds,
                paths,
            )
        values = typed_values(record, self.reference, self.kinds)
        return targets_of(self.keys, values, self.labels, self.targets, paths)

    def every_row(self, state: Any) -> list[tuple[str, list[str]]]:
        """:attr:`rows` with those of the links found past them (at most
        :data:`MOST_COUNTED` in all): what counting each target's links needs."""
        room = max(0, MOST_COUNTED - len(self.rows))
        self.rows += [(pointer, self.reach(state, pointer)) for pointer in self.pending[:room]]
        self.pending = []
        return self.rows

    @property
    def referred_by(self) -> str:
        """The links' field referring to the targets, or to the records in between."""
        middle = self.middle
        if middle is None:
            return self.reference
        return f"{self.reference} to {middle.collection.pointer}, whose {middle.onward} refers"

    @property
    def links_named(self) -> str:
        """Where the links are: their collection, and how many other partitions of it."""
        more = len(self.partitions)
        if not more:
            return self.links.pointer
        return f"{self.links.pointer} and {more} other partition{'s' if more > 1 else ''} of it"

    @property
    def target_pointers(self) -> list[str]:
        return list(dict.fromkeys(t for _, targets in self.rows for t in targets))


def follow(
    tables: FieldTables,
    state: Any,
    links: Collection,
    found: list[str],
    targets: Collection,
    given: set[str],
    constrained: tuple[str, ...] = (),
    *,
    through: bool = False,
) -> LinkJoin | None:
    """The join from ``found`` (records of ``links``, in order) to the ``targets`` records
    they refer to, when most of them refer to one (``given``: the labels of the arguments'
    values, which name the record the links were found by, not a target); ``through``:
    else to those the records they refer to refer to (see
    :mod:`mcp_sim.prompting.link_chains`)."""
    if not found or links.pointer == targets.pointer:
        return None
    keys = target_keys(tables, targets)
    own = own_keys(tables, links)
    named = set(tokens(targets.pointer))
    kinds = kind_words(tables.index.collections)
    declared = declared_fields(tables.index, links.pointer, targets.pointer)
    path = reference_field(keys, state, found, given, targets, own, named, kinds, declared)
    middle: Middle | None = None
    if path is None and through:
        chained = middle_of(tables, state, links, found, targets, given, kinds)
        path, middle = chained if chained is not None else (None, None)
    if path is None:
        return None
    join = LinkJoin(links, targets, [], len(found), path, "", constrained, middle=middle)
    join.keys, join.labels, join.kinds = keys, given, kinds
    paths: Counter[str] = Counter()
    join.rows = [(p, join.reach(state, p, paths)) for p in found[:MOST_LINKS]]
    join.target_key = paths.most_common(1)[0][0] if paths else ""
    join.pending = found[MOST_LINKS:]
    return join


class Found(Protocol):
    """What a search found: the records of one collection meeting its constraints."""

    @property
    def collection(self) -> Collection: ...
    @property
    def full(self) -> list[str]: ...
    @property
    def constraints(self) -> tuple[Constraint, ...]: ...


class Searched(Found, Protocol):
    """A search's result as :func:`follow_links` reads and completes it."""

    through: LinkJoin | None

    @property
    def join(self) -> object | None: ...
    @property
    def nested(self) -> str | None: ...


def named_collections(
    collections: Iterable[Collection], named: set[str], searched: set[str], *, inner: bool = False
) -> list[Collection]:
    """The collections a tool's name names (``depot_drivers``: the drivers; ``named``: the
    words of its name), other than those ``searched`` already; ``inner``: then those a part
    of whose pointer it names (the ``/drivers/edges`` of a GraphQL export, the
    ``/drivers/rows`` of a table)."""
    others = [c for c in collections if c.pointer not in searched]
    found = [c for c in others if collection_words(c) & named]
    if inner:
        found += [c for c in others if c not in found and set(tokens(c.pointer)) & named]
    return found


def said_collections(
    collections: Iterable[Collection], said: set[str], besides: Iterable[Collection]
) -> list[Collection]:
    """The ``collections`` that a description (``said``: its words) names by a word of
    their pointers (or of the field their pages hold them in) that the pointers of
    ``besides`` do not share: ``/LOANS/value`` by "loans", while ``value``, ``Resources`` or
    ``api`` name no collection."""
    shared = {w for c in besides for w in tokens(c.pointer)}
    return [
        c for c in collections if (set(tokens(c.pointer)) | collection_words(c)) - shared & said
    ]


def collection_words(collection: Collection) -> set[str]:
    """The words a collection's records are called by: the last part of its pointer, and
    the field each member holds them in when its members are pages (accounts holding their
    ``locomotives``: the locomotives, filed by account)."""
    words = set(tokens(collection.pointer.rsplit("/", 1)[-1]))
    return words | set(tokens(collection.pages)) if collection.pages else words


def join_named(
    tables: FieldTables,
    state: Any,
    collections: Iterable[Collection],
    found: Found,
    named: set[str],
    searched: set[str],
) -> LinkJoin | None:
    """The join from the records ``found`` to those of the collection the tool names that
    most of them refer to (an owner's charters to their boats), if any."""
    given = _given(found)
    # Only a field an equality fixes is the same on every row; a bounded one differs.
    constrained = tuple(
        c.fields[0]
        for c in found.constraints
        if c.op in ("eq", "is") and len(c.fields) == 1 and not isinstance(c.value, list)
    )
    for targets in named_collections(collections, named, searched, inner=True):
        join = follow(
            tables, state, found.collection, found.full, targets, given, constrained, through=True
        )
        if join is not None:
            join.found_by = "; ".join(c.describe() for c in found.constraints)
            return join
    return None


def _given(found: Found) -> set[str]:
    values = (normalize(v) for c in found.constraints for v in _listed(c.value))
    return {v for v in values if v is not None}


def _joined_partitions(
    tables: FieldTables, state: Any, join: LinkJoin, found: Found, results: Sequence[Searched]
) -> None:
    """Adds to ``join`` the links found in the other partitions of its links' collection
    (see :mod:`mcp_sim.prompting.partitions`): a guest's stays filed one array a month are
    one guest's stays, each referring to its room."""
    pattern = partition_pattern(found.collection.pointer)
    if pattern == found.collection.pointer:
        return
    for other in results:
        same = partition_pattern(other.collection.pointer) == pattern and other is not found
        if not same or not other.full or other.join is not None or other.nested is not None:
            continue
        more = follow(tables, state, other.collection, other.full, join.targets, _given(other))
        if more is None or more.reference != join.reference:
            continue
        room = max(0, MOST_LINKS - len(join.rows))
        join.rows += more.rows[:room]
        join.pending += [p for p, _ in more.rows[room:]] + more.pending
        join.total += more.total
        join.partitions.append(other.collection.pointer)
        other.through = join


def _listed(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def follow_links(
    tables: FieldTables,
    state: Any,
    collections: Iterable[Collection],
    results: Sequence[Searched],
    named: set[str],
) -> bool:
    """Sets the first result's :attr:`SearchResult.through` whose records are links to the
    collection the tool names (``named``: the words of its name); whether one was."""
    for result in results:
        if not result.full or result.join is not None or result.nested is not None:
            continue
        # The first search may name the record the links refer to (a guest by id).
        # The collection the tool names may have been searched by chance (a grower's id
        # read as a bed's humidity): only the links' own is no target.
        own = {result.collection.pointer}
        through = join_named(tables, state, collections, result, named, own)
        if through is not None and not _found_directly(results, through.targets, result):
            result.through = through
            _joined_partitions(tables, state, through, result, results)
            return True
    return False


def _found_directly(results: Sequence[Found], targets: Collection, links: Found) -> bool:
    """Whether a search of the targets themselves meets more of the arguments than the
    links do (``find_bikes(model, station)``: the bikes at the station, not the rides from
    it): the links are then a side match, not the way to the records asked for."""
    return any(
        r.collection.pointer == targets.pointer
        and r.full
        and len(r.constraints) > len(links.constraints)
        for r in results
    )
