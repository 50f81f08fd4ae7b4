"""A lean HTTP/1.1 client for the world model's endpoints.

Every tool call makes at least one request to the world model, so the cost of that request is
on every call's path, and a thousand sessions make a thousand at once. httpx, measured on the
benchmark machine, took ~1.3 ms of CPU per streamed request (more than the whole of an MCP
call to a minimal server), and its connection pool checks every idle connection with a system
call on each request and each response, so the cost per request grew with the number of
requests in flight: at a few hundred it took most of the server's CPU. This client does only
what an OpenAI-compatible endpoint needs, in ~0.15 ms:

- ``POST`` with a JSON body and ``GET``, over TCP or TLS;
- responses framed by ``Content-Length``, chunked transfer coding, or the end of the
  connection (no content codings: it asks for ``identity``);
- connections kept alive per origin and reused most-recent-first, in O(1); one that has been
  idle for ``keepalive_expiry`` is dropped, and a request that finds its reused connection
  closed by the server before any answer is sent once more on a new one.

It raises httpx's exception types (``ConnectError``, ``ConnectTimeout``, ``ReadError``,
``RemoteProtocolError``), so that the model client translates failures into mcp-sim's errors in
one place whether it runs on this client or on an httpx client (injected by tests, or chosen
when a proxy is configured, which this client does not speak).
"""

from __future__ import annotations

import json
import ssl
import time
from collections import deque
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Protocol
from urllib.parse import urlsplit

import anyio
import anyio.abc
import httpx

_MAX_HEAD = 64 * 1024
_READ_SIZE = 256 * 1024
_NO_BODY_STATUS = frozenset({204, 304})
# Where a chunked body is, when no chunk's data is being read (``Response._remaining``).
_SIZE_LINE, _AFTER_DATA, _TRAILERS = 0, -1, -2


class StreamedResponse(Protocol):
    """What the model client reads of a response, from this client or from httpx."""

    @property
    def status_code(self) -> int: ...

    @property
    def headers(self) -> Mapping[str, str]: ...

    def aiter_bytes(self) -> AsyncIterator[bytes]: ...


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
        raise httpx.UnsupportedProtocol(f"not an http(s) URL: {url!r}")
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


def _tls_context() -> ssl.SSLContext:
    context = ssl.create_default_context()
    try:  # the CA bundle httpx would use, on top of the system's
        import certifi

        context.load_verify_locations(certifi.where())
    except (ImportError, OSError):
        pass
    return context


class _Connection:
    """One TCP (or TLS) connection and the bytes read from it but not yet used."""

    def __init__(self, stream: anyio.abc.ByteStream) -> None:
        self.stream = stream
        self.buffer = bytearray()
        self.idle_since = 0.0
        self.eof = False

    async def fill(self) -> bool:
        """Read more into the buffer; False at the end of the stream."""
        if self.eof:
            return False
        try:
            data = await self.stream.receive(_READ_SIZE)
        except anyio.EndOfStream:
            self.eof = True
            return False
        except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError) as exc:
            raise httpx.ReadError(f"connection broke while reading: {exc!r}") from exc
        self.buffer += data
        return True

    async def send(self, data: bytes) -> None:
        try:
            await self.stream.send(data)
        except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError) as exc:
            raise httpx.WriteError(f"connection broke while sending: {exc!r}") from exc

    async def aclose(self) -> None:
        # Shielded: a cancelled call must still close its connection, which is what tells the
        # model server to stop generating.
        with anyio.CancelScope(shield=True):
            with suppress(anyio.BrokenResourceError, OSError):
                await self.stream.aclose()


@dataclass
class Response:
    """The parts of a response the model client reads (the subset of ``httpx.Response`` it
    uses, so the same code reads either)."""

    status_code: int
    headers: Mapping[str, str]
    _connection: _Connection = field(repr=False)
    _framing: str = "close"
    """``length``, ``chunked`` or ``close`` (body until the connection ends)."""
    _remaining: int = 0
    """Body bytes still to come (``length``), or where a chunked body is (``chunked``)."""
    _done: bool = False
    _content: bytes | None = None
    keep_alive: bool = True

    async def aiter_bytes(self) -> AsyncIterator[bytes]:
        """The body as it arrives."""
        if self._content is not None:
            if self._content:
                yield self._content
            return
        connection = self._connection
        if self._framing == "length":
            while self._remaining > 0:
                if not connection.buffer and not await connection.fill():
                    raise httpx.RemoteProtocolError(
                        "peer closed connection without sending complete message body"
                    )
                piece = bytes(connection.buffer[: self._remaining])
                del connection.buffer[: len(piece)]
                self._remaining -= len(piece)
                yield piece
        elif self._framing == "chunked":
            async for piece in self._chunks():
                yield piece
        else:
            while True:
                if connection.buffer:
                    piece = bytes(connection.buffer)
                    connection.buffer.clear()
                    yield piece
                if not await connection.fill():
                    break
        self._done = True

    async def _chunks(self) -> AsyncIterator[bytes]:
        """Chunked transfer coding: size line, data, CRLF, ...; a zero size, trailers, a blank
        line. Each read's data is handed on at once, joined."""
        connection = self._connection
        buffer = connection.buffer
        while True:
            pieces: list[bytes] = []
            while True:
                if self._remaining > 0:
                    if not buffer:
                        break
                    piece = bytes(buffer[: self._remaining])
                    del buffer[: len(piece)]
                    pieces.append(piece)
                    self._remaining -= len(piece)
                    if self._remaining:
                        break
                    self._remaining = _AFTER_DATA
                elif self._remaining == _AFTER_DATA:
                    if len(buffer) < 2:
                        break
                    if buffer[:2] != b"\r\n":
                        raise httpx.RemoteProtocolError("chunk data is not followed by CRLF")
                    del buffer[:2]
                    self._remaining = _SIZE_LINE
                else:
                    end = buffer.find(b"\r\n")
                    if end < 0:
                        if len(buffer) > _MAX_HEAD:
                            raise httpx.RemoteProtocolError("chunk size line too long")
                        break
                    line = bytes(buffer[:end])
                    del buffer[: end + 2]
                    if self._remaining == _TRAILERS:
                        if not line:  # the blank line that ends the body
                            if pieces:
                                yield b"".join(pieces)
                            return
                        continue
                    size_text = line.split(b";", 1)[0].strip()
                    try:
                        size = int(size_text, 16)
                    except ValueError:
                        raise httpx.RemoteProtocolError(f"bad chunk size {size_text!r}") from None
                    self._remaining = size if size > 0 else _TRAILERS
            if pieces:
                yield b"".join(pieces)
            if not await connection.fill():
                raise httpx.RemoteProtocolError(
                    "peer closed connection without sending complete message body "
                    "(incomplete chunked read)"
                )

    async def aread(self) -> bytes:
        if self._content is None:
            self._content = b"".join([piece async for piece in self.aiter_bytes()])
        return self._content

    @property
    def content(self) -> bytes:
        if self._content is None:
            raise RuntimeError("the response body has not been read yet")
        return self._content

    def json(self) -> Any:
        return json.loads(self.content)

    @property
    def reusable(self) -> bool:
        return self.keep_alive and self._done and not self._connection.buffer


