"""Projections folded from an event log (see :mod:`mcp_sim.runtime.event_log`) by generic
rules, the way an event-sourced service answers: per entity, the latest value of each field
the events set, the time each kind of event last happened, the count of each kind and the sum
of each of its numeric fields (a balance is a sum of signed amounts: the kinds that move a
number are told apart so that the model can add them up), the parts several kinds change (a
card of an account) folded alike, and the other entities its events name with the totals per
kind (a transfer's partners).

The projections of every entity are folded once for the starting state and kept; a later
state refolds only the entities whose events were appended or changed since.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeGuard

from mcp_sim.runtime.event_log import EventLog, find_event_logs
from mcp_sim.runtime.state_index import StateOverlay
from mcp_sim.runtime.state_paths import resolve

Ident = str | int
"""An entity's id: text, or a whole number."""


def is_ident(value: Any) -> TypeGuard[Ident]:
    return isinstance(value, str | int) and not isinstance(value, bool)


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _add(totals: dict[str, Any], name: str, value: float) -> None:
    total = totals.get(name, 0) + value
    totals[name] = round(total, 2) if isinstance(total, float) else total


@dataclass
class Projection:
    """One entity as its events leave it."""

    id: Ident
    fields: dict[str, Any] = field(default_factory=dict)
    """The latest value of each field the non-moving events set, and the time each kind of
    event last happened (``openedAt``)."""
    count: int = 0
    first: str | None = None
    last: str | None = None
    kinds: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Per kind of event: its ``count``, when it last was, and for a kind that moves a number
    the sum of each numeric field."""
    parts: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)
    """Per part field (``cardId``): each part's latest values and times."""
    refs: dict[Ident, dict[str, dict[str, Any]]] = field(default_factory=dict)
    """Per other entity its events name: per kind, the count and sums."""


def moving_kinds(log: EventLog, events: Sequence[Mapping[str, Any]]) -> set[str]:
    """The kinds of event that move a number: those sharing a numeric field with another
    kind when one of them happens again to one entity (a deposit's and a withdrawal's
    ``amount``; not a record created once and updated once), or naming another entity."""
    numeric: dict[str, set[str]] = {}
    moving: set[str] = set()
    seen: set[tuple[Any, str]] = set()
    again: set[str] = set()
    for event in events:
        kind = str(event.get(log.kind))
        data = log.payload_of(event)
        key = (event.get(log.stream), kind)
        if key in seen:
            again.add(kind)
        seen.add(key)
        for name, value in data.items():
            if _number(value):
                numeric.setdefault(name, set()).add(kind)
        if any(name in data for name in log.refs):
            moving.add(kind)
    for kinds in numeric.values():
        if len(kinds) >= 2 and kinds & again:
            moving |= kinds
    return moving


def fold(
    log: EventLog, ident: Ident, events: Sequence[Mapping[str, Any]], moving: set[str]
) -> Projection:
    """The projection of the entity ``ident`` from its ``events``, in order."""
    projection = Projection(ident)
    for event in events:
        kind = str(event.get(log.kind))
        data = log.payload_of(event)
        at = log.time_of(event)
        projection.count += 1
        projection.first = projection.first or at
        projection.last = at or projection.last
        totals = projection.kinds.setdefault(kind, {"count": 0})
        totals["count"] += 1
        for name, value in data.items() if kind in moving else ():
            if _number(value):
                _add(totals, name, value)
        if at is not None:
            totals[log.time_key("last")] = at
        for ref in log.refs:
            other = data.get(ref)
            if is_ident(other):
                flows = projection.refs.setdefault(other, {}).setdefault(kind, {"count": 0})
                flows["count"] += 1
                for name, value in data.items():
                    if _number(value):
                        _add(flows, name, value)
        target = projection.fields
        for part in log.parts:
            if isinstance(data.get(part), str):
                target = projection.parts.setdefault(part, {}).setdefault(data[part], {})
                break
        else:
            if kind in moving:
                continue
        for name, value in data.items():
            target[log.field_of(kind, name) or name] = value
        if at is not None:
            target[log.time_key(kind)] = at
    return projection


@dataclass
class Projections:
    """Every entity's projection for one state of the log."""

    log: EventLog
    length: int
    streams: dict[Ident, list[int]]
    """Each entity's events' positions in the log, in order."""
    folded: dict[Ident, Projection]
    moving: set[str]

    def events(self, state: Any, ident: Ident) -> list[dict[str, Any]]:
        items = resolve(state, self.log.pointer)
        return [items[i] for i in self.streams.get(ident, ())]

    def refolded(self, state: Any, positions: set[int]) -> Projections:
        """These projections after the events at ``positions`` were appended or changed."""
        items = resolve(state, self.log.pointer)
        streams = dict(self.streams)
        touched: set[Ident] = set()
        for i in sorted(positions):
            ident = items[i].get(self.log.stream) if i < len(items) else None
            if is_ident(ident):
                touched.add(ident)
                if i >= self.length:
                    streams[ident] = [*streams.get(ident, []), i]
        folded = dict(self.folded)
        for ident in touched:
            events = [items[i] for i in streams[ident]]
            folded[ident] = fold(self.log, ident, events, self.moving)
        return Projections(self.log, len(items), streams, folded, self.moving)


def _projections_of(log: EventLog, state: Any) -> Projections:
    items = resolve(state, log.pointer)
    streams: dict[Ident, list[int]] = {}
    for i, event in enumerate(items):
        ident = event.get(log.stream) if isinstance(event, dict) else None
        if is_ident(ident):
            streams.setdefault(ident, []).append(i)
    moving = moving_kinds(log, items)
    folded = {k: fold(log, k, [items[i] for i in v], moving) for k, v in streams.items()}
    return Projections(log, len(items), streams, folded, moving)


def event_logs(overlay: StateOverlay) -> list[EventLog]:
    """The event logs of the overlay's world (found once per world)."""
    derived = overlay.base.derived
    if "event logs" not in derived:
        derived["event logs"] = find_event_logs(overlay.base.collections, overlay.base.state)
    found: list[EventLog] = derived["event logs"]
    return found


def projections(overlay: StateOverlay, log: EventLog) -> Projections:
    """Every entity's projection in the overlay's state: folded once for the starting state,
    and for a later one only the entities whose events changed since are folded again."""
    cache = overlay.base.derived.setdefault("event projections", {})
    if log.pointer not in cache:
        cache[log.pointer] = _projections_of(log, overlay.base.state)
    base: Projections = cache[log.pointer]
    # The state as views read it (values decoded where the world encodes them).
    state = overlay.view if overlay.view is not None else overlay.state
    if state is None or state is overlay.base.state:
        return base
    latest = overlay.base.derived.setdefault("event projections now", {})
    items = resolve(state, log.pointer)
    kept = latest.get(log.pointer)
    if kept is not None and kept[0] is state and kept[1] == len(items):
        now: Projections = kept[2]
        return now
    prefix = log.pointer + "/"
    changed = {
        int(p[len(prefix) :].split("/", 1)[0])
        for p in overlay.changed
        if p.startswith(prefix) and p[len(prefix) :].split("/", 1)[0].isdigit()
    }
    now = base.refolded(state, changed | set(range(base.length, len(items))))
    latest[log.pointer] = (state, len(items), now)
    return now
