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
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import Any, Protocol

from mcp_sim.prompting.constraints import Constraint
from mcp_sim.prompting.field_names import tokens
from mcp_sim.prompting.field_tables import FieldTables
from mcp_sim.prompting.link_kinds import Typed, kind_words, refers_to, typed_values
from mcp_sim.prompting.record_fields import (
    SELF,
    FieldInfo,
    FieldSchema,
    field_paths,
    path_reference,
)
from mcp_sim.runtime.state_paths import resolve
from mcp_sim.runtime.state_shape import Collection, normalize
from mcp_sim.runtime.typed_references import typed_reference

MOST_LINKS = 200
"""Links followed per call (the view shows those that fit, and says how many there are)."""
MOST_COUNTED = 5000
"""Links followed when the answer counts the links of each record reached (see
:meth:`LinkJoin.every_row`)."""
SAMPLED_LINKS = 40
"""Links whose fields are tried to find the one referring to the targets."""


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

    def every_row(self, state: Any) -> list[tuple[str, list[str]]]:
        """:attr:`rows` with those of the links found past them (at most
        :data:`MOST_COUNTED` in all): what counting each target's links needs."""
        room = max(0, MOST_COUNTED - len(self.rows))
        for pointer in self.pending[:room]:
            values = typed_values(resolve(state, pointer), self.reference, self.kinds)
            self.rows.append((pointer, _targets_of(self.keys, values, self.labels, self.targets)))
        self.pending = []
        return self.rows

    @property
    def target_pointers(self) -> list[str]:
        return list(dict.fromkeys(t for _, targets in self.rows for t in targets))


def reference_label(value: Any) -> str | None:
    """The key a value refers to: the id of a typed reference (``Patient/10234``), the last
    segment of a resource path, else the value."""
    typed = typed_reference(value)
    return normalize(typed[1]) if typed else path_reference(value) or normalize(value)


Keys = dict[str, dict[str, str]]
"""A target collection's keys (normalized) → its records with that key → the field path
holding it (``^``: the record's key in the collection)."""


def target_keys(tables: FieldTables, targets: Collection) -> Keys:
    """The keys of ``targets``' records in the starting state: their keys in the collection
    when it is keyed (an array's positions are no keys), and the values of each field no two
    records share; computed once per world."""
    cache = tables.index.derived.setdefault("link targets", {})
    found: Keys | None = cache.get(targets.pointer)
    if found is None:
        found = {}
        schema = tables.schema(targets)
        # A field holding the key names it before the record's key in the collection does.
        paths = sorted(schema.fields, key=lambda p: p == SELF)
        for path in paths:
            if not _keyish(targets, path, schema.fields[path]):
                continue
            for label, pointers in tables.label_index(targets, path).items():
                held = found.setdefault(label, {})
                for pointer in pointers:
                    held.setdefault(pointer, path)
        cache[targets.pointer] = found
    return found


_KEY_WORDS = frozenset({"id", "key", "uuid", "code", "number", "no", "ref", "slug"})


def _keyish(targets: Collection, path: str, info: FieldInfo) -> bool:
    """Whether a field of the targets holds keys: no two records share its values, and it
    is the records' key in a keyed collection, their id field or a field named like a key
    (a length, a name or the vehicle a driver drives, no two records alike, are no keys)."""
    if not info.unique:
        return False
    if path == SELF:
        return targets.keyed
    named = bool(set(tokens(path.rsplit("/", 1)[-1])) & _KEY_WORDS)
    return path == targets.id_field or named


def _targets_of(
    keys: Keys,
    values: Typed,
    given: set[str],
    targets: Collection,
    paths: Counter[str] | None = None,
) -> list[str]:
    """The targets ``values`` refer to, each unless it names another kind (``paths`` counts
    the target fields holding them)."""
    found: list[str] = []
    for value, kind in values:
        label = reference_label(value)
        # An argument's value names the record the links were found by, unless the
        # reference names the targets' kind (sailor 7's voyages on vessel 7).
        if label is None or (label in given and kind is None) or not refers_to(kind, targets):
            continue
        for pointer, path in sorted(keys.get(label, {}).items()):
            if pointer not in found:
                found.append(pointer)
                if paths is not None:
                    paths[path] += 1
    return found


