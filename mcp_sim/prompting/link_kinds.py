"""The kind each reference of a link names, so that a join follows it only to its own kind.

Ids repeat across kinds (speaker ``7`` and room ``7``; see
:mod:`mcp_sim.runtime.typed_references`): a talk's ``{"type": "speakers", "id": "7"}`` refers
to a speaker, never to room ``7``, and an encounter's ``"Patient/10234"`` to a patient. Values
that name no kind refer to whatever their key matches, as before.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from jsonpointer import unescape

from mcp_sim.prompting.record_fields import values_at
from mcp_sim.runtime.composite_keys import composite_reference
from mcp_sim.runtime.mixed_collections import array_pointer
from mcp_sim.runtime.state_index import StateOverlay
from mcp_sim.runtime.state_paths import resolve
from mcp_sim.runtime.state_shape import Collection, within, within_test
from mcp_sim.runtime.typed_references import (
    collection_word,
    kind_beside,
    kind_word,
    typed_reference,
)

Typed = list[tuple[Any, str | None]]
"""Values of a link's field, each with the kind it names (``None``: none)."""


def kind_words(collections: Iterable[Collection]) -> frozenset[str]:
    """The kinds a state's collections hold (see :func:`collection_word`)."""
    return frozenset(collection_word(c.pointer) for c in collections)


def typed_values(record: Any, path: str, kinds: frozenset[str]) -> Typed:
    """The values of ``record`` at the field ``path``, each with the kind of ``kinds`` it
    names: in its own text (``Patient/10234``), or beside it in its object."""
    return [
        (value, kind_at(record, where, value, kinds)) for where, value in values_at(record, path)
    ]


def kind_at(record: Any, where: str, value: Any, kinds: frozenset[str]) -> str | None:
    """The kind of ``kinds`` that ``value``, at ``where`` in ``record``, names, if any."""
    typed = typed_reference(value) or composite_reference(value)
    if typed is not None:
        word = kind_word(typed[0])
        return word if word in kinds else None
    parent, _, field = where.rpartition("/")
    return kind_beside(resolve(record, parent), unescape(field), kinds)


def refers_to(word: str | None, targets: Collection | str) -> bool:
    """Whether a value naming the kind ``word`` (``None``: none) may refer to the records of
    ``targets`` (a collection or its pointer)."""
    pointer = targets if isinstance(targets, str) else targets.pointer
    return word is None or word == collection_word(pointer)


def holds(overlay: StateOverlay, collection: str, pointer: str) -> bool:
    """Whether the record at ``pointer`` (or a place inside it) is one of ``collection``'s,
    as the session's state is: a mixed array's item, only of its own kind's collection."""
    if array_pointer(collection) == collection:
        return within(collection, pointer)
    facts = overlay.facts(pointer)
    return facts is not None and facts.collection == collection


def holding(overlay: StateOverlay, collection: str) -> Callable[[str], bool]:
    """:func:`holds` for one collection, read once for the many pointers it is asked of."""
    if array_pointer(collection) == collection:
        return within_test(collection)

    def held(pointer: str) -> bool:
        facts = overlay.facts(pointer)
        return facts is not None and facts.collection == collection

    return held


def place_key(overlay: StateOverlay, collection: Collection, pointer: str) -> str:
    """The key a record without an id field is known by: its place in the collection, or,
    of a mixed array's kind, the key the index gave it (a composite key's id: a place in
    the whole array says nothing of the kind)."""
    if collection.kind is not None:
        facts = overlay.facts(pointer)
        if facts is not None:
            return facts.key
    return unescape(pointer.rsplit("/", 1)[-1])
