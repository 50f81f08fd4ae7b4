"""What durable episodes cost and what several workers give: server CPU per call with each
episode store against ``memory``, and calls per second at 1,000 episodes for 1 and 2 workers
behind HAProxy (the shipped configuration), with a model that answers in 200 ms.

    python benchmarks/episode_store.py [--calls 600] [--episodes 1000] [--duration 20]
                                       [--only cpu,workers] [--json FILE]

Needs ``redis-server`` and ``haproxy`` (``apt-get install redis-server haproxy``). The world
is the benchmarks' lookup world; the model is ``benchmarks/backend.py`` (1 KB answers); the
clients are ``benchmarks/mcp_client.py``'s lean HTTP sessions, one per episode, on the
episode's own URL. CPU is read from /proc for every process involved, so a machine with few
cores shows where its CPU goes. Nothing passes or fails; the figures are printed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from mcp_client import HttpSession, create_episode
from run import (
    CLOCK_TICKS,
    PYTHON,
    ROOT,
    WORLD,
    Process,
    cpu_seconds,
    free_port,
    load_average,
    running,
    start_backend,
    start_http,
    table,
)

HERE = Path(__file__).resolve().parent
HAPROXY_CONFIG = ROOT / "examples" / "deploy" / "haproxy.cfg"


def system_binary(name: str) -> str:
    found = shutil.which(name) or shutil.which(name, path="/usr/sbin:/usr/bin")
    if found is None:
        raise SystemExit(f"{name} is not installed: apt-get install {name}")
    return found


def wait_for(port: int, popen: subprocess.Popen[bytes], name: str) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if popen.poll() is not None:
            raise RuntimeError(f"{name} exited with {popen.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"{name} did not listen within 30 s")


def start_redis(folder: Path) -> tuple[Process, str]:
    port = free_port()
    command = [system_binary("redis-server"), "--port", str(port), "--bind", "127.0.0.1"]
    popen = subprocess.Popen(
        [*command, "--save", "", "--appendonly", "no", "--dir", str(folder)],
        stdout=subprocess.DEVNULL,
    )
    wait_for(port, popen, "redis-server")
    return Process(popen, "redis"), f"redis://127.0.0.1:{port}/0"


def start_haproxy(folder: Path, workers: list[int]) -> tuple[Process, str]:
    port = free_port()
    config = HAPROXY_CONFIG.read_text(encoding="utf-8")
    servers = "\n".join(
        f"    server worker{i} 127.0.0.1:{p} check inter 1s" for i, p in enumerate(workers, 1)
    )
    head, rest = config.split("    # --- workers ---")
    config = head + servers + "\n" + rest.split("    # --- end of workers ---")[1]
    path = folder / "haproxy.cfg"
    path.write_text(config.replace("bind :8080", f"bind 127.0.0.1:{port}"), encoding="utf-8")
    popen = subprocess.Popen(
        [system_binary("haproxy"), "-f", str(path), "-db"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    wait_for(port, popen, "haproxy")
    return Process(popen, "haproxy"), f"http://127.0.0.1:{port}"


def serve(model_url: str, store: str) -> tuple[Process, str]:
    command = [PYTHON, "-m", "mcp_sim", "serve", str(WORLD), "--model-url", model_url]
    command += ["--episode-store", store, "--seed", "1", "--session-idle-timeout", "86400"]
    process, mcp_url = start_http(command, f"mcp-sim ({store.split(':')[0]})")
    return process, mcp_url.removesuffix("/mcp")


# --- server CPU per call, by store ---------------------------------------------------------------


async def cpu_per_call(calls: int, folder: Path) -> dict[str, Any]:
    """Sequential calls on 20 episodes of each server, the servers taking turns in rounds so
    that all see the same machine load; server CPU per call and its ratio to ``memory``."""
    backend, model_url = start_backend(0.0)
    redis, redis_url = start_redis(folder)
    stores = {
        "memory": "memory",
        "sqlite": f"sqlite:///{folder / 'episodes.db'}",
        "redis": redis_url,
    }
    servers = {name: serve(model_url, url) for name, url in stores.items()}
    with running(backend, redis, *(p for p, _ in servers.values())):
        sessions: dict[str, list[HttpSession]] = {}
        for name, (_, base) in servers.items():
            urls = [await create_episode(base) for _ in range(20)]
            sessions[name] = [await HttpSession(u).open() for u in urls]
            for i, session in enumerate(sessions[name] * 2):  # warm-up
                await session.call("lookup", {"key": f"w{i}"})
        used = dict.fromkeys(servers, 0.0)
        rounds, per_round = 5, max(20, calls // 5)
        for _ in range(rounds):
            for name, (process, _) in servers.items():
                before = cpu_seconds(process.pid)
                for i in range(per_round):
                    await sessions[name][i % 20].call("lookup", {"key": f"k{i}"})
                used[name] += cpu_seconds(process.pid) - before
        for opened in sessions.values():
            for session in opened:
                await session.close()
    total = rounds * per_round
    ms = {name: used[name] / total * 1000 for name in servers}
    return {
        "calls": total,
        "server_cpu_ms": ms,
        "ratio_to_memory": {name: ms[name] / ms["memory"] for name in ms},
    }


# --- workers behind the balancer ------------------------------------------------------------------


def machine_busy_seconds() -> float:
    """CPU seconds the whole machine has spent busy (all cores, every process), from
    /proc/stat: what is left after this benchmark's own processes is other work."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]  # idle, iowait
    return (sum(fields[:8]) - idle) / CLOCK_TICKS


