"""What the caps hold a server to: with every cap at its default, the server's memory (RSS)
after a 100 MB snapshot body, the largest snapshot the caps let through and one just past them,
20,000 episode creations and 5,000 OpenEnv WebSockets.

    python benchmarks/caps.py [--creations 20000] [--sockets 5000] [--json FILE]

The server is ``mcp-sim serve --openenv`` of the benchmarks' lookup world, the model
``benchmarks/backend.py``. RSS is read from /proc after each step, and the peak (VmHWM) at the
end. Nothing passes or fails; the figures are printed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx2
from run import PYTHON, WORLD, rss_bytes, running, start_backend, start_http
from websockets.asyncio.client import ClientConnection, connect

MB = 1024 * 1024


def peak_rss(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    return 0


def worst_snapshot(taken: dict[str, Any], values: int) -> bytes:
    """``taken`` with ``values`` empty objects added to its state: the most memory per byte
    JSON has (3 bytes on the wire, 64 parsed)."""
    state = dict(taken["state"], filler=[{}] * values)
    return json.dumps({"snapshot": dict(taken, state=state)}, separators=(",", ":")).encode()


async def snapshots(http: httpx2.AsyncClient, pid: int) -> list[list[str]]:
    rows = []
    try:
        big = await http.post("/episodes", content=b" " * (100 * MB))
        said = f"HTTP {big.status_code} {big.json()['error']}"
    except httpx2.HTTPError as exc:  # the server closed while we still sent
        said = f"closed while sending ({type(exc).__name__})"
    rows.append(["100 MB snapshot body", said, f"{rss_bytes(pid) / MB:.0f}"])
    made = (await http.post("/episodes", json={})).json()
    taken = (await http.post(f"/episodes/{made['id']}/snapshot")).json()
    await http.delete(f"/episodes/{made['id']}")
    for label, values in (("over the value cap", 600_000), ("just under the value cap", 490_000)):
        body = worst_snapshot(taken, values)
        reply = await http.post(
            "/episodes", content=body, headers={"content-type": "application/json"}
        )
        size = f"{len(body) / MB:.1f} MB, {values:,} values ({label})"
        said = f"HTTP {reply.status_code} {reply.json().get('error', '')}"
        rows.append([size, said, f"{rss_bytes(pid) / MB:.0f}"])
        if reply.status_code == 201:
            await http.delete(f"/episodes/{reply.json()['id']}")
    return rows


async def creations(base: str, count: int) -> Counter[int]:
    statuses: Counter[int] = Counter()
    queue = iter(range(count))

    async def one_client() -> None:
        async with httpx2.AsyncClient(base_url=base, timeout=60) as http:
            for _ in queue:
                statuses[(await http.post("/episodes", json={})).status_code] += 1

    await asyncio.gather(*(one_client() for _ in range(16)))
    return statuses


async def sockets(base: str, count: int) -> tuple[list[ClientConnection], Counter[str]]:
    url = base.replace("http://", "ws://") + "/ws"
    held: list[ClientConnection] = []
    outcomes: Counter[str] = Counter()
    for start in range(0, count, 250):
        opened = await asyncio.gather(
            *(connect(url, open_timeout=60) for _ in range(start, min(count, start + 250))),
            return_exceptions=True,
        )
        for ws in opened:
            if isinstance(ws, BaseException):
                outcomes[f"failed: {type(ws).__name__}"] += 1
                continue
            try:
                first = await asyncio.wait_for(ws.recv(), 0.05)
            except TimeoutError:  # nothing said: held open, as the server keeps it
                held.append(ws)
                outcomes["open"] += 1
            else:
                outcomes[json.loads(first)["data"]["code"]] += 1
                await ws.close()
    return held, outcomes


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--creations", type=int, default=20_000)
    parser.add_argument("--sockets", type=int, default=5_000)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    backend, model_url = start_backend(0.0)
    command = [PYTHON, "-m", "mcp_sim", "serve", str(WORLD), "--model-url", model_url]
    server, mcp_url = start_http([*command, "--openenv"], "mcp-sim")
    base, pid = mcp_url.removesuffix("/mcp"), server.pid
    rows = [["started", "", f"{rss_bytes(pid) / MB:.0f}"]]
    with running(backend, server):
        async with httpx2.AsyncClient(base_url=base, timeout=120) as http:
            rows += await snapshots(http, pid)
        started = time.monotonic()
        statuses = await creations(base, args.creations)
        took = time.monotonic() - started
        made = ", ".join(f"{n:,} HTTP {s}" for s, n in sorted(statuses.items()))
        rows.append(
            [f"{args.creations:,} creations ({took:.0f} s)", made, f"{rss_bytes(pid) / MB:.0f}"]
        )
        held, outcomes = await sockets(base, args.sockets)
        said = ", ".join(f"{n:,} {o}" for o, n in sorted(outcomes.items()))
        rows.append([f"{args.sockets:,} WebSockets", said, f"{rss_bytes(pid) / MB:.0f}"])
        peak = peak_rss(pid)
        for ws in held:
            await ws.close()
    print(f"file limit: this client {hard}, fd soft limit was {soft}")
    width = max(len(r[0]) for r in rows) + 2
    for label, outcome, rss in rows:
        print(f"{label:{width}}{rss:>6} MB RSS  {outcome}")
    print(f"peak RSS (VmHWM): {peak / MB:.0f} MB")
    if args.json:
        args.json.write_text(json.dumps({"rows": rows, "peak_mb": peak / MB}, indent=2))


if __name__ == "__main__":
    asyncio.run(main())
