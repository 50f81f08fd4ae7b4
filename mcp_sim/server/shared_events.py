"""The events of HTTP response streams kept in the episode store, so that a client whose
worker died resumes its stream (``Last-Event-ID``) on another worker and gets the answer of
its call, when the call was committed.

With a durable ``--episode-store`` each worker's transports keep their streams' events there
instead of in memory (:class:`~mcp_sim.server.event_store.BoundedEventStore`). The SDK names a
POST's stream by its JSON-RPC request id, which every session reuses, so each session's
transport gets a view of its own (:meth:`SharedEvents.scoped`, handed out by
:class:`~mcp_sim.server.event_store.PerSessionEventsManager`): its streams are named under a
random scope, and it replays only its own. A resumption that reaches a worker which does not
have the session (its worker died) is answered by :class:`ResumeElsewhere` from the store:
the events after ``Last-Event-ID``, then the end of the stream. Event ids are random and
unguessable, as in memory: knowing one is what lets a client replay its stream, and the
route's token is checked before.

What cannot be recovered: a call whose worker died before the call was committed has no answer
(its client calls again; the episode goes on from its last committed call), and one whose
worker died between the commit and the storing of its answer (a few milliseconds) has none
either.
"""

from __future__ import annotations

import base64
import logging
import secrets

from mcp.server.streamable_http import (
    EventCallback,
    EventId,
    EventMessage,
    EventStore,
    StreamId,
)
from mcp.server.transport_security import TransportSecuritySettings
from mcp.types import JSONRPCMessage, jsonrpc_message_adapter
from starlette.types import ASGIApp, Receive, Scope, Send

from mcp_sim.episodes.store import EpisodeStore, EventLimits, StreamEvents
from mcp_sim.errors import EpisodeStoreError
from mcp_sim.server.event_store import PerSessionEventsManager
from mcp_sim.server.guards import HostGuard

logger = logging.getLogger(__name__)


class SharedEvents:
    """The streams' events of one world's transports, in the episode store."""

    def __init__(self, store: EpisodeStore, limits: EventLimits | None = None) -> None:
        self.store = store
        self.limits = limits or EventLimits()

    def scoped(self) -> ScopedEvents:
        """The event store of one new session's transport."""
        return ScopedEvents(self, secrets.token_hex(12))

    async def after(self, event_id: str) -> StreamEvents | None:
        """The events after ``event_id`` in its stream, whichever session's."""
        try:
            primed = _primed_stream(event_id)
            if primed is not None:
                return await self.store.stream_events(primed)
            return await self.store.events_after(event_id)
        except EpisodeStoreError as exc:
            logger.warning("cannot replay a stream: %s", exc)
            return None


PRIMING = "p."
"""How a priming event's id starts: ``p.``, its stream's name (base64), ``.``, a random part."""


def _priming_id(stream: str) -> str:
    """A priming event's id, which names its stream: a priming event carries no message, so
    it is not written to the store at all (one write less per call), and a resumption after
    it replays the whole stream. The stream's name holds its session's random scope, so the
    id is as unguessable as any other."""
    name = base64.urlsafe_b64encode(stream.encode()).decode()
    return f"{PRIMING}{name}.{secrets.token_urlsafe(9)}"


def _primed_stream(event_id: str) -> str | None:
    """The stream a priming event's id names; ``None`` for another event's id."""
    if not event_id.startswith(PRIMING):
        return None
    name = event_id.removeprefix(PRIMING).rpartition(".")[0]
    try:
        return base64.b64decode(name.encode(), altchars=b"-_", validate=True).decode()
    except (ValueError, UnicodeDecodeError):
        return None


class ScopedEvents(EventStore):
    """One session's streams in the shared store, named under its ``scope``."""

    def __init__(self, shared: SharedEvents, scope: str) -> None:
        self.shared = shared
        self.scope = scope

    async def store_event(self, stream_id: StreamId, message: JSONRPCMessage | None) -> EventId:
        stream = f"{self.scope}/{stream_id}"
        if message is None:
            return _priming_id(stream)
        event_id = secrets.token_urlsafe(18)
        text = message.model_dump_json(by_alias=True, exclude_unset=True)
        try:
            await self.shared.store.keep_event(event_id, stream, text, self.shared.limits)
        except EpisodeStoreError as exc:
            # The answer still goes out on the live stream; it only cannot be resumed.
            logger.warning("an event was not kept for resumption: %s", exc)
        return event_id

    async def replay_events_after(
        self, last_event_id: EventId, send_callback: EventCallback
    ) -> StreamId | None:
        found = await self.shared.after(last_event_id)
        if found is None or not found.stream.startswith(self.scope + "/"):
            return None
        for event_id, text in found.events:
            if text is not None:  # priming events carry no message
                message = jsonrpc_message_adapter.validate_json(text)
                await send_callback(EventMessage(message, event_id))
        return found.stream.removeprefix(self.scope + "/")


class ResumeElsewhere:
    """A world's MCP endpoint that answers, from the store, a stream's resumption for a session
    this worker does not have (its worker died): the events after ``Last-Event-ID``, then the
    end of the stream, after the Host and Origin checks the SDK's transport makes. Everything
    else goes to ``endpoint``."""

    def __init__(
        self,
        endpoint: ASGIApp,
        manager: PerSessionEventsManager,
        shared: SharedEvents,
        security: TransportSecuritySettings,
    ) -> None:
        self.endpoint = endpoint
        self.manager = manager
        self.shared = shared
        self._checked_replay = HostGuard(self._replay, security)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = dict(scope.get("headers") or [])
        last = headers.get(b"last-event-id")
        session = headers.get(b"mcp-session-id", b"").decode("latin-1")
        if scope.get("method") != "GET" or last is None or self.manager.has_session(session):
            await self.endpoint(scope, receive, send)
        else:
            await self._checked_replay(scope, receive, send)

    async def _replay(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = dict(scope.get("headers") or [])
        last = headers.get(b"last-event-id", b"")
        session = headers.get(b"mcp-session-id", b"").decode("latin-1")
        found = await self.shared.after(last.decode("latin-1"))
        if found is None or not found.events:
            # Nothing to replay, and nothing more will come: the SDK's 404 for the session.
            await self.endpoint(scope, receive, send)
            return
        body = b"".join(
            f"id: {event_id}\ndata: {text}\n\n".encode()
            for event_id, text in found.events
            if text is not None
        )
        start_headers = [
            (b"content-type", b"text/event-stream"),
            (b"cache-control", b"no-cache, no-transform"),
            (b"mcp-session-id", session.encode("latin-1")),
        ]
        await send({"type": "http.response.start", "status": 200, "headers": start_headers})
        await send({"type": "http.response.body", "body": body})
