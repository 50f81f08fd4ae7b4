"""The recent events of HTTP response streams, so a client that lost its connection during a
long call can resume it.

A world model may think for minutes before it answers. Over streamable HTTP the answer comes
on the event stream of the POST that made the call; if that connection drops (a proxy's idle
timeout, a laptop that sleeps), the client reconnects with ``Last-Event-ID`` and the SDK's
transport replays from here what it missed, then goes on with the live stream. Every stream
starts with a priming event that carries an id and the ``retry`` interval, so a client knows
it may reconnect (SEP-1699).

Event ids are random and unguessable: the store is shared by every session of the server,
and one session must not be able to replay another's stream. The SDK names a POST's stream
by its JSON-RPC request id, which every session reuses, so each session's transport gets a
view of its own (:meth:`BoundedEventStore.scoped`, handed out by
:class:`PerSessionEventsManager`): its streams are named under a random scope, and it
replays only its own. The store is bounded, because
it holds every response of every session: at most ``max_streams`` streams (the least recently
written go first), ``max_events`` events per stream (a stream that outgrows it loses its
oldest, usually progress notifications), and none older than ``max_age`` seconds.
"""

from __future__ import annotations

import secrets
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mcp.server import Server
from mcp.server.streamable_http import (
    EventCallback,
    EventId,
    EventMessage,
    EventStore,
    StreamId,
)
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.types import JSONRPCMessage

RETRY_MILLISECONDS = 1000
"""How long a client should wait before it reconnects to a stream it lost."""


@dataclass
class _Stream:
    events: deque[tuple[EventId, JSONRPCMessage | None]] = field(default_factory=deque)
    written: float = 0.0


class BoundedEventStore(EventStore):
    """An in-memory :class:`EventStore` with limits on streams, events and age."""

    def __init__(
        self,
        *,
        max_streams: int = 512,
        max_events: int = 256,
        max_age: float = 600.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if max_streams < 1 or max_events < 1 or max_age <= 0:
            raise ValueError("the event store's limits must be positive")
        self.max_streams = max_streams
        self.max_events = max_events
        self.max_age = max_age
        self._clock = clock
        self._streams: OrderedDict[StreamId, _Stream] = OrderedDict()
        self._stream_of: dict[EventId, StreamId] = {}

    @property
    def held(self) -> int:
        """Events held, over all streams. (Not ``__len__``: the SDK tests the store for truth,
        and an empty store must still count as one.)"""
        return len(self._stream_of)

    async def store_event(self, stream_id: StreamId, message: JSONRPCMessage | None) -> EventId:
        now = self._clock()
        self._forget_old(now)
        stream = self._streams.get(stream_id)
        if stream is None:
            stream = self._streams[stream_id] = _Stream()
            while len(self._streams) > self.max_streams:
                self._drop(next(iter(self._streams)))
        else:
            self._streams.move_to_end(stream_id)
        event_id = secrets.token_urlsafe(18)
        stream.events.append((event_id, message))
        stream.written = now
        self._stream_of[event_id] = stream_id
        if len(stream.events) > self.max_events:
            dropped, _ = stream.events.popleft()
            del self._stream_of[dropped]
        return event_id

    async def replay_events_after(
        self, last_event_id: EventId, send_callback: EventCallback
    ) -> StreamId | None:
        self._forget_old(self._clock())
        stream_id = self._stream_of.get(last_event_id)
        if stream_id is None:
            return None
        # A copy: sending awaits, and the live stream may store more events meanwhile.
        events = list(self._streams[stream_id].events)
        after = next(i for i, (event_id, _) in enumerate(events) if event_id == last_event_id)
        for event_id, message in events[after + 1 :]:
            if message is not None:  # priming events carry no message
                await send_callback(EventMessage(message, event_id))
        return stream_id

    def _forget_old(self, now: float) -> None:
        # Streams are kept in order of their last write, so the stale ones are at the front.
        while self._streams:
            oldest, stream = next(iter(self._streams.items()))
            if now - stream.written <= self.max_age:
                break
            self._drop(oldest)

    def _drop(self, stream_id: StreamId) -> None:
        for event_id, _ in self._streams.pop(stream_id).events:
            del self._stream_of[event_id]

    def scoped(self) -> EventStore:
        """The event store of one new session's transport."""
        return _ScopedView(self, secrets.token_hex(12))

    def stream_of(self, event_id: EventId) -> StreamId | None:
        return self._stream_of.get(event_id)


class _ScopedView(EventStore):
    """One session's streams in a shared :class:`BoundedEventStore`, under its ``scope``."""

    def __init__(self, store: BoundedEventStore, scope: str) -> None:
        self.store = store
        self.prefix = scope + "/"

    async def store_event(self, stream_id: StreamId, message: JSONRPCMessage | None) -> EventId:
        return await self.store.store_event(self.prefix + stream_id, message)

    async def replay_events_after(
        self, last_event_id: EventId, send_callback: EventCallback
    ) -> StreamId | None:
        stream = self.store.stream_of(last_event_id)
        if stream is None or not stream.startswith(self.prefix):
            return None  # another session's, or gone
        replayed = await self.store.replay_events_after(last_event_id, send_callback)
        return None if replayed is None else replayed.removeprefix(self.prefix)


class PerSessionEventsManager(StreamableHTTPSessionManager):
    """The SDK's session manager, giving each new session's transport its own event store
    from ``events`` (the SDK reads ``event_store`` once for each new transport)."""

    def __init__(
        self, app: Server[Any], *, events: Callable[[], EventStore], **options: Any
    ) -> None:
        self.events = events
        super().__init__(app, **options)

    @property
    def event_store(self) -> EventStore:
        return self.events()

    @event_store.setter
    def event_store(self, _: object) -> None:
        """The SDK's constructor sets it; the stores come from ``events`` instead."""

    def has_session(self, session_id: str) -> bool:
        return session_id in self._server_instances
