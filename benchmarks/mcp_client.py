"""Lean MCP clients for the benchmarks: JSON-RPC over a subprocess's stdio, and streamable HTTP
over raw keep-alive connections, one per session.

They do only what a client must (the handshake, then ``tools/call``), with no validation
layers, so that on a machine with two cores the client takes as little CPU as possible from the
server under test. The load generator runs in a process of its own:

    python benchmarks/mcp_client.py load --url http://127.0.0.1:PORT/mcp --sessions 100 \\
        --duration 10

prints one JSON object: calls completed in the window, calls/s, latency percentiles, errors.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import sys
import time
from typing import Any
from urllib.parse import urlsplit

PROTOCOL = "2025-11-25"
INITIALIZE = {
    "protocolVersion": PROTOCOL,
    "capabilities": {},
    "clientInfo": {"name": "mcp-sim-bench", "version": "0"},
}


class CallFailed(Exception):
    """A call came back as a JSON-RPC error, an isError result, or not at all."""


def _check(message: dict[str, Any]) -> dict[str, Any]:
    if "error" in message:
        raise CallFailed(json.dumps(message["error"])[:300])
    result: dict[str, Any] = message["result"]
    if result.get("isError"):
        raise CallFailed(json.dumps(result)[:300])
    return result


class StdioClient:
    """A server started as a subprocess, spoken to in newline-delimited JSON-RPC."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self._ids = itertools.count(1)

    @classmethod
    async def start(cls, *command: str, cwd: str | None = None) -> StdioClient:
        process = await asyncio.create_subprocess_exec(
            *command,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            cwd=cwd,
            limit=16 * 1024 * 1024,
        )
        client = cls(process)
        await client.request("initialize", INITIALIZE)
        await client.notify("notifications/initialized")
        return client

    async def notify(self, method: str) -> None:
        await self._send({"jsonrpc": "2.0", "method": method})

    async def _send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        await self.process.stdin.drain()

    async def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        request_id = next(self._ids)
        await self._send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        assert self.process.stdout is not None
        while True:
            line = await self.process.stdout.readline()
            if not line:
                raise CallFailed("the server closed its stdout")
            message = json.loads(line)
            if message.get("id") == request_id:
                return _check(message)

    async def call(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        return await self.request("tools/call", {"name": tool, "arguments": arguments})

    async def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            await asyncio.wait_for(self.process.wait(), 5)
        except TimeoutError:
            self.process.kill()
            await self.process.wait()


class HttpSession:
    """One MCP session over streamable HTTP (handshake-era, so the server keeps a session with
    an ``Mcp-Session-Id``), on one keep-alive connection of its own."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self.host = parts.hostname or "127.0.0.1"
        self.port = parts.port or 80
        self.path = parts.path or "/"
        self.session_id: str | None = None
        self._ids = itertools.count(1)
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None

    async def open(self) -> HttpSession:
        self._reader, self._writer = await asyncio.open_connection(self.host, self.port)
        await self.request("initialize", INITIALIZE)
        await self._post({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return self

    async def _post(self, message: dict[str, Any]) -> tuple[int, dict[str, str], bytes]:
        try:
            return await self._exchange(message)
        except (asyncio.IncompleteReadError, ConnectionError):
            # The server closed the idle keep-alive connection (uvicorn does after 5 s), as
            # real clients expect: the MCP session lives on, on a new connection.
            await self.close()
            self._reader, self._writer = await asyncio.open_connection(self.host, self.port)
            return await self._exchange(message)

    async def _exchange(self, message: dict[str, Any]) -> tuple[int, dict[str, str], bytes]:
        assert self._reader is not None and self._writer is not None
        body = json.dumps(message).encode()
        headers = [
            f"POST {self.path} HTTP/1.1",
            f"Host: {self.host}:{self.port}",
            "Content-Type: application/json",
            "Accept: application/json, text/event-stream",
            f"Content-Length: {len(body)}",
        ]
        if self.session_id is not None:
            headers += [f"Mcp-Session-Id: {self.session_id}", f"MCP-Protocol-Version: {PROTOCOL}"]
        self._writer.write(("\r\n".join(headers) + "\r\n\r\n").encode() + body)
        await self._writer.drain()
        head = await self._reader.readuntil(b"\r\n\r\n")
        status_line, *lines = head.decode("latin-1").split("\r\n")
        status = int(status_line.split(" ", 2)[1])
        fields = {}
        for line in lines:
            if line:
                name, _, value = line.partition(":")
                fields[name.strip().lower()] = value.strip()
        if fields.get("transfer-encoding") == "chunked":
            parts = []
            while True:
                size = int((await self._reader.readline()).split(b";")[0], 16)
                if size == 0:
                    await self._reader.readline()
                    break
                parts.append(await self._reader.readexactly(size))
                await self._reader.readline()
            payload = b"".join(parts)
        else:
            payload = await self._reader.readexactly(int(fields.get("content-length", "0")))
        return status, fields, payload

    async def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        request_id = next(self._ids)
        status, fields, payload = await self._post(
            {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
        )
        if status != 200:
            raise CallFailed(f"HTTP {status}: {payload[:300]!r}")
        if "mcp-session-id" in fields:
            self.session_id = fields["mcp-session-id"]
        if fields.get("content-type", "").startswith("text/event-stream"):
            for event in payload.split(b"\n\n"):
                for line in event.split(b"\n"):
                    # A stream opens with a priming event whose data is empty (resumability).
                    if line.startswith(b"data:") and line[5:].strip():
                        message = json.loads(line[5:])
                        if message.get("id") == request_id:
                            return _check(message)
            raise CallFailed(f"no response to request {request_id} in the event stream")
        return _check(json.loads(payload))

    async def call(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        return await self.request("tools/call", {"name": tool, "arguments": arguments})

    async def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            with contextlib.suppress(ConnectionError):
                await self._writer.wait_closed()


def percentile(values: list[float], q: float) -> float | None:
    ordered = sorted(values)
    if not ordered:
        return None
    return ordered[max(0, min(len(ordered) - 1, round(q * len(ordered)) - 1))]


async def create_episode(base: str) -> str:
    """``POST {base}/episodes`` on a connection of its own: the new episode's MCP URL."""
    parts = urlsplit(base)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    reader, writer = await asyncio.open_connection(host, port)
    try:
        writer.write(
            f"POST /episodes HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Length: 0\r\n"
            "Connection: close\r\n\r\n".encode()
        )
        reply = await reader.read()
    finally:
        writer.close()
    head, _, body = reply.partition(b"\r\n\r\n")
    if not head.startswith(b"HTTP/1.1 201"):
        raise CallFailed(f"POST /episodes: {head[:40]!r} {body[:300]!r}")
    url: str = json.loads(body)["mcp_url"]
    return url


async def load(
    url: str, sessions: int, duration: float, tool: str, episodes: bool = False
) -> dict[str, Any]:
    """Open ``sessions`` sessions, then have each call ``tool`` back to back for ``duration``
    seconds (after half a second of warming up). The calls that end inside that window
    count; no call starts after it. With ``episodes`` each session is an episode of its own,
    created at ``url`` (a server's base URL), and speaks to its episode's URL."""
    opened: list[HttpSession] = []
    started = time.perf_counter()
    # Opened a few hundred at a time: a thousand handshakes at once only measure the backlog.
    for first in range(0, sessions, 200):
        count = min(sessions, first + 200) - first
        if episodes:
            urls = await asyncio.gather(*(create_episode(url) for _ in range(count)))
        else:
            urls = [url] * count
        batch = [HttpSession(u) for u in urls]
        opened += await asyncio.gather(*(s.open() for s in batch))
    open_seconds = time.perf_counter() - started
    latencies: list[float] = []
    errors: list[str] = []
    window_start = time.perf_counter() + 0.5
    window_end = window_start + duration

    async def mark_window() -> None:
        # Printed as the window opens and closes, so that whoever runs this can read the CPU
        # the processes involved use in the window itself.
        await asyncio.sleep(window_start - time.perf_counter())
        print("window-start", flush=True)
        await asyncio.sleep(window_end - time.perf_counter())
        print("window-end", flush=True)

    marker = asyncio.create_task(mark_window())

    async def run(index: int, session: HttpSession) -> None:
        # Spread the first calls over the first ~0.2 s, as independent episodes would start.
        await asyncio.sleep((index % 200) / 1000)
        while True:
            begin = time.perf_counter()
            if begin >= window_end:
                return
            try:
                await session.call(tool, {"key": f"k{index}"})
            except (CallFailed, ConnectionError, asyncio.IncompleteReadError) as exc:
                errors.append(str(exc))
                return
            end = time.perf_counter()
            # Throughput counts the calls that end inside the window, wherever they began:
            # under overload a call can take longer than the window itself.
            if window_start <= end <= window_end:
                latencies.append(end - begin)

    await asyncio.wait_for(
        asyncio.gather(*(run(i, s) for i, s in enumerate(opened))), duration + 120
    )
    await marker
    await asyncio.gather(*(s.close() for s in opened))
    return {
        "sessions": sessions,
        "open_seconds": round(open_seconds, 2),
        "calls": len(latencies),
        "calls_per_second": len(latencies) / duration,
        "p50_ms": (percentile(latencies, 0.5) or 0) * 1000,
        "p99_ms": (percentile(latencies, 0.99) or 0) * 1000,
        "errors": len(errors),
        "first_error": errors[0] if errors else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("load", help="many sessions calling back to back")
    run.add_argument("--url", required=True)
    run.add_argument("--sessions", type=int, required=True)
    run.add_argument("--duration", type=float, default=10.0)
    run.add_argument("--tool", default="lookup")
    run.add_argument(
        "--episodes", action="store_true", help="one episode per session, created at --url"
    )
    args = parser.parse_args()
    result = asyncio.run(load(args.url, args.sessions, args.duration, args.tool, args.episodes))
    json.dump(result, sys.stdout)
    print()


if __name__ == "__main__":
    main()
