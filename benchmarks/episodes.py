"""What an idle episode costs: memory held per episode and server CPU to create one, with many
worlds on one server.

    python benchmarks/episodes.py [--worlds 50] [--episodes 10000] [--http] [--batch 64]

In process, the hub is given ``--worlds`` copies of the shop world (each its own world id and
simulator) and creates ``--episodes`` episodes spread over them: memory per episode is what
tracemalloc sees the heap grow by, CPU per creation is process time. With ``--http`` the same
is asked of a real ``mcp-sim serve`` over loopback: ``POST /episodes`` from a keep-alive client,
the server's CPU time (from /proc) and resident memory growth per episode; then the same number
of episodes again, ``--batch`` to a request (``{"count": N}``), for the server's CPU per
episode created in a batch. Nothing passes or fails; the figures are printed (and returned to
``benchmarks/run.py --only episodes``).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SHOP = ROOT / "worlds" / "shop.yaml"


def write_worlds(folder: Path, count: int) -> list[Path]:
    """``count`` copies of the shop world, each with its own id."""
    text = SHOP.read_text(encoding="utf-8")
    paths = []
    for i in range(count):
        path = folder / f"shop-{i:03d}.yaml"
        path.write_text(
            text.replace("world: tidewater-orders", f"world: tidewater-{i:03d}"), encoding="utf-8"
        )
        paths.append(path)
    return paths


async def in_process(worlds: list[Path], episodes: int) -> dict[str, float]:
    from mcp_sim.episodes.hub import EpisodeHub
    from mcp_sim.simulator.core import Simulator
    from mcp_sim.spec.loading import load_world

    loaded = [load_world(p) for p in worlds]
    hub = EpisodeHub({w.world: Simulator(w, None) for w in loaded})
    names = list(hub.simulators)
    await hub.create(names[0])  # warm-up: first-use caches are not per episode
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    cpu = time.process_time()
    for i in range(episodes):
        await hub.create(names[i % len(names)])
    cpu = time.process_time() - cpu
    gc.collect()
    grown = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    # Process time again without tracemalloc, which slows every allocation.
    start = time.process_time()
    for i in range(episodes):
        await hub.create(names[i % len(names)])
    untraced = time.process_time() - start
    return {
        "bytes_per_episode": grown / episodes,
        "create_ms_traced": cpu / episodes * 1000,
        "create_ms": untraced / episodes * 1000,
    }


async def over_http(worlds: list[Path], episodes: int, batch: int) -> dict[str, float]:
    import httpx2
    from run import PYTHON, cpu_seconds, rss_bytes, running, start_http

    command = [PYTHON, "-m", "mcp_sim", "serve", *map(str, worlds)]
    command += ["--model-url", "http://127.0.0.1:9/v1", "--session-idle-timeout", "86400"]
    server, mcp_url = start_http(command, "mcp-sim")
    with running(server):
        async with httpx2.AsyncClient(base_url=mcp_url.removesuffix("/mcp"), timeout=30) as client:
            names = [w.stem.replace("shop-", "tidewater-") for w in worlds]
            for name in names:  # warm-up: every world's first episode
                (await client.post("/episodes", json={"world": name})).raise_for_status()
            await asyncio.sleep(0.5)
            rss, cpu = rss_bytes(server.pid), cpu_seconds(server.pid)
            for i in range(episodes):
                made = await client.post("/episodes", json={"world": names[i % len(names)]})
                made.raise_for_status()
            cpu = cpu_seconds(server.pid) - cpu
            await asyncio.sleep(0.5)
            grown = rss_bytes(server.pid) - rss
            batches = max(1, episodes // batch)
            batched = cpu_seconds(server.pid)
            for i in range(batches):
                body = {"world": names[i % len(names)], "count": batch}
                (await client.post("/episodes", json=body)).raise_for_status()
            batched = cpu_seconds(server.pid) - batched
    return {
        "server_cpu_ms_per_create": cpu / episodes * 1000,
        "rss_bytes_per_episode": grown / episodes,
        "batch": batch,
        "server_cpu_ms_per_create_in_batch": batched / (batches * batch) * 1000,
    }


async def measure(worlds: int, episodes: int, http: bool, batch: int = 64) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder:
        paths = write_worlds(Path(folder), worlds)
        results: dict[str, Any] = {"worlds": worlds, "episodes": episodes}
        results["in_process"] = await in_process(paths, episodes)
        if http:
            results["http"] = await over_http(paths, episodes, batch)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--worlds", type=int, default=50)
    parser.add_argument("--episodes", type=int, default=10_000)
    parser.add_argument("--http", action="store_true")
    parser.add_argument("--batch", type=int, default=64, help="episodes per batched request")
    args = parser.parse_args()
    measured = measure(args.worlds, args.episodes, args.http, args.batch)
    print(json.dumps(asyncio.run(measured), indent=2))


if __name__ == "__main__":
    main()
