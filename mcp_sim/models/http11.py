"""A lean HTTP/1.1 client for the world model's endpoints.

Every tool call the model answers makes one request to it, so the cost of that request is on
every such call's path, and a thousand sessions make a thousand at once. A general client does
much more per request than an OpenAI-compatible endpoint needs: ``python
benchmarks/model_client.py`` measured httpx2 at 1.2 to 1.8 ms more CPU per streamed request
than this client on the 2-core development machine (1.5 to 1.8 times this client's CPU for an
answer of ~270 token events, 3.4 to 4 times for one event), and its connection pool costs more
the more requests are in flight (2.3 to 2.5 and 7 to 8 times at 100 at once). This client does
only what the endpoint needs:

- ``POST`` with a JSON body and ``GET``, over TCP or TLS (with httpx2's trust store);
- responses framed by ``Content-Length``, chunked transfer coding, or the end of the
  connection (read in :mod:`.http11_response`);
- connections kept alive per origin and reused most-recent-first, in O(1); one that has been
  idle for ``keepalive_expiry`` is dropped, and a request that finds its reused connection
  closed by the server before any answer is sent once more on a new one.

It raises mcp-sim's errors: :class:`~mcp_sim.errors.ConnectFailed` when no connection can be
opened, :class:`~mcp_sim.errors.ConnectionBroken` when one breaks, as the httpx2 client in
:mod:`.http_client` (injected by tests, or chosen when a proxy is configured, which this client
does not speak) does after translating its own.
"""

from __future__ import annotations

import json
import ssl
import time
from collections import deque
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from functools import lru_cache
from typing import Any
from urllib.parse import urlsplit

import anyio
import anyio.abc
import httpx2

from mcp_sim.errors import ConnectFailed, ConnectionBroken
from mcp_sim.models.http11_response import MAX_HEAD, Connection, Response, parse_head


@dataclass(frozen=True)
class _Target:
    scheme: str
    host: str
    port: int
    path: str
    """Path and query, as the request line carries it."""

    @property
    def origin(self) -> tuple[str, str, int]:
        return self.scheme, self.host, self.port


@lru_cache(maxsize=256)
def _target(url: str) -> _Target:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"not an http(s) URL: {url!r}")
    port = parts.port or (443 if parts.scheme == "https" else 80)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return _Target(parts.scheme, parts.hostname, port, path)


async def _open_tcp(target: _Target, ssl_context: ssl.SSLContext | None) -> anyio.abc.ByteStream:
    if target.scheme == "https":
        # Not standard-compatible: many servers end TLS without close_notify, which must read
        # as the end of the stream, not as a broken connection.
        return await anyio.connect_tcp(
            target.host,
            target.port,
            tls=True,
            ssl_context=ssl_context,
            tls_hostname=target.host,
            tls_standard_compatible=False,
        )
    return await anyio.connect_tcp(target.host, target.port)


