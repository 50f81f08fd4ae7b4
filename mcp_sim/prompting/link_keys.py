"""Keys that links refer to: which fields of a collection hold its records' keys, how a
link's value names one (a plain id, a nested ``{"id": ...}``, a typed ``Patient/10234``, a
resource path ``/boats/BT-7``, a composite ``MEMBER#1042``), and which field of the links
holds such references (see :mod:`mcp_sim.prompting.link_join`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Set as AbstractSet
from typing import Any

from mcp_sim.prompting.field_names import tokens
from mcp_sim.prompting.field_tables import FieldTables
from mcp_sim.prompting.link_kinds import Typed, refers_to, typed_values
from mcp_sim.prompting.record_fields import (
    SELF,
    FieldInfo,
    FieldSchema,
    field_paths,
    path_reference,
)
from mcp_sim.prompting.schema_links import declares
from mcp_sim.runtime.composite_keys import composite_reference
from mcp_sim.runtime.state_paths import resolve
from mcp_sim.runtime.state_shape import Collection, normalize
from mcp_sim.runtime.typed_references import typed_reference

SAMPLED_LINKS = 40
"""Links whose fields are tried to find the one referring to the targets."""


def reference_label(value: Any) -> str | None:
    """The key a value refers to: the id of a typed reference (``Patient/10234``) or of a
    composite key of a type and an id (``MEMBER#1042``), the last segment of a resource
    path, else the value."""
    typed = typed_reference(value) or composite_reference(value)
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
        for path in key_fields(tables, targets):
            for label, pointers in tables.label_index(targets, path).items():
                held = found.setdefault(label, {})
                for pointer in pointers:
                    held.setdefault(pointer, path)
        cache[targets.pointer] = found
    return found


def key_fields(tables: FieldTables, collection: Collection) -> list[str]:
    """The field paths of ``collection`` that hold its records' keys (see :func:`_keyish`),
    a field holding the key before the record's key in the collection (``^``), which such
    a field names."""
    schema = tables.schema(collection)
    paths = sorted(schema.fields, key=lambda p: p == SELF)
    keyed = collection.keyed or not _positional(tables, collection)
    return [p for p in paths if _keyish(collection, p, schema.fields[p], keyed)]


_SAMPLED_KEYS = 20


def _positional(tables: FieldTables, collection: Collection) -> bool:
    """Whether an array's records are known by their positions only: a record whose key
    is its own (a composite ``LOCOMOTIVES#1000`` of a single table's kind) is referred to
    by it, a position is not."""
    index = tables.label_index(collection, SELF)
    sample = list(index.items())[:_SAMPLED_KEYS]
    held = sum(1 for label, pointers in sample if label in {p.rsplit("/", 1)[-1] for p in pointers})
    return not sample or held * 2 >= len(sample)


_KEY_WORDS = frozenset({"id", "key", "uuid", "code", "number", "no", "ref", "slug"})


def _keyish(targets: Collection, path: str, info: FieldInfo, keyed: bool) -> bool:
    """Whether a field of the targets holds keys: no two records share its values, and it
    is the records' key where that is no position (``keyed``), their id field or a field
    named like a key (a length, a name or the vehicle a driver drives, no two records
    alike, are no keys)."""
    if not info.unique:
        return False
    if path == SELF:
        return keyed
    named = bool(set(tokens(path.rsplit("/", 1)[-1])) & _KEY_WORDS)
    return path == targets.id_field or named


def targets_of(
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
    declared: AbstractSet[str] = frozenset(),
) -> str | None:
    """The field path of the links whose values are keys of ``targets`` in most of a sample
    of them (at least half), else ``None`` (``named``: the words of the targets' collection,
    see :func:`may_refer`); of those, one a schema ``declared`` to refer to the targets (see
    :mod:`mcp_sim.prompting.schema_links`) first, whatever its name."""
    hits: Counter[str] = Counter()
    sample = links[:SAMPLED_LINKS]
    for pointer in sample:
        record = resolve(state, pointer)
        for path, values in field_paths(record).items():
            # A link's own key agrees with a target's key only by chance (two collections'
            # numbered ``id``s): it is no reference.
            stated = declares(path, set(declared))
            if path in own or not (stated or may_refer(path, values, named)):
                continue
            if targets_of(keys, typed_values(record, path, kinds), given, targets):
                hits[path] += 1
    if not hits:
        return None
    best = [(n, p) for p, n in hits.items() if declares(p, set(declared))]
    count, path = max(best) if best else (hits.most_common(1)[0][1], hits.most_common(1)[0][0])
    return path if count * 2 >= len(sample) else None