def load(base: str, episodes: int, duration: float, watched: dict[str, int]) -> dict[str, Any]:
    """``mcp_client.py load --episodes`` against ``base``: calls/s, and the cores each watched
    process used in the measuring window."""
    command = [PYTHON, str(HERE / "mcp_client.py"), "load", "--url", base, "--episodes"]
    generator = subprocess.Popen(
        [*command, "--sessions", str(episodes), "--duration", str(duration)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    pids = {**watched, "load generator": generator.pid}
    marks: dict[str, tuple[float, dict[str, float]]] = {}
    result: dict[str, Any] = {}
    assert generator.stdout is not None
    for line in generator.stdout:
        if line.startswith("window-"):
            used = {n: cpu_seconds(p) for n, p in pids.items()}
            marks[line.strip()] = (time.monotonic(), used | {"machine": machine_busy_seconds()})
        elif line.startswith("{"):
            result = json.loads(line)
    generator.wait(timeout=duration + 300)
    if "window-end" not in marks:
        assert generator.stderr is not None
        raise RuntimeError(f"the load generator failed:\n{generator.stderr.read()[-2000:]}")
    (start, before), (end, after) = marks["window-start"], marks["window-end"]
    cores = {n: (after[n] - before[n]) / (end - start) for n in [*pids, "machine"]}
    cores["other work"] = cores.pop("machine") - sum(cores.values())
    result["cores"] = cores
    return result


async def workers(episodes: int, duration: float, folder: Path) -> dict[str, Any]:
    backend, model_url = start_backend(0.2)
    redis, redis_url = start_redis(folder)
    results: dict[str, Any] = {}
    with running(backend, redis):
        for count in (1, 2):
            servers = [serve(model_url, redis_url) for _ in range(count)]
            ports = [int(base.rsplit(":", 1)[1]) for _, base in servers]
            balancer, base = start_haproxy(folder, ports)
            with running(balancer, *(p for p, _ in servers)):
                time.sleep(3)  # HAProxy's first health checks
                watched = {f"worker {i}": p.pid for i, (p, _) in enumerate(servers, 1)}
                watched |= {"haproxy": balancer.pid, "model": backend.pid, "redis": redis.pid}
                results[f"{count} worker{'s' if count > 1 else ''}"] = load(
                    base, episodes, duration, watched
                )
    return results


def report(results: dict[str, Any]) -> None:
    if "cpu" in results:
        cpu = results["cpu"]
        rows = [["store", "server CPU / call", "× memory"]]
        for name, ms in cpu["server_cpu_ms"].items():
            rows.append([name, f"{ms:.2f} ms", f"{cpu['ratio_to_memory'][name]:.2f}"])
        print(f"\nserver CPU per call ({cpu['calls']} calls each, sequential)\n" + table(rows))
    if "workers" in results:
        runs = results["workers"]
        names = sorted({n for r in runs.values() for n in r["cores"]} - {"other work"})
        names.append("other work")
        rows = [["", "calls/s", "p50 ms", "p99 ms", "errors", *names]]
        for label, r in runs.items():
            cores = [f"{r['cores'].get(n, 0.0):.2f}" if n in r["cores"] else "" for n in names]
            rows.append(
                [
                    label,
                    f"{r['calls_per_second']:.0f}",
                    f"{r['p50_ms']:.0f}",
                    f"{r['p99_ms']:.0f}",
                    str(r["errors"]),
                    *cores,
                ]
            )
        print(
            "\nepisodes behind HAProxy, 200 ms model (cores used by each process)\n" + table(rows)
        )
    print(f"\nload average: {load_average()}")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=600)
    parser.add_argument("--episodes", type=int, default=1000)
    parser.add_argument("--duration", type=float, default=20.0)
    parser.add_argument("--only", default="cpu,workers")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    only = set(args.only.split(","))
    results: dict[str, Any] = {"load_average_before": load_average()}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        if "cpu" in only:
            results["cpu"] = await cpu_per_call(args.calls, folder)
        if "workers" in only:
            results["workers"] = await workers(args.episodes, args.duration, folder)
    report(results)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    asyncio.run(main())
