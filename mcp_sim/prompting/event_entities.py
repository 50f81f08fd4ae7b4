"""An event log's entities as the records of one collection, so that the usual field-aware
search, joins and summaries read them (``list_batches(bitterness_from, brew_name_starts)``
over a log of batches created and updated: no one event holds a batch's fields).

The collection is not in the state: it is the entities' projections (see
:mod:`mcp_sim.runtime.event_fold`), each keyed by its id, gathered once per state of the log
with an index of their own, at ``/NAME/ID`` where ``NAME`` is the log's (``/batches`` for
``/batches/events``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from jsonpointer import escape

from mcp_sim.runtime.event_fold import Projections
from mcp_sim.runtime.state_index import StateIndex, StateOverlay
from mcp_sim.spec.world import World

_UNDECLARED = World.model_construct(entities={})
"""The folded entities are no declared entity: their collection is found by its shape."""
_LOG_WORDS = frozenset({"events", "event", "log", "journal", "stream", "streams", "history"})


@dataclass
class FoldedEntities:
    """The entities of one state of an event log, as records with an index."""

    projections: Projections
    name: str
    state: dict[str, Any]
    overlay: StateOverlay

    def describe(self) -> str:
        return (
            f"the entities folded from {self.projections.log.pointer}, as records at "
            f"/{escape(self.name)}/ID (not in the state; a change goes to the log)"
        )


def collection_name(pointer: str) -> str:
    """What to call a log's entities: the log's name, or its container's where the log is
    named as one (``/batches/events`` → ``batches``)."""
    parts = [p for p in pointer.split("/") if p]
    named = [p for p in parts if p.lower() not in _LOG_WORDS]
    return named[-1] if named else "entities"


def folded_entities(overlay: StateOverlay, projections: Projections, id_key: str) -> FoldedEntities:
    """The log's entities as records (built once per state of the log)."""
    cache = overlay.base.derived.setdefault("folded entities", {})
    kept = cache.get(projections.log.pointer)
    if kept is not None and kept.projections is projections:
        found: FoldedEntities = kept
        return found
    name = collection_name(projections.log.pointer)
    records = {
        str(p.id): {id_key: p.id, **p.fields} if id_key not in p.fields else dict(p.fields)
        for p in projections.folded.values()
    }
    state: dict[str, Any] = {name: records}
    index = StateIndex(_UNDECLARED, state)
    found = FoldedEntities(projections, name, state, index.overlay_of(state))
    cache[projections.log.pointer] = found
    return found
