"""The collections of a state with each mixed array split into one collection per kind.

:func:`mcp_sim.runtime.state_shape.find_collections` finds an array of records as one
collection; when its records are of several kinds told apart by a field (see
:mod:`mcp_sim.runtime.mixed_collections`), each kind is a collection of its own, keyed by its
own id field (ids repeat across kinds). An event log's events have kinds too, but they are the
changes of one entity's record, which :mod:`mcp_sim.runtime.event_fold` folds: a log stays
whole.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Any

from mcp_sim.runtime.event_log import event_log_at
from mcp_sim.runtime.mixed_collections import kind_pointer, kinds_of
from mcp_sim.runtime.record_ids import id_field_of
from mcp_sim.runtime.state_paths import resolve
from mcp_sim.runtime.state_shape import Collection


def split_kinds(collections: Sequence[Collection], state: Any) -> list[Collection]:
    """``collections`` with each mixed array's replaced by one per kind, in pointer order."""
    found: list[Collection] = []
    for collection in collections:
        found.extend(_kinds(collection, state))
    return sorted(found, key=lambda c: c.pointer)


def _kinds(collection: Collection, state: Any) -> Iterator[Collection]:
    plain = not (
        collection.keyed
        or collection.table
        or collection.keys
        or collection.pages
        or collection.inner
        or collection.entity
    )
    items = resolve(state, collection.pointer) if plain else None
    kinds = kinds_of(items) if isinstance(items, list) else []
    if not kinds or event_log_at(collection, state) is not None:
        yield collection
        return
    assert isinstance(items, list)
    for kind in kinds:
        records = [resolve(item, kind.inner) for item in items if kind.holds(item)]
        yield replace(
            collection,
            pointer=kind_pointer(collection.pointer, kind),
            id_field=id_field_of(records),
            size=len(records),
            inner=kind.inner,
            kind=kind,
        )
