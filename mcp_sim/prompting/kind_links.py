"""Joins within one collection: the records a search found, each followed by the record of
the same collection it refers to, when the tool asks for a kind of record that a field's
value names rather than a collection.

``assignee_epics(assignee)`` over Jira issues: the arguments find the person's issues, and
the answer lists the epics they belong to. Epics are issues too (``issuetype/name`` =
``Epic``), and each issue names its epic by key (``customfield_10014`` = ``"MOB-1"``): no
collection is named ``epics`` for :func:`~mcp_sim.prompting.link_join.follow_links` to
follow the issues to. So when a word the tool asks a list of (``epics``) is a value of a
field of few values of the records found (a kind, a type, a category), the records found are
followed, as links, to the records of their own collection they refer to: by the field
(other than the records' own keys) whose values are keys of its records in most of them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from mcp_sim.prompting.field_names import tokens
from mcp_sim.prompting.field_tables import FieldTables
from mcp_sim.prompting.link_join import MOST_LINKS, LinkJoin, Searched
from mcp_sim.prompting.link_keys import (
    Keys,
    key_fields,
    may_refer,
    own_keys,
    reference_label,
    target_keys,
    targets_of,
)
from mcp_sim.prompting.link_kinds import kind_words, typed_values
from mcp_sim.prompting.record_fields import ENUM_MOST, FieldSchema, values_at
from mcp_sim.runtime.state_paths import resolve
from mcp_sim.runtime.state_shape import Collection, normalize

SAMPLED = 20
"""Records found whose fields are tried to find the one referring to records of the kind
asked for (a join within a collection is tried on every search naming a kind)."""


def kind_fields(schema: FieldSchema, words: set[str]) -> dict[str, set[str]]:
    """The fields of few values of ``schema``'s records one of whose values is one of
    ``words`` (those a tool asks a list of: ``Epic`` of ``issuetype/name``), each with those
    values."""
    found: dict[str, set[str]] = {}
    for path, info in schema.fields.items():
        if not 2 <= len(info.distinct) <= ENUM_MOST or info.kind not in ("string", "text"):
            continue
        named = {value for value in info.originals if set(tokens(value)) & words}
        if named:
            found[path] = named
    return found


def _of_kind(state: Any, pointer: str, kinds: dict[str, set[str]]) -> bool:
    """Whether the record at ``pointer`` is of a kind asked for (see :func:`kind_fields`)."""
    record = resolve(state, pointer)
    return any(
        value in named for path, named in kinds.items() for _, value in values_at(record, path)
    )


def follow_kind(
    tables: FieldTables, state: Any, results: Sequence[Searched], words: set[str]
) -> bool:
    """Sets the first result's :attr:`through` to the join from its records to those of
    their own collection they refer to, when the tool asks for a kind their field names (see
    the module); whether one was."""
    for result in results:
        if not result.full or result.join is not None or result.nested is not None:
            continue
        collection = result.collection
        asked = kind_fields(tables.schema(collection), words)
        if not asked:
            continue
        keys = target_keys(tables, collection)
        # A record's own keys name itself, not the record it refers to.
        own = set(key_fields(tables, collection)) | own_keys(tables, collection)
        given = {
            label
            for c in result.constraints
            for v in (c.value if isinstance(c.value, list) else [c.value])
            if (label := normalize(v)) is not None
        }
        kinds = kind_words(tables.index.collections)
        refers = _Refers(keys, given, collection, kinds, asked)
        path = _reference(refers, state, result.full, _candidates(tables, refers, own))
        if path is None:
            continue
        constrained = tuple(f for c in result.constraints for f in c.fields)
        join = LinkJoin(collection, collection, [], len(result.full), path, "", constrained)
        join.keys, join.labels, join.kinds = keys, given, kinds
        paths: Counter[str] = Counter()
        join.rows = [(p, join.reach(state, p, paths)) for p in result.full[:MOST_LINKS]]
        join.target_key = paths.most_common(1)[0][0] if paths else ""
        join.pending = result.full[MOST_LINKS:]
        join.found_by = "; ".join(c.describe() for c in result.constraints)
        result.through = join
        return True
    return False


@dataclass(frozen=True)
class _Refers:
    """What a reference to a record of the asked kind is: a key of the collection, not one
    of the arguments' values, naming no other kind, of a record of the kind asked for."""

    keys: Keys
    given: set[str]
    collection: Collection
    kinds: frozenset[str]
    asked: dict[str, set[str]]

    def targets(self, state: Any, record: Any, path: str) -> list[str]:
        values = typed_values(record, path, self.kinds)
        found = targets_of(self.keys, values, self.given, self.collection)
        return [t for t in found if _of_kind(state, t, self.asked)]


def _candidates(tables: FieldTables, refers: _Refers, own: set[str]) -> list[str]:
    """The field paths of the collection some sampled value of which refers to one of its
    keys (the others never do): computed once per world."""
    cache = tables.index.derived.setdefault("kind link fields", {})
    found: list[str] | None = cache.get(refers.collection.pointer)
    if found is None:
        schema = tables.schema(refers.collection)
        found = [
            path
            for path, info in schema.fields.items()
            if any(reference_label(v) in refers.keys for v in info.distinct)
        ]
        cache[refers.collection.pointer] = found
    return [path for path in found if path not in own]


def _reference(refers: _Refers, state: Any, links: list[str], paths: list[str]) -> str | None:
    """The field path (of ``paths``) of the records found whose values are keys of other
    records of the kind asked for in most of a sample of them (at least half): a value naming
    the record itself (its ``self`` URL) refers to no other, and whole numbers refer only
    under a name of keys (a status's id ``10001`` equals an issue's by chance; see
    :func:`may_refer`). Keys written with letters (``MOB-1``) say more than numbers, which ids
    of any kind share."""
    hits: Counter[str] = Counter()
    lettered: Counter[str] = Counter()
    named = set(tokens(refers.collection.pointer))
    sample = links[:SAMPLED]
    for pointer in sample:
        record = resolve(state, pointer)
        for path in paths:
            values = [v for _, v in values_at(record, path)]
            labels = {reference_label(v) for v in values} & refers.keys.keys()
            if not labels or not may_refer(path, values, named):
                continue
            if any(t != pointer for t in refers.targets(state, record, path)):
                hits[path] += 1
                lettered[path] += any(not label.isdigit() for label in labels if label)
    enough = [p for p, n in hits.items() if n * 2 >= len(sample)]
    return max(enough, key=lambda p: (lettered[p], hits[p]), default=None)