class LeanClient:
    """HTTP/1.1 requests with connections kept alive per origin (see the module docstring)."""

    def __init__(self, *, connect_timeout: float, keepalive_expiry: float = 4.0) -> None:
        self.connect_timeout = connect_timeout
        # Below uvicorn's (and so vLLM's) default keep-alive timeout of 5 s, so a connection
        # is rarely reused just as the server closes it.
        self.keepalive_expiry = keepalive_expiry
        self._idle: dict[tuple[str, str, int], deque[Connection]] = {}
        self._ssl: ssl.SSLContext | None = None
        self._closed = False

    async def _connect(self, target: _Target) -> Connection:
        if target.scheme == "https" and self._ssl is None:
            self._ssl = httpx2.create_ssl_context()
        try:
            with anyio.fail_after(self.connect_timeout):
                stream = await _open_tcp(target, self._ssl)
        except TimeoutError:
            raise ConnectFailed(
                f"could not connect to {target.host}:{target.port} within "
                f"{self.connect_timeout:g} s (connect timeout)",
                timed_out=True,
            ) from None
        except (OSError, ssl.SSLError) as exc:
            raise ConnectFailed(str(exc) or type(exc).__name__) from exc
        return Connection(stream)

    async def _checkout(self, target: _Target) -> tuple[Connection, bool]:
        """A connection to ``target``'s origin, and whether it was reused."""
        idle = self._idle.get(target.origin)
        if idle:
            deadline = time.monotonic() - self.keepalive_expiry
            while idle and idle[0].idle_since < deadline:
                await idle.popleft().aclose()
            if idle:
                return idle.pop(), True
        return await self._connect(target), False

    def _checkin(self, target: _Target, connection: Connection) -> None:
        connection.idle_since = time.monotonic()
        self._idle.setdefault(target.origin, deque()).append(connection)

    @asynccontextmanager
    async def stream(
        self,
        method: str,
        url: str,
        *,
        json: Any = None,
        headers: Mapping[str, str] | None = None,
    ) -> AsyncIterator[Response]:
        """Send a request and yield its response, whose body is read while the block runs. The
        caller's deadline bounds the request; ``connect_timeout`` bounds its connection."""
        if self._closed:
            raise RuntimeError("this LeanClient has been closed")
        target = _target(url)
        body = b""
        if json is not None:
            body = _dumps(json).encode()
        head = self._head(method, target, headers or {}, body)
        connection, reused = await self._checkout(target)
        response: Response | None = None
        try:
            try:
                response = await self._exchange(connection, head + body, method)
            except ConnectionBroken:
                if not reused or connection.buffer:
                    raise
                # The server closed the kept-alive connection before this request reached it.
                await connection.aclose()
                connection = await self._connect(target)
                response = await self._exchange(connection, head + body, method)
            yield response
        finally:
            if response is not None and response.reusable and not self._closed:
                self._checkin(target, connection)
            else:
                await connection.aclose()

    async def _exchange(self, connection: Connection, request: bytes, method: str) -> Response:
        await connection.send(request)
        while True:
            end = connection.buffer.find(b"\r\n\r\n")
            while end < 0:
                if len(connection.buffer) > MAX_HEAD:
                    raise ConnectionBroken("the response head is too long")
                if not await connection.fill():
                    raise ConnectionBroken("the endpoint closed the connection without answering")
                end = connection.buffer.find(b"\r\n\r\n")
            head = bytes(connection.buffer[:end])
            del connection.buffer[: end + 4]
            status, headers, framing, length, keep_alive = parse_head(head, method)
            if not 100 <= status < 200:
                return Response(status, headers, connection, framing, length, keep_alive=keep_alive)

    @staticmethod
    def _head(method: str, target: _Target, headers: Mapping[str, str], body: bytes) -> bytes:
        default_port = 443 if target.scheme == "https" else 80
        host = target.host if target.port == default_port else f"{target.host}:{target.port}"
        if ":" in target.host:
            host = f"[{target.host}]" + ("" if target.port == default_port else f":{target.port}")
        lines = [f"{method} {target.path} HTTP/1.1", f"Host: {host}"]
        given = {name.lower() for name in headers}
        if body or method in ("POST", "PUT", "PATCH"):
            lines.append(f"Content-Length: {len(body)}")
            if "content-type" not in given:
                lines.append("Content-Type: application/json")
        if "accept-encoding" not in given:
            lines.append("Accept-Encoding: identity")
        if "user-agent" not in given:
            lines.append("User-Agent: mcp-sim")
        for name, value in headers.items():
            if "\r" in name or "\n" in name or "\r" in value or "\n" in value:
                raise ValueError(f"header {name!r} contains a line break")
            lines.append(f"{name}: {value}")
        return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")

    async def get(self, url: str, *, headers: Mapping[str, str] | None = None) -> Response:
        """A GET whose whole body is read (``.content``, ``.json()``)."""
        async with self.stream("GET", url, headers=headers) as response:
            await response.aread()
        return response

    async def aclose(self) -> None:
        self._closed = True
        idle, self._idle = self._idle, {}
        for connections in idle.values():
            for connection in connections:
                await connection.aclose()


def _dumps(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