def own_keys(tables: FieldTables, links: Collection) -> set[str]:
    """The links' own keys: their id field, and a field named just ``id`` that no two of
    them share (``node/id`` of an edge); a ``station_id`` is a reference even when no two
    links in the sample share it."""
    schema = tables.schema(links)
    bare = {p for p, info in schema.fields.items() if info.unique and _bare_id(schema, p)}
    return bare | {links.id_field or SELF}


def _bare_id(schema: FieldSchema, path: str) -> bool:
    """Whether ``path`` is a field named just ``id`` of the record itself, or of the object
    holding its fields (a GraphQL edge's ``node``), not of a reference (``station/id`` beside
    ``station/type``)."""
    parent, _, last = path.rpartition("/")
    if tokens(last) != ("id",):
        return False
    return not parent or sum(1 for p in schema.fields if p.startswith(parent + "/")) > 3


def _integral(value: Any) -> bool:
    """Whether a value is a whole number, or one written as text (``"78"``)."""
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, str) and value.isdigit())


def may_refer(path: str, values: list[Any], named: AbstractSet[str]) -> bool:
    """Whether a field can refer to the targets: one of whole numbers does only when its
    name says it holds keys or names the targets (``rider``, ``owner_no``), since any count
    or percentage (a battery's 0-100) lies in the range of numbered keys by chance; ``named``:
    the words of the targets' collection (no words: any name)."""
    if not named or not values or not all(map(_integral, values)):
        return True
    words = set(tokens(path.rsplit("/", 1)[-1]))
    return bool(words & (_KEY_WORDS | named))


def reference_field(
    keys: Keys,
    state: Any,
    links: list[str],
    given: set[str],
    targets: Collection,
    own: AbstractSet[str] = frozenset(),
    named: AbstractSet[str] = frozenset(),
    kinds: frozenset[str] = frozenset(),
) -> str | None:
    """The field path of the links whose values are keys of ``targets`` in most of a sample
    of them (at least half), else ``None`` (``named``: the words of the targets' collection,
    see :func:`may_refer`)."""
    hits: Counter[str] = Counter()
    sample = links[:SAMPLED_LINKS]
    for pointer in sample:
        record = resolve(state, pointer)
        for path, values in field_paths(record).items():
            # A link's own key agrees with a target's key only by chance (two collections'
            # numbered ``id``s): it is no reference.
            if path in own or not may_refer(path, values, named):
                continue
            if _targets_of(keys, typed_values(record, path, kinds), given, targets):
                hits[path] += 1
    if not hits:
        return None
    path, count = hits.most_common(1)[0]
    return path if count * 2 >= len(sample) else None


def follow(
    tables: FieldTables,
    state: Any,
    links: Collection,
    found: list[str],
    targets: Collection,
    given: set[str],
    constrained: tuple[str, ...] = (),
) -> LinkJoin | None:
    """The join from ``found`` (records of ``links``, in order) to the ``targets`` records
    they refer to, when most of them refer to one (``given``: the labels of the arguments'
    values, which name the record the links were found by, not a target)."""
    if not found or links.pointer == targets.pointer:
        return None
    keys = target_keys(tables, targets)
    own = own_keys(tables, links)
    named = set(tokens(targets.pointer))
    kinds = kind_words(tables.index.collections)
    path = reference_field(keys, state, found, given, targets, own, named, kinds)
    if path is None:
        return None
    rows: list[tuple[str, list[str]]] = []
    paths: Counter[str] = Counter()
    for pointer in found[:MOST_LINKS]:
        values = typed_values(resolve(state, pointer), path, kinds)
        rows.append((pointer, _targets_of(keys, values, given, targets, paths)))
    key = paths.most_common(1)[0][0]
    join = LinkJoin(links, targets, rows, len(found), path, key, constrained)
    join.pending, join.keys, join.labels = found[MOST_LINKS:], keys, given
    join.kinds = kinds
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
    found = [c for c in others if set(tokens(c.pointer.rsplit("/", 1)[-1])) & named]
    if inner:
        found += [c for c in others if c not in found and set(tokens(c.pointer)) & named]
    return found


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
    values = (normalize(v) for c in found.constraints for v in _listed(c.value))
    given = {v for v in values if v is not None}
    constrained = tuple(f for c in found.constraints for f in c.fields)
    for targets in named_collections(collections, named, searched, inner=True):
        join = follow(tables, state, found.collection, found.full, targets, given, constrained)
        if join is not None:
            join.found_by = "; ".join(c.describe() for c in found.constraints)
            return join
    return None


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
