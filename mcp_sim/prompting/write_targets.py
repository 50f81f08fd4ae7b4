"""The collection a write adds to, and its newest records: what a record it creates looks like.

A write that creates a record (a loan, a journal entry, a stock movement) answers with values
no record holds yet: a fresh key that continues the collection's sequence (``L508340`` after
``L508339``), dates and totals its rules derive. The view shows the collection's newest
records, so the model continues the keys and copies the shape instead of inventing them. The
collection is the one whose fields the write's argument names name (a loan's ``member_no``
and ``book_id``), other than those the arguments only name records of by key; none where an
argument names one of its records (the write changes that one, shown as named).
"""

from __future__ import annotations

from typing import Any

from mcp_sim.prompting.argument_kinds import names_kind
from mcp_sim.prompting.constraints import read_collection
from mcp_sim.prompting.field_tables import FieldTables
from mcp_sim.prompting.link_kinds import holds
from mcp_sim.prompting.reading_rank import is_lookup
from mcp_sim.runtime.state_index import StateOverlay
from mcp_sim.runtime.state_shape import normalize

NEWEST_SHOWN = 2
"""Newest records shown: enough to see how keys go on, few enough to keep the view short."""
_LEAST_NAMED = 2
"""Arguments whose names must name fields of a collection for a write to add to it."""


def written_collection(overlay: StateOverlay, arguments: dict[str, Any]) -> str | None:
    """The collection (its pointer) whose fields most of the arguments' names name, by name
    alone; ``None`` where none has :data:`_LEAST_NAMED` of them."""
    tables = FieldTables.of(overlay.base)
    best, score = None, 0.0
    for collection in overlay.base.collections:
        reading = read_collection(tables.schema(collection), arguments)
        named = [c for c in reading.constraints if c.fit >= 0.8]
        if len(named) < _LEAST_NAMED or is_lookup(reading, collection.id_field):
            continue
        points = sum(c.fit for c in named)
        if points > score:
            best, score = collection.pointer, points
    return best


def newest_records(overlay: StateOverlay, arguments: dict[str, Any]) -> list[str]:
    """The newest records (pointers, newest last) of the collection a write adds to."""
    collection = written_collection(overlay, arguments)
    if collection is None or _names_one_of(overlay, collection, arguments):
        return []
    return overlay.pointers(collection)[-NEWEST_SHOWN:]


def _names_one_of(overlay: StateOverlay, collection: str, arguments: dict[str, Any]) -> bool:
    """Whether an argument names a record of ``collection`` by key: the write changes that
    record (shown as named) rather than adding one."""
    for name, value in arguments.items():
        label = normalize(value) if isinstance(value, str | int) else None
        if label and any(holds(overlay, collection, h.pointer) for h in overlay.key_hits(label)):
            return True
        if (
            label
            and names_kind(name, collection)
            and _one_holds(overlay, collection, label, arguments)
        ):
            return True
    return False


def _one_holds(
    overlay: StateOverlay, collection: str, label: str, arguments: dict[str, Any]
) -> bool:
    """Whether one record of ``collection`` holds ``label`` (``deployment="web"``), or one of
    those holding it holds the other arguments' values too (the ``web`` of a namespace)."""
    held = {p for p in overlay.value_hits(label) if holds(overlay, collection, p)}
    for value in arguments.values():
        other = normalize(value) if isinstance(value, str) else None
        narrowed = held & overlay.value_hits(other).keys() if other and other != label else held
        held = narrowed or held
    return len(held) == 1
