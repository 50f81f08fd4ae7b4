"""Links that reach the records a call asks for through records in between.

``routes_for_stop(stop_id)`` over a GTFS feed: the stop's stop times name trips, and the
trips name the routes the answer lists; no stop time names a route. When no field of the
links holds the targets' keys, the collection whose keys one of their fields holds (the
*middle*: the trips) is tried in turn: when most of the middle records the links reach refer
to targets, each link reaches the targets of its middle records, and the view shows it as
it shows a link referring to them itself (see :mod:`mcp_sim.prompting.link_rows`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from mcp_sim.prompting.field_names import tokens
from mcp_sim.prompting.field_tables import FieldTables
from mcp_sim.prompting.link_keys import (
    SAMPLED_LINKS,
    Keys,
    may_refer,
    own_keys,
    reference_field,
    reference_label,
    target_keys,
    targets_of,
)
from mcp_sim.prompting.link_kinds import typed_values
from mcp_sim.prompting.record_fields import field_paths
from mcp_sim.runtime.state_paths import resolve
from mcp_sim.runtime.state_shape import Collection


@dataclass(frozen=True)
class Middle:
    """The records in between: their collection and keys, and their field referring to
    the targets."""

    collection: Collection
    keys: Keys
    onward: str


def middle_of(
    tables: FieldTables,
    state: Any,
    links: Collection,
    found: list[str],
    targets: Collection,
    given: set[str],
    kinds: frozenset[str],
) -> tuple[str, Middle] | None:
    """The links' field referring to records that refer to ``targets`` in turn, and those
    records' collection, when most of the links sampled do; else ``None``."""
    sample = [(p, resolve(state, p)) for p in found[:SAMPLED_LINKS]]
    own = own_keys(tables, links)
    # Each sampled link's fields, with the keys their values name: read once for every
    # collection tried.
    fields = [_labelled(record, own) for _, record in sample]
    keys = target_keys(tables, targets)
    for middle in _others(tables.index.collections, links, targets):
        middle_keys = target_keys(tables, middle)
        path = _referring_path(middle_keys, sample, fields, given, middle, kinds)
        if path is None:
            continue
        reached = dict.fromkeys(
            m
            for _, record in sample
            for m in targets_of(middle_keys, typed_values(record, path, kinds), given, middle)
        )
        onward = reference_field(
            keys,
            state,
            list(reached),
            given,
            targets,
            own_keys(tables, middle),
            set(tokens(targets.pointer)),
            kinds,
        )
        if onward is not None:
            return path, Middle(middle, middle_keys, onward)
    return None


def _others(
    collections: Iterable[Collection], links: Collection, targets: Collection
) -> list[Collection]:
    return [c for c in collections if c.pointer not in (links.pointer, targets.pointer)]


Labelled = dict[str, tuple[list[Any], set[str]]]
"""A record's field paths → the values there and the keys they name."""


def _labelled(record: Any, own: set[str]) -> Labelled:
    found: Labelled = {}
    for path, values in field_paths(record).items():
        if path not in own:
            labels = {label for label in map(reference_label, values) if label is not None}
            found[path] = (values, labels)
    return found


def _referring_path(
    keys: Keys,
    sample: list[tuple[str, Any]],
    fields: list[Labelled],
    given: set[str],
    middle: Collection,
    kinds: frozenset[str],
) -> str | None:
    """The links' field naming records of ``middle`` in at least half the sample."""
    if not keys:
        return None
    named = set(tokens(middle.pointer))
    hits: Counter[str] = Counter()
    for (_, record), labelled in zip(sample, fields, strict=True):
        for path, (values, labels) in labelled.items():
            if not labels & keys.keys() or not may_refer(path, values, named):
                continue
            if targets_of(keys, typed_values(record, path, kinds), given, middle):
                hits[path] += 1
    if not hits:
        return None
    path, count = hits.most_common(1)[0]
    return path if count * 2 >= len(sample) else None


def reached_through(
    state: Any,
    record: Any,
    path: str,
    middle: Middle,
    target_keys: Keys,
    given: set[str],
    targets: Collection,
    kinds: frozenset[str],
    paths: Counter[str] | None = None,
) -> list[str]:
    """The targets a link reaches through the middle records its field ``path`` names
    (``paths`` counts the target fields holding their keys)."""
    found: dict[str, None] = {}
    values = typed_values(record, path, kinds)
    for pointer in targets_of(middle.keys, values, given, middle.collection):
        onward = typed_values(resolve(state, pointer), middle.onward, kinds)
        found.update(dict.fromkeys(targets_of(target_keys, onward, given, targets, paths)))
    return list(found)
