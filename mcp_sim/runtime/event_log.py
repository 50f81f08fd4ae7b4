"""Event logs found by their shape: where the state holds no entity as the tools show it, only
the append-only list of the events that made it.

An array collection is an event log when its records share a field holding an entity's id
whose values repeat across many records (the *stream*: ``aggregate_id``, ``stream``), a field
of few distinct identifier-like values naming the kind of event (``type``), an ordering field
(a sequence number or version, or an ISO time) and a payload object whose fields differ from
one kind of event to the next (``data``, ``payload``). Nothing here knows any names: each role
is told by the values the field holds. :mod:`mcp_sim.runtime.event_fold` folds each entity's
events into the projection the tools answer from.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from mcp_sim.runtime.state_paths import resolve
from mcp_sim.runtime.state_shape import Collection

MIN_EVENTS = 30
"""Fewer records than this are a list, not a log worth folding."""
SAMPLE = 3000
"""Records read to tell the fields' roles (spread over the whole log)."""
MOST_KINDS = 60
_KIND = re.compile(r"^[A-Za-z][A-Za-z0-9_.:-]*$")
_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}")
_ID_WORDS = frozenset({"id", "stream", "aggregate", "entity", "key", "uuid"})
_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


@dataclass(frozen=True)
class EventLog:
    """Where an event log is and which field plays which role."""

    pointer: str
    stream: str
    """The field holding the id of the entity an event belongs to."""
    kind: str
    """The field naming the kind of event (``AccountOpened``)."""
    payload: str
    """The field holding the event's data (an object)."""
    order: str | None = None
    """An integer field ordering the events (a sequence number or a version)."""
    time: str | None = None
    """A field holding the event's ISO time."""
    parts: tuple[str, ...] = ()
    """Payload fields naming a part of the entity that several kinds of event change (a
    card of an account, by ``cardId``): each part is folded on its own."""
    refs: tuple[str, ...] = ()
    """Payload fields whose values are other entities' ids of the same log (a transfer's
    ``to`` and ``from``)."""
    snake: bool = False
    """Whether the log's names are snake_case (``opened_at``) rather than camelCase."""
    own: str | None = None
    """The payload field holding the entity's own id, when one does (``order_id``)."""
    counted: bool = False
    """Whether the order field numbers the whole log (a sequence), not each entity's events
    (a version): an appended event then takes the log's next number."""
    aliases: tuple[tuple[str, str, str], ...] = ()
    """``(kind, payload field, field)``: a kind named after a field it changes sets that field
    (``OverdraftLimitChanged`` with ``{"limit"}`` sets ``overdraftLimit``)."""

    def field_of(self, kind: str, name: str) -> str | None:
        """The field an event of ``kind`` sets by its payload's ``name``, when named apart."""
        return next((f for k, n, f in self.aliases if k == kind and n == name), None)

    def payload_of(self, event: Mapping[str, Any]) -> dict[str, Any]:
        data = event.get(self.payload)
        return data if isinstance(data, dict) else {}

    def time_of(self, event: Mapping[str, Any]) -> str | None:
        value = event.get(self.time) if self.time else None
        return value if isinstance(value, str) else None

    def time_key(self, kind: str) -> str:
        """The name of the time an event of ``kind`` last happened at, as a projection names
        it: the kind's verb (``AccountOpened`` → ``openedAt``)."""
        return f"{verb(kind)}_at" if self.snake else f"{verb(kind)}At"


def verb(kind: str) -> str:
    """The last word of an event's kind, lower-cased: what happened (``TransferSent``:
    ``sent``)."""
    words: list[str] = _WORDS.findall(kind.replace(".", " ").replace(":", " ")) or [kind]
    return words[-1].lower()


