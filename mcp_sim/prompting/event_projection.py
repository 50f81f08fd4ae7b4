"""What a call on an event-sourced state is shown: the entities as folded from their events.

Where the state is an event log (see :mod:`mcp_sim.runtime.event_log`), no record holds an
entity as the tools show it. A call naming an entity's id gets its projection (see
:mod:`mcp_sim.runtime.event_fold`: the latest values, per kind of event the count and the
sums, the times), folded again up to a date the arguments bound it by (a balance as of a day),
the other entities its events name with the totals between them (a transfer's partners), and
its events themselves, compactly and in order, those the arguments' dates bound first. A read
naming no entity whose arguments constrain the projections' fields (``find_accounts(branch)``)
gets the entities meeting them all, and how many do.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from mcp_sim.prompting.event_entities import FoldedEntities, folded_entities
from mcp_sim.prompting.event_search import EventConstraint, read_constraints, search
from mcp_sim.prompting.field_names import read_argument, tokens
from mcp_sim.prompting.search_count import CountField, count_field
from mcp_sim.runtime.event_fold import (
    Ident,
    Projection,
    Projections,
    event_logs,
    fold,
    is_ident,
    projections,
)
from mcp_sim.runtime.event_log import verb
from mcp_sim.runtime.state_index import StateOverlay
from mcp_sim.runtime.state_paths import resolve
from mcp_sim.spec.world import ToolSpec

_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}")
_ID_WORDS = frozenset({"id", "key", "uuid", "code", "number"})
PARTNER_SHARE = 2
"""The other entities an entity's events name take at most 1/this of the room."""
PARTNER_FIELDS = 3
"""An other entity is shown by its id and the first fields its events set (a name)."""


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def id_name(tools: Sequence[ToolSpec], fallback: str) -> str:
    """What the tools call an entity's id: the id-like argument most of them take."""
    names: Counter[str] = Counter()
    for tool in tools:
        properties = tool.input_schema.get("properties")
        for name in properties if isinstance(properties, dict) else ():
            if set(tokens(name)) & _ID_WORDS:
                names[name] += 1
    return names.most_common(1)[0][0] if names else fallback


