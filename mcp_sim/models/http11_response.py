"""Reading an HTTP/1.1 response off a connection, for the lean client in :mod:`.http11`: the head,
then the body by its framing (``Content-Length``, chunked transfer coding, or the end of the
connection; no content codings, the client asks for ``identity``).

A connection or framing failure is a :class:`~mcp_sim.errors.ConnectionBroken`, which the
model client retries.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping
from contextlib import suppress
from dataclasses import dataclass, field
from typing import Any

import anyio
import anyio.abc

from mcp_sim.errors import ConnectionBroken

MAX_HEAD = 64 * 1024
_READ_SIZE = 256 * 1024
_NO_BODY_STATUS = frozenset({204, 304})
# Where a chunked body is, when no chunk's data is being read (``Response._remaining``).
_SIZE_LINE, _AFTER_DATA, _TRAILERS, _ENDED = 0, -1, -2, -3


class Connection:
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
            raise ConnectionBroken(f"the connection broke while reading: {exc!r}") from exc
        self.buffer += data
        return True

    async def send(self, data: bytes) -> None:
        try:
            await self.stream.send(data)
        except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError) as exc:
            raise ConnectionBroken(f"the connection broke while sending: {exc!r}") from exc

    async def aclose(self) -> None:
        # Shielded: a cancelled call must still close its connection, which is what tells the
        # model server to stop generating.
        with anyio.CancelScope(shield=True):
            with suppress(anyio.BrokenResourceError, OSError):
                await self.stream.aclose()


@dataclass
class Response:
    """A response whose body is read from its connection as the caller asks for it."""

    status_code: int
    headers: Mapping[str, str]
    _connection: Connection = field(repr=False)
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
                    raise ConnectionBroken(
                        "the endpoint closed the connection before the body was complete"
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
        buffer = self._connection.buffer
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
                        raise ConnectionBroken("chunk data is not followed by CRLF")
                    del buffer[:2]
                    self._remaining = _SIZE_LINE
                else:
                    if not self._take_line(buffer):
                        break
                    if self._remaining == _ENDED:
                        if pieces:
                            yield b"".join(pieces)
                        return
            if pieces:
                yield b"".join(pieces)
            if not await self._connection.fill():
                raise ConnectionBroken(
                    "the endpoint closed the connection before the body was complete "
                    "(incomplete chunked read)"
                )

    def _take_line(self, buffer: bytearray) -> bool:
        """Take a chunk size line or a trailer line from ``buffer``; False when it is not all
        there yet."""
        end = buffer.find(b"\r\n")
        if end < 0:
            if len(buffer) > MAX_HEAD:
                raise ConnectionBroken("chunk size line too long")
            return False
        line = bytes(buffer[:end])
        del buffer[: end + 2]
        if self._remaining == _TRAILERS:
            if not line:  # the blank line that ends the body
                self._remaining = _ENDED
            return True
        size_text = line.split(b";", 1)[0].strip()
        try:
            size = int(size_text, 16)
        except ValueError:
            raise ConnectionBroken(f"bad chunk size {size_text!r}") from None
        self._remaining = size if size > 0 else _TRAILERS
        return True

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


def parse_head(head: bytes, method: str) -> tuple[int, dict[str, str], str, int, bool]:
    """(status, headers, framing, content length, keep-alive) from a response head."""
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ", 2)
    if len(parts) < 2 or not parts[0].startswith("HTTP/1.") or not parts[1].isdigit():
        raise ConnectionBroken(f"the answer is not an HTTP/1.x response: {lines[0][:100]!r}")
    status = int(parts[1])
    headers: dict[str, str] = {}
    for line in lines[1:]:
        if not line:
            continue
        name, colon, value = line.partition(":")
        if not colon:
            raise ConnectionBroken(f"malformed response header {line[:100]!r}")
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
            raise ConnectionBroken("bad Content-Length") from None
        return status, headers, "length", length, keep_alive
    return status, headers, "close", 0, False