def _sample(items: Sequence[Any]) -> list[dict[str, Any]]:
    step = max(1, len(items) // SAMPLE)
    return [item for item in items[::step] if isinstance(item, dict)]


def _strings(records: list[dict[str, Any]], name: str) -> list[str]:
    return [r[name] for r in records if isinstance(r.get(name), str)]


def _idents(records: list[dict[str, Any]], name: str) -> list[str]:
    """The values of ``name`` that could be ids (text or whole numbers), as text."""
    return [
        str(v)
        for r in records
        if isinstance(v := r.get(name), str | int) and not isinstance(v, bool)
    ]


def _kind_field(records: list[dict[str, Any]], names: Iterable[str]) -> str | None:
    best: tuple[int, str] | None = None
    for name in names:
        values = _strings(records, name)
        distinct = set(values)
        if len(values) < len(records) * 0.9 or not 2 <= len(distinct) <= MOST_KINDS:
            continue
        if len(distinct) > len(values) / 5 or not all(_KIND.match(v) for v in distinct):
            continue
        if sum(any(c.isdigit() for c in v) for v in distinct) > len(distinct) / 10:
            # A kind of event is a name; values with digits are ids, codes or times.
            continue
        if best is None or len(distinct) > best[0]:
            best = (len(distinct), name)
    return best[1] if best else None


def _stream_field(records: list[dict[str, Any]], names: Iterable[str], kind: str) -> str | None:
    best: tuple[bool, int, str] | None = None
    for name in names:
        values = _idents(records, name)
        if name == kind or len(values) < len(records) * 0.9:
            continue
        distinct = set(values)
        if not 2 <= len(distinct) <= len(values) / 2:
            continue
        if any(_TIME.match(v) or " " in v.strip() for v in distinct):
            continue
        if sum(any(c.isdigit() for c in v) for v in distinct) < len(distinct) * 0.9:
            # An entity's id has digits; a category of many values (a town) has none.
            continue
        words = {w.lower() for w in _WORDS.findall(name)}
        rank = (bool(words & _ID_WORDS), len(distinct), name)
        if best is None or rank[:2] > best[:2]:
            best = rank
    return best[2] if best else None


def _payload_field(records: list[dict[str, Any]], names: Iterable[str], kind: str) -> str | None:
    for name in names:
        if sum(isinstance(r.get(name), dict) for r in records) < len(records) * 0.8:
            continue
        shapes = {r[kind]: frozenset(r[name]) for r in records if isinstance(r.get(name), dict)}
        if len(set(shapes.values())) >= 2:
            return name
    return None


def _ascending(records: list[dict[str, Any]], name: str, stream: str | None) -> bool:
    """Whether ``name`` grows along each entity's events (``stream``: its id's field), or
    along the whole log (``None``), in the log's order."""
    last: dict[Any, Any] = {}
    pairs = rising = 0
    for record in records:
        key, value = record.get(stream) if stream else None, record.get(name)
        if key in last:
            pairs += 1
            rising += value >= last[key]
        last[key] = value
    return pairs > 0 and rising >= pairs * 0.95


def _order_fields(
    records: list[dict[str, Any]], names: Iterable[str], stream: str
) -> tuple[str | None, str | None]:
    order = time = None
    for name in names:
        values = [r.get(name) for r in records]
        if order is None and all(isinstance(v, int) and not isinstance(v, bool) for v in values):
            order = name if _ascending(records, name, stream) else None
        if time is None and all(isinstance(v, str) and _TIME.match(v) for v in values):
            time = name if _ascending(records, name, stream) else None
    return order, time


def _linked(log: EventLog, records: list[dict[str, Any]]) -> EventLog:
    """The log with its payload's own id, part and reference fields told."""
    ids = {r[log.stream] for r in records if isinstance(r.get(log.stream), str | int)}
    kinds_of: dict[str, set[str]] = {}
    per_stream: Counter[tuple[str, Any, Any]] = Counter()
    values: dict[str, list[tuple[Any, Any]]] = {}
    snake = camel = 0
    for record in records:
        for name, value in log.payload_of(record).items():
            snake += "_" in name
            camel += name != name.lower()
            if not isinstance(value, str | int) or isinstance(value, bool):
                continue
            kinds_of.setdefault(name, set()).add(str(record.get(log.kind)))
            values.setdefault(name, []).append((value, record.get(log.stream)))
            per_stream[(name, record.get(log.stream), value)] += 1
    # A payload field holding the event's own entity id names that id (``order_id``).
    own = next((n for n, vs in values.items() if sum(v == o for v, o in vs) >= len(vs) * 0.9), None)
    refs = tuple(
        n
        for n, vs in values.items()
        if n != own and len(vs) >= 3 and sum(v in ids and v != o for v, o in vs) >= len(vs) * 0.8
    )
    repeated = {name for (name, _, _), count in per_stream.items() if count > 1}
    parts = tuple(
        n
        for n, vs in values.items()
        if n not in refs
        and n != own
        and n in repeated
        and len(kinds_of[n]) >= 2
        and isinstance(vs[0][0], str)
        and len({v for v, _ in vs}) > len(vs) / 4
    )
    # The payload's own names say the style; a payload of one-word names, the log's fields.
    names = f"{log.stream} {log.time or ''} {log.order or ''}"
    snaked = snake > camel or (snake == camel == 0 and "_" in names)
    counted = log.order is not None and _ascending(records, log.order, None)
    linked = replace(log, parts=parts, refs=refs, snake=snaked, counted=counted, own=own)
    return replace(linked, aliases=_aliases(records, linked, set(parts)))


def _aliases(
    records: list[dict[str, Any]], log: EventLog, parts: set[str]
) -> tuple[tuple[str, str, str], ...]:
    """The kinds named after the field they change, whose payload names it otherwise: the
    kind's words less its verb are a field's name (``OverdraftLimit`` + ``Changed``), and its
    one other payload field is the new value."""
    fields_of: dict[str, set[str]] = {}
    for record in records:
        payload = log.payload_of(record)
        fields_of.setdefault(str(record.get(log.kind)), set()).update(set(payload) - parts)
    every = {name.lower().replace("_", ""): name for names in fields_of.values() for name in names}
    found: list[tuple[str, str, str]] = []
    for kind, names in sorted(fields_of.items()):
        subject = "".join(w.lower() for w in _WORDS.findall(kind)[:-1])
        named = every.get(subject)
        if len(names) == 1 and named is not None and named not in names:
            found.append((kind, next(iter(names)), named))
    return tuple(found)


def event_log_at(collection: Collection, state: Any) -> EventLog | None:
    """The event log that ``collection`` is, if it is one."""
    if collection.keyed or collection.table or collection.keys or collection.pages:
        return None
    if collection.inner or collection.size < MIN_EVENTS:
        return None
    items = resolve(state, collection.pointer)
    if not isinstance(items, list):
        return None
    records = _sample(items)
    if len(records) < MIN_EVENTS:
        return None
    names = list(dict.fromkeys(name for r in records[:200] for name in r))
    kind = _kind_field(records, names)
    stream = _stream_field(records, names, kind) if kind else None
    payload = _payload_field(records, names, kind) if kind else None
    if kind is None or stream is None or payload is None:
        return None
    rest = [n for n in names if n not in (kind, stream, payload)]
    order, time = _order_fields(records, rest, stream)
    named = bool({w.lower() for w in _WORDS.findall(stream)} & _ID_WORDS)
    if time is None and not (order is not None and named and _ascending(records, order, None)):
        # Without times, only a numbered log of events of entities named by an id field is
        # one: records sorted by number are not (boats by id, "grouped" by build year).
        return None
    return _linked(EventLog(collection.pointer, stream, kind, payload, order, time), records)


def find_event_logs(collections: Iterable[Collection], state: Any) -> list[EventLog]:
    """The event logs among a state's collections."""
    return [log for c in collections if (log := event_log_at(c, state)) is not None]