@dataclass
class EventView:
    """The part of a call's view that an event log answers."""

    projections: Projections
    state: Any
    id_key: str
    named: list[Ident] = field(default_factory=list)
    since: str | None = None
    until: str | None = None
    constraints: list[EventConstraint] = field(default_factory=list)
    """A read's arguments, each read by its name as a constraint on a projection's field."""
    count: CountField | None = None
    """The answer's count field, for a search (see :mod:`mcp_sim.prompting.search_count`)."""
    entities: FoldedEntities | None = None
    """For a read whose arguments not all name a field: the entities as records, for the
    usual search."""
    _found: list[Projection] | None = None
    appends: bool = False
    """Whether the call is a write: the events it appends take the log's next numbers."""

    def render(self, room: int) -> str:
        log = self.projections.log
        order = f', ordered by "{log.order}"' if log.order else ""
        head = (
            f"**Event log {log.pointer}** ({self.projections.length} events; an entity's events "
            f'share its "{log.stream}", their kind is "{log.kind}"{order}, their data '
            f'"{log.payload}"). No record holds an entity: each is folded from its events '
            "(the latest value of each field and when each kind of event last happened; per "
            "kind the count and the sum of each number"
            + (
                f"; {', '.join(sorted(self.projections.moving))} move numbers: add them up with "
                "their signs"
                if self.projections.moving
                else ""
            )
            + "):"
        )
        lines = [head]
        left = room - len(head) - 1
        if self.appends:
            lines.append(self._next())
            left -= len(lines[-1]) + 1
        if self.named:
            for i, ident in enumerate(self.named):
                share = left // (len(self.named) - i)
                left -= share - self._entity(ident, lines, share)
        elif self.entities is None:
            self._search(lines, left)
        else:
            lines.append(f"- The call reads {self.entities.describe()}:")
        return "\n".join(lines) if len(lines) > 1 else ""

    def _next(self) -> str:
        """Where the events a write appends go, with the numbers they take."""
        log = self.projections.log
        head = f"- the events this call appends go at the end of {log.pointer}"
        items = resolve(self.state, log.pointer)
        if log.order is None or not isinstance(items, list) or not items:
            return head + "."
        stream = [] if log.counted else self.projections.events(self.state, self.named[0])
        last = (stream or items)[-1].get(log.order)
        if not isinstance(last, int):
            return head + "."
        taken = ", then ".join(_json({log.order: last + n}) for n in range(1, 3))
        return f"{head}, numbered on: {taken}."

    def row(self, projection: Projection) -> dict[str, Any]:
        """The entity's id (under the name its payload or the tools give it) and fields."""
        return {self.id_key: projection.id, **projection.fields}

    def _entity(self, ident: Ident, lines: list[str], room: int) -> int:
        """An entity's projection, its totals, parts, partners and events, within ``room``:
        a call bounded by dates gets the fold as of its end and its events between them
        first, before the rest."""
        projection = self.projections.folded[ident]
        events = self.projections.events(self.state, ident)
        log = self.projections.log
        room = _add(
            lines,
            room,
            f"- {ident} ({projection.count} events, {projection.first} to {projection.last}): "
            f"{_json(self.row(projection) | {'events': projection.count})}",
        )
        if self.until is not None:
            before = [e for e in events if (log.time_of(e) or "")[: len(self.until)] <= self.until]
            upto = fold(log, ident, before, self.projections.moving)
            room = _add(
                lines,
                room,
                f"  as of {self.until} (its {upto.count} events up to the end of it): "
                f"{_json(self.row(upto) | {'events': upto.count})}; per {log.kind}: "
                f"{_json(upto.kinds)}",
            )
        bounded = self.since is not None or self.until is not None
        if bounded:
            share = room * 2 // 3
            room -= share - self._events(events, lines, share)
        room = _add(lines, room, f"  per {log.kind}: {_json(projection.kinds)}")
        for name, parts in projection.parts.items():
            room = _add(lines, room, f"  its {name} parts: {_json(parts)}")
        room = self._partners(projection, lines, room)
        return room if bounded else self._events(events, lines, room)

    def _partners(self, projection: Projection, lines: list[str], room: int) -> int:
        if not projection.refs:
            return room
        log = self.projections.log
        via = ", ".join(f'"{r}"' for r in log.refs)
        head = (
            f"  the entities its events name (by {via}), with the sum of the number of each "
            "kind of event between them, named by what happened:"
        )
        share = room // PARTNER_SHARE - len(head) - 1
        kinds = sorted(
            {k for p in self.projections.folded.values() for f in p.refs.values() for k in f}
        )
        rows: list[str] = []
        for other, flows in sorted(projection.refs.items()):
            found = self.projections.folded.get(other)
            named = list((found.fields if found else {}).items())[:PARTNER_FIELDS]
            row = {self.id_key: other, **dict(named)}
            row |= {verb(kind): _flow(flows.get(kind)) for kind in kinds}
            line = f"  {_json(row)}"
            if len(line) + 1 > share:
                break
            rows.append(line)
            share -= len(line) + 1
        if rows:
            lines += [head, *rows]
            room -= sum(len(x) + 1 for x in [head, *rows])
        return room

    def _events(self, events: list[dict[str, Any]], lines: list[str], room: int) -> int:
        log = self.projections.log
        if self.since is not None or self.until is not None:
            low, high = self.since or "", self.until or "~"

            def inside(e: dict[str, Any]) -> bool:
                at = log.time_of(e) or ""
                return low[:10] <= at[:10] and at[: len(high)] <= high

            events = [e for e in events if inside(e)]
        compact = [_json({k: v for k, v in e.items() if k != log.stream}) for e in events]
        shown: list[str] = []
        for line in reversed(compact):
            if len(line) + 5 > room - 60:
                break
            shown.insert(0, f"  {line}")
            room -= len(line) + 3
        bounded = " between the call's dates" if self.since or self.until else ""
        left = len(compact) - len(shown)
        more = f" ({left} earlier not shown for room)" if left else ""
        head = f"  its {len(compact)} events{bounded}, oldest first{more}:"
        lines += [head, *shown]
        return room - len(head) - 1

    def found(self) -> list[Projection]:
        """The entities meeting every constraint of a search (found once)."""
        if self._found is None:
            self._found = search(self.projections, self.constraints)
        return self._found

    def _search(self, lines: list[str], room: int) -> None:
        found = self.found()
        described = "; ".join(c.describe() for c in self.constraints)
        count = f"(the answer's {self.count.entry(len(found))}) " if self.count else ""
        rows: list[str] = []
        left = room - 200
        for projection in found:
            line = f"- {_json(self.row(projection))}"
            if len(line) + 1 > left:
                break
            rows.append(line)
            left -= len(line) + 1
        lines.append(
            f"- Search of the entities folded from it ({described}): {count}{len(found)} "
            f"meet all of them; {len(rows)} shown below, in the log's order:"
        )
        lines += rows


