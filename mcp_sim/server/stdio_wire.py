"""The stdio transport: newline-delimited JSON-RPC on the process's stdin and stdout, each line
judged by :mod:`mcp_sim.server.jsonrpc_check` before the SDK's server sees it.

It stands in for the SDK's ``stdio_server``, which drops silently every line its parser
refuses (see :mod:`~mcp_sim.server.jsonrpc_check`): here those lines are answered, through the
same writer as the server's own replies, so no line is ever torn. Like the SDK's transport,
it moves the wire off file descriptors 0 and 1 while serving (fd 0 reads the null device, fd
1 writes to stderr), so nothing a library prints and nothing a child process inherits reaches
the wire. A line longer than ``max_message_bytes`` is skipped unread and refused.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import AsyncIterator, Iterator
from typing import BinaryIO

import anyio
import anyio.to_thread
import mcp.types as types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import SessionMessage

from mcp_sim.server.jsonrpc_check import MAX_MESSAGE_BYTES, Refusal, Verdict, check_message

_SKIP_CHUNK = 1 << 16

Incoming = MemoryObjectSendStream[SessionMessage | Exception]


def read_message(source: BinaryIO, max_bytes: int) -> Verdict | None:
    """The verdict on the next non-empty line of ``source``; ``None`` at the end of input.
    Bytes that are not UTF-8 are replaced (U+FFFD), as the SDK's transport does."""
    while True:
        line = source.readline(max_bytes + 1)
        if not line:
            return None
        if len(line) > max_bytes and not line.endswith(b"\n"):
            while (rest := source.readline(_SKIP_CHUNK)) and not rest.endswith(b"\n"):
                pass
            message = f"a message is at most {max_bytes} bytes"
            return Verdict(refusals=(Refusal(None, types.INVALID_REQUEST, message),))
        if line.strip():
            if not line.isascii():
                line = line.decode("utf-8", errors="replace").encode()
            return check_message(line)


async def _read(
    source: BinaryIO,
    incoming: Incoming,
    replies: MemoryObjectSendStream[SessionMessage],
    max_bytes: int,
) -> None:
    async with incoming, replies, _stopped_server():
        while True:
            verdict = await anyio.to_thread.run_sync(
                read_message, source, max_bytes, abandon_on_cancel=True
            )
            if verdict is None:
                return
            if verdict.message is not None:
                await incoming.send(SessionMessage(verdict.message))
            for refusal in verdict.refusals:
                await replies.send(SessionMessage(refusal.reply()))


@contextlib.asynccontextmanager
async def _stopped_server() -> AsyncIterator[None]:
    """Ends the reader quietly when the server has stopped taking messages."""
    with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
        yield


def _write_line(sink: BinaryIO, line: bytes) -> None:
    sink.write(line)
    sink.flush()


async def _write(sink: BinaryIO, outgoing: MemoryObjectReceiveStream[SessionMessage]) -> None:
    """Writes each message as one line. Once the client has closed its end, the rest are
    taken and dropped, so the server is never left waiting on a writer."""
    broken = False
    async with outgoing:
        async for item in outgoing:
            if broken:
                continue
            text = item.message.model_dump_json(by_alias=True, exclude_unset=True)
            try:
                await anyio.to_thread.run_sync(_write_line, sink, text.encode() + b"\n")
            except OSError:
                broken = True


@contextlib.contextmanager
def claimed_stdio() -> Iterator[tuple[BinaryIO, BinaryIO]]:
    """The process's stdin and stdout as the wire, on descriptors of their own; fd 0 reads the
    null device and fd 1 writes to stderr until the block ends. Where the descriptors cannot
    be moved (stdin or stdout closed or replaced), the streams are used where they are."""
    try:
        sys.stdout.flush()
        wire_in, wire_out = os.dup(0), os.dup(1)
    except (OSError, ValueError):
        yield sys.stdin.buffer, sys.stdout.buffer
        return
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    sink = os.fdopen(wire_out, "wb", closefd=False)
    try:
        # The wire's input is never closed: a reader thread may still be blocked on it.
        yield os.fdopen(wire_in, "rb", closefd=False), sink
    finally:
        with contextlib.suppress(OSError):
            sink.flush()
        sys.stdout.flush()
        os.dup2(wire_out, 1)
        os.dup2(wire_in, 0)
        os.close(wire_out)


Streams = tuple[
    MemoryObjectReceiveStream[SessionMessage | Exception], MemoryObjectSendStream[SessionMessage]
]


@contextlib.asynccontextmanager
async def checked_stdio(
    source: BinaryIO, sink: BinaryIO, *, max_message_bytes: int = MAX_MESSAGE_BYTES
) -> AsyncIterator[Streams]:
    """The read and write streams of a server speaking on ``source`` and ``sink``. When the
    server is done, the replies already sent are written out before the block ends."""
    incoming, received = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    sent, outgoing = anyio.create_memory_object_stream[SessionMessage](0)
    async with anyio.create_task_group() as writers:
        writers.start_soon(_write, sink, outgoing)
        async with anyio.create_task_group() as readers:
            readers.start_soon(_read, source, incoming, sent.clone(), max_message_bytes)
            try:
                yield received, sent
            finally:
                readers.cancel_scope.cancel()
                sent.close()
