"""How long an HTTP client may take, and how much header it may send.

uvicorn closes a keep-alive connection idle between requests (``timeout_keep_alive``) and
refuses headers over ``h11_max_incomplete_event_size``, but it waits without end for a
connection's first request, for a request's headers once they have started, and for its
body: 300 clients sending one byte a second held 300 connections for as long as they liked,
unauthenticated ones too. :class:`TimedH11Protocol` is uvicorn's HTTP/1.1 protocol with two
deadlines more:

- the headers: from the connection's start, or from the first byte of the next request on a
  kept-alive connection, to the end of the headers (``header_timeout``);
- the body: from the end of the headers to the end of the body (``body_timeout``).

Past one, the server answers 408 Request Timeout (unless its response has started) and
closes the connection; an application still reading the body sees the client disconnect.

h11 refuses headers over its limit only while they are incomplete, so a request whose
headers arrive in one piece could pass it; :class:`HeaderLimit` refuses those with 431.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, Literal

import h11
from starlette.types import ASGIApp, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol

from mcp_sim.settings.serving import ServerSettings

Phase = Literal["headers", "body"]


@dataclass(frozen=True)
class HttpLimits:
    """Deadlines and sizes for HTTP clients (``mcp-sim serve --header-timeout``,
    ``--body-timeout``, ``--max-header-bytes``)."""

    header_timeout: float = 10.0
    body_timeout: float = 60.0
    keep_alive_timeout: int = 75
    """Seconds a connection may sit idle between requests. Longer than load balancers keep
    their idle connections to a worker (nginx 60 s, HAProxy's pool a few seconds): a worker
    that closed one first would race the balancer's next request on it, which then fails
    without an answer (uvicorn's default of 5 s did, behind HAProxy)."""
    max_header_bytes: int = 16 * 1024
    """The request line and headers together (uvicorn's default for h11)."""

    @classmethod
    def of(cls, server: ServerSettings) -> HttpLimits:
        """The limits a server's settings set (the keep-alive is not among them)."""
        return cls(
            header_timeout=server.header_timeout,
            body_timeout=server.body_timeout,
            max_header_bytes=server.max_header_bytes,
        )


def _timeout_response(phase: Phase) -> bytes:
    text = f"the request's {phase} took too long to arrive".encode()
    head = (
        b"HTTP/1.1 408 Request Timeout\r\ncontent-type: text/plain; charset=utf-8\r\n"
        b"connection: close\r\ncontent-length: " + str(len(text)).encode() + b"\r\n\r\n"
    )
    return head + text


class TimedH11Protocol(H11Protocol):
    """uvicorn's HTTP/1.1 protocol with deadlines on a request's headers and body."""

    limits = HttpLimits()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._deadline: asyncio.TimerHandle | None = None
        self._phase: Phase | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._start("headers")

    def data_received(self, data: bytes) -> None:
        if self._phase is None and self.conn.their_state is h11.IDLE:
            self._start("headers")  # the first bytes of the next request
        super().data_received(data)
        self._follow()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._follow()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop()
        super().connection_lost(exc)

    def handle_websocket_upgrade(self, event: h11.Request) -> None:
        # The connection is a WebSocket's from here on (uvicorn hands it to another
        # protocol): no request on it to time.
        self._stop()
        super().handle_websocket_upgrade(event)

    def _follow(self) -> None:
        """Move the deadline on with the request: headers done, then body done."""
        state = self.conn.their_state
        if self._phase == "headers" and state is not h11.IDLE:
            self._stop()
            if state is h11.SEND_BODY:
                self._start("body")
        elif self._phase == "body" and state is not h11.SEND_BODY:
            self._stop()

    def _start(self, phase: Phase) -> None:
        self._stop()
        seconds = self.limits.header_timeout if phase == "headers" else self.limits.body_timeout
        self._phase = phase
        self._deadline = self.loop.call_later(seconds, self._expired, phase)

    def _stop(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
        self._deadline = None
        self._phase = None

    def _expired(self, phase: Phase) -> None:
        self._deadline = None
        self._phase = None
        if self.transport.is_closing():
            return
        cycle = self.cycle
        if phase == "headers" or (cycle is not None and not cycle.response_started):
            self.transport.write(_timeout_response(phase))
        self.transport.close()


def timed_protocol(limits: HttpLimits) -> type[TimedH11Protocol]:
    """The protocol class uvicorn is given, with ``limits``."""
    return type("TimedH11Protocol", (TimedH11Protocol,), {"limits": limits})


class HeaderLimit:
    """ASGI middleware refusing requests whose target and headers together pass
    ``max_bytes`` with 431, and closing their connection."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            size = len(scope.get("raw_path") or b"") + len(scope.get("query_string") or b"")
            size += sum(len(name) + len(value) + 4 for name, value in scope["headers"])
            if size > self.max_bytes:
                text = f"the request's headers are over {self.max_bytes} bytes".encode()
                headers = [
                    (b"content-type", b"text/plain; charset=utf-8"),
                    (b"connection", b"close"),
                ]
                await send({"type": "http.response.start", "status": 431, "headers": headers})
                await send({"type": "http.response.body", "body": text})
                return
        await self.app(scope, receive, send)
