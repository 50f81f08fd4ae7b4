"""The collections of a state with each mixed array split into one collection per kind.

:func:`mcp_sim.runtime.state_collections.find_collections` finds an array of records as one
collection; when its records are of several kinds told apart by a field (see
:mod:`mcp_sim.runtime.mixed_collections`), each kind is a collection of its own, keyed by its
own id field (ids repeat across kinds). An event log's events have kinds too, but they are the
changes of one entity's record, which :mod:`mcp_sim.runtime.event_fold` folds: a log stays
whole.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Any

from mcp_sim.runtime.composite_keys import composite_id
from mcp_sim.runtime.event_log import event_log_at
from mcp_sim.runtime.mixed_collections import array_pointer, item_pointer, kind_pointer, kinds_of
from mcp_sim.runtime.record_ids import id_field_of
from mcp_sim.runtime.state_paths import resolve
from mcp_sim.runtime.state_shape import Collection, RecordFacts


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
        or collection.kind
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
            id_field=_id_field(records),
            size=len(records),
            inner=kind.inner,
            kind=kind,
        )


def _id_field(records: list[Any]) -> str | None:
    """A kind's id field; none where its records are keyed by composite keys (a single
    table's ``PK``/``SK`` of ``TYPE#id``: the id a call names is their last part, not a
    store's own ``_id``)."""
    sample = records[:24]
    if sum(composite_id(r) is not None for r in sample) * 2 > len(sample):
        return None
    return id_field_of(records)


def item_of(collection: Collection, pointer: str, state: Any) -> str:
    """The item of a kind's array that ``pointer`` is in (``-``: the last in ``state``)."""
    item = item_pointer(collection.pointer, pointer)
    if item.endswith("/-"):
        items = resolve(state, array_pointer(collection.pointer))
        return f"{item[:-2]}/{len(items) - 1 if isinstance(items, list) and items else 0}"
    return item


def kind_holding(kinds: Sequence[Collection], pointer: str, state: Any) -> Collection | None:
    """Which of the kinds of one mixed array the item ``pointer`` is in is of, in ``state``."""
    held = resolve(state, item_of(kinds[0], pointer, state))
    return next((c for c in kinds if c.kind is not None and c.kind.holds(held)), None)


def kind_count_change(
    collection: str,
    changed: Mapping[str, RecordFacts | None],
    records: Mapping[str, RecordFacts],
) -> int:
    """How many records of the kind at ``collection`` the ``changed`` ones (``None``: gone)
    add: an item counts for the kind it is now, and no longer for the kind it was of
    (``records``: the starting state's)."""
    count = 0
    for pointer, facts in changed.items():
        was = records.get(pointer)
        count += facts is not None and facts.collection == collection
        count -= was is not None and was.collection == collection
    return count


def same_array(collections: Iterable[Collection], pointer: str) -> list[str]:
    """The collections in the array the one at ``pointer`` is in: every kind of a mixed
    array moves with it (``pointer`` itself when it is no kind's)."""
    array = array_pointer(pointer)
    return [c.pointer for c in collections if array_pointer(c.pointer) == array] or [pointer]