def _add(lines: list[str], room: int, line: str) -> int:
    """``line`` added when it fits ``room``; the room left."""
    if len(line) + 1 > room:
        return room
    lines.append(line)
    return room - len(line) - 1


def _flow(totals: dict[str, Any] | None) -> Any:
    """One kind's totals between two entities: its one number's sum, its sums, or its
    count where it has no number (0 where there was none)."""
    if totals is None:
        return 0
    numbers = {name: total for name, total in totals.items() if name != "count"}
    numbers = {n: t for n, t in numbers.items() if not isinstance(t, str)}
    if len(numbers) == 1:
        return next(iter(numbers.values()))
    return numbers or totals["count"]


def event_view(
    overlay: StateOverlay,
    tool: ToolSpec | None,
    arguments: dict[str, Any],
    tools: Sequence[ToolSpec] = (),
    answers: Sequence[str] = (),
) -> EventView | None:
    """The event log's part of a call's view, when the state is one and the call names one
    of its entities or searches them (``answers``: the tool's earlier ones)."""
    for log in event_logs(overlay):
        folded = projections(overlay, log)
        found = {k: i for k, v in arguments.items() if (i := _entity_of(folded, v)) is not None}
        id_key = log.own or next(iter(found), id_name(tools, log.stream))
        named = list(dict.fromkeys(found.values()))
        state = overlay.view if overlay.view is not None else overlay.state
        view = EventView(folded, state, id_key, named)
        view.appends = tool is not None and tool.effect == "write"
        if named:
            view.since, view.until = _date_bounds(arguments)
            return view
        if tool is None or tool.effect == "write":
            continue
        view.constraints, selecting = read_constraints(folded, arguments)
        if not view.constraints or len(view.constraints) < selecting:
            view.entities = folded_entities(overlay, folded, id_key)
        view.count = count_field(tool, answers)
        return view
    return None


def _entity_of(projections: Projections, value: Any) -> Ident | None:
    """The entity an argument's value names, if any (``12`` and ``"12"`` alike)."""
    if not is_ident(value):
        return None
    text = str(value).strip()
    for ident in (value, text, int(text) if text.isdigit() else None):
        if ident is not None and ident in projections.folded:
            return ident
    return None


def _date_bounds(arguments: dict[str, Any]) -> tuple[str | None, str | None]:
    """The earliest and latest time the arguments' dates bound the call by."""
    since = until = None
    for name, value in arguments.items():
        if not isinstance(value, str) or not _DAY.match(value):
            continue
        op = read_argument(name).op
        if op in ("min", "eq"):
            since = value
        if op in ("max", "eq"):
            until = value
    return since, until
