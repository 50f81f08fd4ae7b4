"""Which collections a pointer is in, found by look-up rather than by testing each.

A state may hold hundreds of collections (a chat export: one per channel and day), and every
changed or shown record asks which one it is in. Each collection has a *scope*: the pointer
that every pointer inside it starts with (before a ``/``; see :func:`scope_of`). A pointer's
collections are then among those whose scope is one of its ancestors: one look-up per level of
the pointer, then :func:`~mcp_sim.runtime.state_shape.within` on those few.
"""

from __future__ import annotations

from collections.abc import Sequence

from jsonpointer import unescape

from mcp_sim.runtime.mixed_collections import array_pointer
from mcp_sim.runtime.state_keys import pattern_of
from mcp_sim.runtime.state_shape import Collection, within


def scope_of(collection: str) -> str:
    """What every pointer :func:`within` the collection at ``collection`` starts with: the
    array of a kind's records, the object holding a key pattern's, else the collection."""
    parent, _, last = collection.rpartition("/")
    if array_pointer(collection) != collection or pattern_of(unescape(last)) is not None:
        return parent
    return collection


def ancestors(pointer: str) -> list[str]:
    """The pointers ``pointer`` is below, outermost (the root, ``""``) first."""
    parts = pointer.split("/")
    return ["/".join(parts[:end]) for end in range(1, len(parts))]


class CollectionScopes:
    """The collections of a state by scope, each with its place in the state's list."""

    def __init__(self, collections: Sequence[Collection]) -> None:
        self.collections = collections
        self.by_scope: dict[str, list[int]] = {}
        for place, collection in enumerate(collections):
            self.by_scope.setdefault(scope_of(collection.pointer), []).append(place)

    def holding(self, pointer: str) -> list[Collection]:
        """The collections ``pointer`` is a record of, or inside, in the state's order."""
        places = sorted(p for a in ancestors(pointer) for p in self.by_scope.get(a, ()))
        found = (self.collections[p] for p in places)
        return [c for c in found if within(c.pointer, pointer)]
