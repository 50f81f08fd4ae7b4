"""A suite served by several ``mcp-sim serve SUITE/`` workers on one Redis episode store behind
HAProxy (the shipped configuration), for ``suite_scale.py --workers K``: what each worker
holds at idle, after episodes on random worlds made through the balancer, and after one call
on each (on the worker the episode's id hashes to, which loads the world if another worker
made the episode), and the workers' CPU per episode made and per first call."""

from __future__ import annotations

import asyncio
import random
import subprocess
import tempfile
import time
from pathlib import Path

import httpx2
from episode_store import start_haproxy, start_redis, wait_for
from mcp_client import HttpSession
from run import PYTHON, ROOT, Process, cpu_seconds, free_port, rss_bytes, running

MIB = 1024 * 1024


def start_workers(suite: Path, store: str, count: int) -> tuple[list[Process], list[int], float]:
    """The workers, started at once; their ports, and the seconds until all listen."""
    started = time.perf_counter()
    ports = [free_port() for _ in range(count)]
    processes = []
    for i, port in enumerate(ports):
        command = [PYTHON, "-m", "mcp_sim", "serve", str(suite), "--model-url", "stub:"]
        command += ["--episode-store", store, "--session-idle-timeout", "86400"]
        command += ["--http", f"127.0.0.1:{port}"]
        popen = subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT
        )
        processes.append(Process(popen, f"worker {i + 1}"))
    for process, port in zip(processes, ports, strict=True):
        wait_for(port, process.popen, process.name)
    return processes, ports, time.perf_counter() - started


async def loaded_worlds(ports: list[int]) -> list[int]:
    """How many worlds each worker has loaded (``GET /episodes`` lists them)."""
    async with httpx2.AsyncClient(timeout=60) as http:
        got = [(await http.get(f"http://127.0.0.1:{p}/episodes")).json() for p in ports]
    return [len(body["worlds"]) for body in got]


def note_workers(figures: dict[str, float], stage: str, workers: list[Process]) -> None:
    for i, worker in enumerate(workers, 1):
        figures[f"worker{i}_rss_{stage}_mib"] = rss_bytes(worker.pid) / MIB


def workers_cpu(workers: list[Process]) -> float:
    return sum(cpu_seconds(w.pid) for w in workers)


async def make_episodes(balancer: str, worlds: list[str]) -> list[tuple[str, str]]:
    """One episode of each world, made through the balancer: (world, MCP URL) each."""
    made = []
    async with httpx2.AsyncClient(timeout=60) as http:
        for world in worlds:
            body = {"world": world, "task": "cancel-t1"}
            reply = await http.post(f"{balancer}/episodes", json=body)
            if reply.status_code != 201:
                raise RuntimeError(f"POST /episodes: {reply.status_code} {reply.text[:300]}")
            made.append((world, reply.json()["mcp_url"]))
    return made


async def call_each(made: list[tuple[str, str]]) -> None:
    """One call on each episode's URL (through the balancer: the id picks the worker)."""
    for world, url in made:
        noun = f"thing{int(world.removeprefix('env-'))}x"  # as suite_scale.build drafts it
        session = await HttpSession(url).open()
        try:
            await session.call(f"list_{noun}s", {})
        finally:
            await session.close()


async def serve_by_workers(suite: Path, episodes: int, count: int) -> dict[str, float]:
    folder = Path(tempfile.mkdtemp())
    redis, store = start_redis(folder)
    with running(redis):
        workers, ports, startup = start_workers(suite, store, count)
        balancer_process, balancer = start_haproxy(folder, ports)
        with running(balancer_process, *workers):
            figures = {"startup_s": startup}
            await asyncio.sleep(2)  # HAProxy's first health checks
            note_workers(figures, "idle", workers)
            names = sorted(p.name for p in (suite / "worlds").iterdir() if p.is_dir())
            chosen = random.Random(7).sample(names, episodes)
            cpu, wall = workers_cpu(workers), time.perf_counter()
            made = await make_episodes(balancer, chosen)
            figures["create_wall_ms_per_episode"] = (time.perf_counter() - wall) / episodes * 1e3
            figures["create_cpu_ms_per_episode"] = (workers_cpu(workers) - cpu) / episodes * 1e3
            for i, n in enumerate(await loaded_worlds(ports), 1):
                figures[f"worker{i}_worlds_after_create"] = n
            note_workers(figures, "after_create", workers)
            cpu = workers_cpu(workers)
            await call_each(made)
            figures["first_call_cpu_ms_per_episode"] = (workers_cpu(workers) - cpu) / episodes * 1e3
            for i, n in enumerate(await loaded_worlds(ports), 1):
                figures[f"worker{i}_worlds_after_calls"] = n
            note_workers(figures, "after_calls", workers)
    return figures
