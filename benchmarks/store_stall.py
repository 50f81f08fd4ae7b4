"""What a stalled SQLite episode store costs the rest of the server: with another process
holding the store file's write lock, how long ``/metrics``, a shared session's call, another
episode's summary and token lookup, and an episode's call take to be answered.

    python benchmarks/store_stall.py [--lock-seconds 8] [--store-timeout 5] [--samples 20]

The server is ``mcp-sim serve`` of the benchmarks' lookup world on an SQLite store, the model
``benchmarks/backend.py`` answering at once. Nothing passes or fails; the figures are printed
(milliseconds: median and worst of ``--samples`` requests, each made while the lock is held).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import tempfile
import time
from pathlib import Path
from urllib.request import Request, urlopen

from mcp_client import CallFailed, HttpSession, create_episode
from run import PYTHON, WORLD, running, start_backend, start_http

LOCKER = """
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("BEGIN IMMEDIATE")
print("locked", flush=True)
time.sleep(float(sys.argv[2]))
db.execute("ROLLBACK")
"""


def get(url: str) -> tuple[int, bytes]:
    try:
        with urlopen(Request(url), timeout=60) as reply:
            return reply.status, reply.read()
    except OSError as exc:  # HTTPError included: its code is the answer
        return getattr(exc, "code", 0), b""


async def timed(label: str, samples: int, make: object) -> list[str]:
    took: list[float] = []
    outcome = ""
    for _ in range(samples):
        started = time.perf_counter()
        outcome = await make()  # type: ignore[operator]
        took.append((time.perf_counter() - started) * 1000)
    took.sort()
    return [label, f"{took[len(took) // 2]:.1f}", f"{took[-1]:.1f}", outcome]


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lock-seconds", type=float, default=8.0)
    parser.add_argument("--store-timeout", type=float, default=5.0)
    parser.add_argument("--samples", type=int, default=20)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="store-stall-"))
    db = folder / "episodes.db"
    backend, model_url = start_backend(0.0)
    command = [PYTHON, "-m", "mcp_sim", "serve", str(WORLD), "--model-url", model_url]
    command += ["--episode-store", f"sqlite:///{db}"]
    command += ["--episode-store-timeout", str(args.store_timeout)]
    server, mcp_url = start_http(command, "mcp-sim (sqlite)")
    base = mcp_url.removesuffix("/mcp")
    with running(backend, server):
        episode_url = await create_episode(base)
        episode_id = episode_url.rsplit("/", 2)[1]
        other = await HttpSession(episode_url).open()
        shared = await HttpSession(mcp_url).open()
        await other.call("lookup", {"key": "warm"})
        locker = subprocess.Popen(
            [PYTHON, "-c", LOCKER, str(db), str(args.lock_seconds)],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert locker.stdout is not None and locker.stdout.readline().strip() == "locked"
        loop = asyncio.get_running_loop()

        async def metrics() -> str:
            status, _ = await loop.run_in_executor(None, get, f"{base}/metrics")
            return f"HTTP {status}"

        async def summary() -> str:
            status, _ = await loop.run_in_executor(None, get, f"{base}/episodes/{episode_id}")
            return f"HTTP {status}"

        async def shared_call() -> str:
            await shared.call("lookup", {"key": "k"})
            return "answered"

        async def episode_call() -> str:
            try:
                await other.call("lookup", {"key": "during"})
            except CallFailed as exc:
                return str(exc)[:60]
            return "answered"

        rows = [
            await timed("GET /metrics", args.samples, metrics),
            await timed("shared session call", args.samples, shared_call),
            await timed("GET /episodes/{other}", args.samples, summary),
            await timed("episode call (needs the lock)", 1, episode_call),
        ]
        still_locked = locker.poll() is None
        locker.wait()
        after = await timed("episode call after the lock", 3, episode_call)
        await other.close()
        await shared.close()
    print(
        f"SQLite file write-locked by another process (held for {args.lock_seconds:g} s; "
        f"all rows above measured while it was held: {still_locked})"
    )
    width = max(len(r[0]) for r in [*rows, after]) + 2
    print(f"{'request':{width}}{'median ms':>11}{'worst ms':>10}  outcome")
    for label, median, worst, outcome in [*rows, after]:
        print(f"{label:{width}}{median:>11}{worst:>10}  {outcome}")
    print(json.dumps({"rows": rows, "after": after}))


if __name__ == "__main__":
    asyncio.run(main())
