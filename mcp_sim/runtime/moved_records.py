"""The facts of an array's records after its items moved, read again only where an item did.

An insert or a removal before an array's end moves every item after it: each record there
has a new pointer, and the index files them all again (see
:meth:`~mcp_sim.runtime.state_index.StateOverlay.advance`). Most of them are the very objects
they were before the change (a patch copies only the containers along its paths), and a
record's facts depend on nothing but its collection, its key and the record itself; so a
record found in the array before the change, the same object with the same key, keeps the
facts filed for it then, and only the records the change made are read anew.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from mcp_sim.runtime.filed_records import FiledFacts
from mcp_sim.runtime.mixed_collections import array_pointer
from mcp_sim.runtime.state_paths import resolve
from mcp_sim.runtime.state_shape import Collection, RecordFacts, record_items

FactsAt = Callable[[str], RecordFacts | None]
"""The facts filed, before the change, for the record at a pointer."""


def refiled(
    collection: Collection, state: Any, before: Any, facts_at: FactsAt
) -> Iterator[tuple[str, RecordFacts]]:
    """``(pointer, facts)`` of each record of ``collection`` in ``state``, in document order:
    those ``before`` (the state the facts of ``facts_at`` describe) held, unchanged, keep
    their facts."""
    items = resolve(state, collection.pointer)
    filed = FiledFacts(collection, state)
    earlier = _positions(collection, before)
    array = array_pointer(collection.pointer)
    now = resolve(state, array) if earlier is not None else None
    for key, where, record in record_items(collection, items):
        kept = _kept(earlier, now, array, where, key, collection.pointer, facts_at)
        yield where, kept if kept is not None else filed.of(key, where, record)


Positions = tuple[list[Any], dict[int, int]] | None
"""An array as it was, and each of its items' position (by identity)."""


def _positions(collection: Collection, before: Any) -> Positions:
    """Where each item of ``collection``'s array was ``before``; ``None`` for a collection
    whose records are not an array's items, or take more than the record itself (a table's
    rows, pages, a member's context, lines of text)."""
    plain = collection.table is None and collection.keys is None and not collection.slots
    if not plain or collection.pages or collection.members or collection.lines:
        return None
    items = resolve(before, array_pointer(collection.pointer))
    if not isinstance(items, list):
        return None
    return items, {id(item): i for i, item in enumerate(items)}


def _kept(
    earlier: Positions,
    items: Any,
    array: str,
    where: str,
    key: str,
    collection: str,
    facts_at: FactsAt,
) -> RecordFacts | None:
    """The facts filed before for the record at ``where`` now, if its item is one the array
    held before (the same object) and they are still its facts (same key, same kind)."""
    if earlier is None:
        return None
    position, _, inner = where[len(array) + 1 :].partition("/")
    if not position.isdigit() or not isinstance(items, list) or int(position) >= len(items):
        return None
    item = items[int(position)]
    was = earlier[1].get(id(item))
    if was is None or earlier[0][was] is not item:
        return None
    facts = facts_at(f"{array}/{was}" + (f"/{inner}" if inner else ""))
    if facts is None or facts.key != key or facts.collection != collection:
        return None
    return facts
