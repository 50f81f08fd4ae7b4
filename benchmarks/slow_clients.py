"""How long slow HTTP clients can hold a connection to ``mcp-sim serve --http``.

    python benchmarks/slow_clients.py [--connections 300] [--seconds 40] [--server-args ...]

Starts ``mcp-sim serve benchmarks/worlds/lookup.yaml --http`` with an operator token, then opens
``--connections`` connections of each kind and keeps them going for ``--seconds``:

- idle: connects and sends nothing;
- slow headers: sends a request line, then one byte of its headers per second;
- slow body (token): complete headers with the operator's token and a 100 KB Content-Length,
  then one byte of the body per second;
- slow body (no token): the same without a token.

It prints, for each kind, how many connections the server still held after 5, 15 and 30
seconds and at the end, and the median time the server took to close the others. Nothing
here passes or fails.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import resource
import statistics
import time
from typing import Any

from run import ROOT, STARTED, mcp_sim_command, start_http

TOKEN = "slow-clients-benchmark-token"
KINDS = ("idle", "slow headers", "slow body (token)", "slow body (no token)")


def opening(kind: str, host: str) -> tuple[bytes, bytes]:
    """What a connection of ``kind`` sends at once, and what it then sends a byte at a time."""
    if kind == "idle":
        return b"", b""
    if kind == "slow headers":
        return b"POST /mcp HTTP/1.1\r\n", f"Host: {host}\r\nX-Padding: {'a' * 200}\r\n".encode()
    auth = f"Authorization: Bearer {TOKEN}\r\n" if kind == "slow body (token)" else ""
    head = (
        f"POST /mcp HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
        f"Accept: application/json, text/event-stream\r\n{auth}Content-Length: 100000\r\n\r\n"
    )
    return head.encode(), b"{" + b" " * 99_999


async def hold(kind: str, host: str, port: int, seconds: float, started: float) -> float | None:
    """Seconds until the server closed the connection, or ``None`` if it held it to the end."""
    reader, writer = await asyncio.open_connection(host, port)
    first, trickle = opening(kind, host)
    try:
        writer.write(first)
        await writer.drain()
        sent = 0
        while time.monotonic() - started < seconds:
            if sent < len(trickle):
                writer.write(trickle[sent : sent + 1])
                await writer.drain()
                sent += 1
            with contextlib.suppress(TimeoutError):
                if await asyncio.wait_for(reader.read(65536), 1.0) == b"":
                    return time.monotonic() - started
        return None
    except (ConnectionError, OSError):
        return time.monotonic() - started
    finally:
        writer.close()


async def measure(connections: int, seconds: float, server_args: list[str]) -> dict[str, Any]:
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 65536), hard))
    command = [*mcp_sim_command_args(), "--auth-token", TOKEN, *server_args]
    _, url = start_http(command, "mcp-sim")
    host_port = url.split("//")[1].split("/")[0]
    host, port = host_port.split(":")
    started = time.monotonic()
    tasks = {
        kind: [
            asyncio.create_task(hold(kind, host, int(port), seconds, started))
            for _ in range(connections)
        ]
        for kind in KINDS
    }
    report: dict[str, Any] = {}
    for kind, group in tasks.items():
        closed_at = [t for t in await asyncio.gather(*group) if t is not None]
        report[kind] = {
            f"held at {mark}s": connections - sum(1 for t in closed_at if t <= mark)
            for mark in (5, 15, 30)
            if mark < seconds
        } | {
            "held at the end": connections - len(closed_at),
            "median seconds to close": round(statistics.median(closed_at), 1)
            if closed_at
            else None,
        }
    return report


def mcp_sim_command_args() -> list[str]:
    """``mcp-sim serve`` of the benchmark world, its model a URL nothing listens on (no call
    here reaches the model)."""
    return mcp_sim_command(ROOT / "benchmarks" / "worlds" / "lookup.yaml", "http://127.0.0.1:9/v1")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--connections", type=int, default=300)
    parser.add_argument("--seconds", type=float, default=40.0)
    parser.add_argument(
        "--server-args", nargs=argparse.REMAINDER, default=[], help="more mcp-sim serve flags"
    )
    args = parser.parse_args()
    try:
        report = await measure(args.connections, args.seconds, args.server_args)
    finally:
        for process in STARTED:
            process.stop()
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(main())
