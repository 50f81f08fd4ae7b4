"""Per-step overhead of the harness routes against a plain MCP call, on the same world with the
same stand-in model, from one run.

    python benchmarks/harness_overhead.py [--calls 300]

Three ways to make the same tool call of ``benchmarks/worlds/lookup.yaml``, whose every call
goes to the benchmark backend (an OpenAI-compatible server answering at once, one event):

- **mcp**: ``tools/call`` over streamable HTTP to ``mcp-sim serve --http --openenv`` (a fresh
  ``_meta`` session every 20 calls);
- **openenv**: a ``call_tool`` step over the same server's OpenEnv WebSocket (a reset every 20
  steps, not timed);
- **api**: ``Episode.call`` of the Python API in this process (a new episode every 20 calls).

Calls alternate between the routes in rounds, so they see the same machine load. Reported per
step: median latency and CPU (the server's, from /proc, for mcp and openenv; this process's
for the API, which is the simulator), and each route's ratio to mcp.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from typing import Any

from mcp_client import HttpSession, percentile
from run import (
    EPISODE,
    ROOT,
    WORLD,
    cpu_seconds,
    load_average,
    mcp_sim_command,
    start_backend,
    start_http,
)
from websockets.asyncio.client import connect

from mcp_sim.api import Worlds


async def mcp_calls(session: HttpSession, first: int, calls: int) -> list[float]:
    took = []
    for i in range(first, first + calls):
        meta = {"mcp-sim/session": f"mcp-{i // EPISODE}"}
        started = time.perf_counter()
        await session.request(
            "tools/call", {"name": "lookup", "arguments": {"key": f"k{i}"}, "_meta": meta}
        )
        took.append(time.perf_counter() - started)
    return took


async def openenv_calls(socket: Any, first: int, calls: int) -> list[float]:
    took = []
    for i in range(first, first + calls):
        if i % EPISODE == 0:
            await socket.send(json.dumps({"type": "reset", "data": {}}))
            await socket.recv()
        action = {"type": "call_tool", "tool_name": "lookup", "arguments": {"key": f"k{i}"}}
        started = time.perf_counter()
        await socket.send(json.dumps({"type": "step", "data": action}))
        reply = json.loads(await socket.recv())
        took.append(time.perf_counter() - started)
        assert reply["type"] == "observation", reply
    return took


async def api_calls(worlds: Worlds, first: int, calls: int) -> tuple[list[float], float]:
    took, cpu = [], 0.0
    episode = None
    for i in range(first, first + calls):
        if episode is None or i % EPISODE == 0:
            episode = await worlds.episode()
        started, used = time.perf_counter(), time.process_time()
        await episode.call("lookup", {"key": f"k{i}"})
        cpu += time.process_time() - used
        took.append(time.perf_counter() - started)
    return took, cpu


async def measure(calls: int) -> dict[str, dict[str, float]]:
    backend, model_url = start_backend(0.0, token_chars=1024)
    command = [*mcp_sim_command(WORLD, model_url), "--openenv"]
    server, url = start_http(command, "mcp-sim --openenv")
    latencies: dict[str, list[float]] = {"mcp": [], "openenv": [], "api": []}
    cpu = dict.fromkeys(latencies, 0.0)
    try:
        base = url.removesuffix("/mcp")
        session = await HttpSession(url).open()
        async with (
            connect(base.replace("http://", "ws://") + "/ws") as socket,
            await Worlds.open(WORLD, model=model_url) as worlds,
        ):
            await mcp_calls(session, 10**6, EPISODE)  # warm-up: imports, first connections
            await openenv_calls(socket, 10**6, EPISODE)
            await api_calls(worlds, 10**6, EPISODE)
            rounds, per_round = 5, max(EPISODE, calls // 5)
            for round_no in range(rounds):
                first = round_no * per_round
                used = cpu_seconds(server.pid)
                latencies["mcp"] += await mcp_calls(session, first, per_round)
                cpu["mcp"] += cpu_seconds(server.pid) - used
                used = cpu_seconds(server.pid)
                latencies["openenv"] += await openenv_calls(socket, first, per_round)
                cpu["openenv"] += cpu_seconds(server.pid) - used
                took, api_cpu = await api_calls(worlds, first, per_round)
                latencies["api"] += took
                cpu["api"] += api_cpu
        await session.close()
    finally:
        server.stop()
        backend.stop()
    total = rounds * per_round
    figures = {}
    for route in latencies:
        figures[route] = {
            "p50_ms": round((percentile(latencies[route], 0.5) or 0) * 1000, 3),
            "cpu_ms": round(cpu[route] / total * 1000, 3),
        }
    for route in figures:
        figures[route]["latency_ratio"] = round(
            figures[route]["p50_ms"] / figures["mcp"]["p50_ms"], 2
        )
        figures[route]["cpu_ratio"] = round(figures[route]["cpu_ms"] / figures["mcp"]["cpu_ms"], 2)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=300, help="timed calls per route")
    args = parser.parse_args()
    print(f"load average before: {load_average()} (root {ROOT})")
    figures = asyncio.run(measure(args.calls))
    print(f"{'route':8} {'p50 ms':>8} {'cpu ms':>8} {'latency x':>10} {'cpu x':>7}")
    for route, f in figures.items():
        print(
            f"{route:8} {f['p50_ms']:8.2f} {f['cpu_ms']:8.2f} "
            f"{f['latency_ratio']:10.2f} {f['cpu_ratio']:7.2f}"
        )
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
