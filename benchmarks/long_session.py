"""How a long session grows the server: resident memory over thousands of calls on one session.

    python benchmarks/long_session.py [--calls 5000] [--warmup 300] [--result-bytes 512] [--http]

Starts ``benchmarks/backend.py`` (answers at once with a ``--result-bytes`` observation) and
``mcp-sim serve benchmarks/worlds/lookup.yaml`` (over stdio, or ``--http``), makes ``--warmup``
calls on one session (every call a different key, so no two turns are the same), then
``--calls`` more on the same session, and prints the server's resident memory (RSS) after the
warm-up, every 1,000 calls and at the end, with the growth per call. The warm-up lets the
process reach its working size (imports, caches, the first compaction of the history) before
growth is measured. Nothing here passes or fails; the soak test in the suite
(tests/e2e/test_soak.py) pins a bound.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import time
from typing import Any

from mcp_client import HttpSession, StdioClient
from run import ROOT, STARTED, mcp_sim_command, rss_bytes, start_backend, start_http

WORLD = ROOT / "benchmarks" / "worlds" / "lookup.yaml"
SESSION = {"mcp-sim/session": "long-session"}


async def calls(client: Any, first: int, count: int) -> None:
    for i in range(first, first + count):
        params = {"name": "lookup", "arguments": {"key": f"key-{i:06d}"}, "_meta": SESSION}
        await client.request("tools/call", params)


async def measure(args: argparse.Namespace) -> dict[str, Any]:
    _, model_url = start_backend(0.0, result_bytes=args.result_bytes)
    command = mcp_sim_command(WORLD, model_url)
    client: Any
    if args.http:
        server, url = start_http(command, "mcp-sim")
        client = await HttpSession(url).open()
    else:
        client = await StdioClient.start(*command, cwd=str(ROOT))
        server_pid = client.process.pid
    pid = server.pid if args.http else server_pid
    await calls(client, 0, args.warmup)
    before = rss_bytes(pid)
    points = [(0, before)]
    started = time.perf_counter()
    done = 0
    while done < args.calls:
        step = min(1000, args.calls - done)
        await calls(client, args.warmup + done, step)
        done += step
        points.append((done, rss_bytes(pid)))
    seconds = time.perf_counter() - started
    await client.close()
    grown = points[-1][1] - before
    return {
        "transport": "http" if args.http else "stdio",
        "calls": args.calls,
        "warmup": args.warmup,
        "result_bytes": args.result_bytes,
        "rss_after_warmup_mb": round(before / 2**20, 1),
        "rss_points_mb": [[n, round(rss / 2**20, 1)] for n, rss in points],
        "grown_mb": round(grown / 2**20, 2),
        "grown_bytes_per_call": round(grown / args.calls),
        "calls_per_second": round(args.calls / seconds, 1),
    }


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=5000)
    parser.add_argument("--warmup", type=int, default=300)
    parser.add_argument("--result-bytes", type=int, default=512)
    parser.add_argument("--http", action="store_true", help="serve over HTTP instead of stdio")
    args = parser.parse_args()
    try:
        result = await measure(args)
    finally:
        for process in STARTED:
            process.stop()
    print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(main())