def _parse_head(head: bytes, method: str) -> tuple[int, dict[str, str], str, int, bool]:
    """(status, headers, framing, content length, keep-alive) from a response head."""
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ", 2)
    if len(parts) < 2 or not parts[0].startswith("HTTP/1.") or not parts[1].isdigit():
        raise httpx.RemoteProtocolError(f"not an HTTP/1.x response: {lines[0][:100]!r}")
    status = int(parts[1])
    headers: dict[str, str] = {}
    for line in lines[1:]:
        if not line:
            continue
        name, colon, value = line.partition(":")
        if not colon:
            raise httpx.RemoteProtocolError(f"malformed response header {line[:100]!r}")
        key = name.strip().lower()
        headers[key] = f"{headers[key]}, {value.strip()}" if key in headers else value.strip()
    connection = headers.get("connection", "").lower()
    keep_alive = parts[0] == "HTTP/1.1" and "close" not in connection
    if method == "HEAD" or status in _NO_BODY_STATUS or 100 <= status < 200:
        return status, headers, "length", 0, keep_alive
    if "chunked" in headers.get("transfer-encoding", "").lower():
        return status, headers, "chunked", 0, keep_alive
    if "content-length" in headers:
        try:
            length = int(headers["content-length"].split(",")[0])
        except ValueError:
            raise httpx.RemoteProtocolError("bad Content-Length") from None
        return status, headers, "length", length, keep_alive
    return status, headers, "close", 0, False


class LeanClient:
    """HTTP/1.1 requests with connections kept alive per origin (see the module docstring)."""

    def __init__(self, *, connect_timeout: float, keepalive_expiry: float = 4.0) -> None:
        self.connect_timeout = connect_timeout
        # Below uvicorn's (and so vLLM's) default keep-alive timeout of 5 s, so a connection
        # is rarely reused just as the server closes it.
        self.keepalive_expiry = keepalive_expiry
        self._idle: dict[tuple[str, str, int], deque[_Connection]] = {}
        self._ssl: ssl.SSLContext | None = None
        self._closed = False

    async def _connect(self, target: _Target) -> _Connection:
        if target.scheme == "https" and self._ssl is None:
            self._ssl = _tls_context()
        try:
            with anyio.fail_after(self.connect_timeout):
                stream = await _open_tcp(target, self._ssl)
        except TimeoutError:
            raise httpx.ConnectTimeout(
                f"no connection to {target.host}:{target.port} within {self.connect_timeout:g} s"
            ) from None
        except (OSError, ssl.SSLError) as exc:
            raise httpx.ConnectError(str(exc) or type(exc).__name__) from exc
        return _Connection(stream)

    async def _checkout(self, target: _Target) -> tuple[_Connection, bool]:
        """A connection to ``target``'s origin, and whether it was reused."""
        idle = self._idle.get(target.origin)
        if idle:
            deadline = time.monotonic() - self.keepalive_expiry
            while idle and idle[0].idle_since < deadline:
                await idle.popleft().aclose()
            if idle:
                return idle.pop(), True
        return await self._connect(target), False

    def _checkin(self, target: _Target, connection: _Connection) -> None:
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
        timeout: object = None,
    ) -> AsyncIterator[Response]:
        """Send a request and yield its response, whose body is read while the block runs.
        ``timeout`` is accepted for httpx compatibility: the caller's deadline bounds a request,
        and ``connect_timeout`` bounds its connection."""
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
            except (httpx.ReadError, httpx.WriteError, httpx.RemoteProtocolError):
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

    async def _exchange(self, connection: _Connection, request: bytes, method: str) -> Response:
        await connection.send(request)
        while True:
            end = connection.buffer.find(b"\r\n\r\n")
            while end < 0:
                if len(connection.buffer) > _MAX_HEAD:
                    raise httpx.RemoteProtocolError("response head too long")
                if not await connection.fill():
                    raise httpx.RemoteProtocolError(
                        "server disconnected without sending a response"
                    )
                end = connection.buffer.find(b"\r\n\r\n")
            head = bytes(connection.buffer[:end])
            del connection.buffer[: end + 4]
            status, headers, framing, length, keep_alive = _parse_head(head, method)
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

    async def get(
        self, url: str, *, headers: Mapping[str, str] | None = None, timeout: object = None
    ) -> Response:
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
