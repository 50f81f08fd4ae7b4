"""The part of a call's grounding that an event log answers (see
:mod:`mcp_sim.prompting.event_projection`): the entities the call names, or those its
arguments select, searched by their fields' names, or as records by the usual field-aware
search (see :mod:`mcp_sim.prompting.event_entities`) when not every argument names a field;
the log's raw events then leave the call's picks and searches.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from typing import Any

from mcp_sim.prompting.aggregates import Summary, named_collection
from mcp_sim.prompting.event_projection import EventView, event_view
from mcp_sim.prompting.link_rows import LinkRows
from mcp_sim.prompting.movement_times import Steps
from mcp_sim.prompting.search_result import SearchResult
from mcp_sim.runtime.state_index import StateOverlay
from mcp_sim.spec.world import ToolSpec


class EventGrounding(ABC):
    """What :class:`~mcp_sim.prompting.grounding.Grounding` does for an event log; the
    grounding itself provides :meth:`for_call` and :meth:`inner`."""

    overlay: StateOverlay
    state: Any
    tools: Sequence[ToolSpec]
    picks: dict[str, Any]
    searches: list[SearchResult]
    summary: Summary | None
    join: LinkRows | Steps | None
    events: EventView | None
    folded: EventGrounding | None

    @abstractmethod
    def for_call(
        self,
        tool: ToolSpec | None,
        arguments: dict[str, Any],
        recent: Iterable[str] = (),
        answers: Sequence[str] = (),
    ) -> list[Any]:
        """The records the call needs, best first."""

    @abstractmethod
    def inner(self, overlay: StateOverlay, state: Any) -> EventGrounding:
        """A grounding of the same kind over another state (the folded entities)."""

    def fold(
        self, tool: ToolSpec | None, arguments: dict[str, Any], answers: Sequence[str] = ()
    ) -> bool:
        """The event log's entities the call names, or finds when searched; whether they
        answer it alone: a search by their fields' names that finds some, or any call where
        the log is all the state holds (no other records to search or join)."""
        self.events = event_view(self.overlay, tool, arguments, self.tools, answers)
        if self.events is None:
            return False
        entities = self.events.entities
        log = self.events.projections.log.pointer
        alone = all(c.pointer == log for c in self.overlay.base.collections)
        if entities is None and not self.events.named:
            # Every argument names a field of the entities: their projections answer it,
            # alone unless none meets them all (the arguments may select other records).
            return bool(self.events.found())
        if entities is not None:
            inner = self.inner(entities.overlay, entities.state)
            inner.for_call(tool, arguments, (), answers)
            # A summary of the entities, unless the tool's words name another collection to
            # sum up (``top_beds_by_ph`` beside a log of harvests): the state's own records.
            named = named_collection(tool, self.overlay) if tool and inner.summary else None
            sums = inner.summary is not None and (named is None or named.pointer == log)
            if sums or any(s.full for s in inner.searches):
                self.folded = inner
            else:
                self.events = None
        return alone and self.events is not None

    def unlog(self) -> list[Any]:
        """The picks, less the log's raw events where its entities are folded from them (and
        the searches of those); the folded entities are dropped where the arguments select
        the state's own records (the tool's collection, not the log's)."""
        if self.events is None:
            return list(self.picks.values())
        log = self.events.projections.log.pointer + "/"
        self.picks = {p: pick for p, pick in self.picks.items() if not p.startswith(log)}
        self.searches = [s for s in self.searches if s.collection.pointer + "/" != log]
        if self.folded is not None and any(s.full for s in self.searches):
            self.folded = self.events = None
        return list(self.picks.values())
