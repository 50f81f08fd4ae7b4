"""mcp-sim's benchmark suite: what the server adds to a call, how many calls it carries, what an
open session costs, and how much of each prompt vLLM's prefix cache can reuse.

    python benchmarks/run.py [--quick] [--only overhead,throughput,memory,prefix,episodes]
                             [--json FILE]

Every figure comes from processes on this machine talking over loopback:

- the world model is ``benchmarks/backend.py``, a small OpenAI-compatible HTTP server that
  answers every request in vLLM's streaming wire format after a set delay (0 for the overhead
  figures, 200 ms for throughput), with a 1 KB observation in token-sized events;
- the yardstick is ``benchmarks/echo_server.py``, an MCP server on the same SDK and transports
  whose one tool returns the same 1 KB at once;
- the clients are ``benchmarks/mcp_client.py``: plain JSON-RPC over stdio, and raw keep-alive
  HTTP connections, so that as much CPU as possible is left to the servers.

The figures are ratios taken within one run (mcp-sim against the echo server, achieved against
ideal throughput), because absolute timings on a shared machine move with its load: the load
average is printed with them. Nothing here is a test: nothing passes or fails.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import copy
import gc
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from backend import observation
from mcp_client import HttpSession, StdioClient, percentile

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
WORLD = HERE / "worlds" / "lookup.yaml"
PYTHON = sys.executable
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")
EPISODE = 20
"""Calls per session in the overhead runs: each call adds a turn to its session's history, and
an episode of this length is what a tool-using agent typically makes."""


# --- processes ---------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def rss_bytes(pid: int) -> int:
    return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE


STARTED: list[Process] = []
"""Every server this run started, stopped on the way out whatever happens."""


@dataclass
class Process:
    popen: subprocess.Popen[bytes]
    name: str

    def __post_init__(self) -> None:
        STARTED.append(self)

    @property
    def pid(self) -> int:
        return self.popen.pid

    def stop(self) -> None:
        if self.popen.poll() is None:
            self.popen.terminate()
            try:
                self.popen.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait()


def start_backend(
    delay: float, token_chars: int = 4, result_bytes: int = 1024
) -> tuple[Process, str]:
    popen = subprocess.Popen(
        [
            PYTHON,
            str(HERE / "backend.py"),
            "--delay",
            str(delay),
            "--result-bytes",
            str(result_bytes),
            "--token-chars",
            str(token_chars),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert popen.stdout is not None
    line = popen.stdout.readline().decode().split()
    if line[:1] != ["ready"]:
        popen.kill()
        raise RuntimeError("the benchmark backend did not start")
    return Process(popen, "backend"), f"http://127.0.0.1:{line[1]}/v1"


def mcp_sim_command(world: Path, model_url: str) -> list[str]:
    return [PYTHON, "-m", "mcp_sim", "serve", str(world), "--model-url", model_url]


def echo_command(delay: float = 0.0) -> list[str]:
    return [PYTHON, str(HERE / "echo_server.py"), "--delay", str(delay)]


def start_http(command: list[str], name: str) -> tuple[Process, str]:
    port = free_port()
    popen = subprocess.Popen(
        [*command, "--http", f"127.0.0.1:{port}"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=ROOT,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if popen.poll() is not None:
            raise RuntimeError(f"{name} exited with {popen.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return Process(popen, name), f"http://127.0.0.1:{port}/mcp"
        except OSError:
            time.sleep(0.1)
    popen.kill()
    raise RuntimeError(f"{name} did not listen within 120 s")


@contextlib.contextmanager
def running(*processes: Process) -> Iterator[None]:
    try:
        yield
    finally:
        for process in processes:
            process.stop()


def load_average() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


# --- overhead ----------------------------------------------------------------------------------


@dataclass
class Overhead:
    transport: str
    stream: str
    echo_ms: float
    sim_ms: float
    echo_cpu_ms: float
    sim_cpu_ms: float

    @property
    def ratio(self) -> float:
        return self.sim_ms / self.echo_ms

    @property
    def cpu_ratio(self) -> float:
        return self.sim_cpu_ms / self.echo_cpu_ms


async def _timed_calls(client: Any, pid: int, calls: int, first: int) -> tuple[list[float], float]:
    latencies = []
    cpu = cpu_seconds(pid)
    for i in range(first, first + calls):
        meta = {"mcp-sim/session": f"episode-{i // EPISODE}"}
        started = time.perf_counter()
        await client.request(
            "tools/call", {"name": "lookup", "arguments": {"key": f"k{i}"}, "_meta": meta}
        )
        latencies.append(time.perf_counter() - started)
    return latencies, cpu_seconds(pid) - cpu


async def overhead(transport: str, stream: str, model_url: str, calls: int) -> Overhead:
    """Sequential calls to the echo server and to mcp-sim, interleaved in rounds so that both
    see the same machine load; median latency and server CPU per call."""
    clients: dict[str, Any] = {}
    pids: dict[str, int] = {}
    processes: list[Process] = []
    try:
        for name, command in (
            ("echo", echo_command()),
            ("mcp-sim", mcp_sim_command(WORLD, model_url)),
        ):
            if transport == "stdio":
                client = await StdioClient.start(*command, cwd=str(ROOT))
                pids[name] = client.process.pid
            else:
                process, url = start_http(command, name)
                processes.append(process)
                client = await HttpSession(url).open()
                pids[name] = process.pid
            clients[name] = client
        rounds, per_round = 5, max(1, calls // 5)
        latencies: dict[str, list[float]] = {name: [] for name in clients}
        cpu: dict[str, float] = dict.fromkeys(clients, 0.0)
        for name, client in clients.items():  # warm up: imports, first connections
            await _timed_calls(client, pids[name], 2 * EPISODE, 10**6)
        for round_no in range(rounds):
            for name, client in clients.items():
                got, used = await _timed_calls(client, pids[name], per_round, round_no * per_round)
                latencies[name] += got
                cpu[name] += used
        total = rounds * per_round
        return Overhead(
            transport,
            stream,
            echo_ms=(percentile(latencies["echo"], 0.5) or 0) * 1000,
            sim_ms=(percentile(latencies["mcp-sim"], 0.5) or 0) * 1000,
            echo_cpu_ms=cpu["echo"] / total * 1000,
            sim_cpu_ms=cpu["mcp-sim"] / total * 1000,
        )
    finally:
        for client in clients.values():
            await client.close()
        for process in processes:
            process.stop()


# --- throughput --------------------------------------------------------------------------------


@dataclass
class Throughput:
    server: str
    sessions: int
    calls_per_second: float
    ideal: float
    p50_ms: float
    p99_ms: float
    errors: int
    server_cores: float
    """Share of the machine's cores the server used in the measuring window."""
    server_cpu_ms: float
    """Server CPU per call answered in the window."""
    backend_cores: float
    client_cores: float

    @property
    def fraction(self) -> float:
        return self.calls_per_second / self.ideal


def throughput(
    url: str, server: Process, backend: Process | None, name: str, sessions: int, duration: float
) -> Throughput:
    load = subprocess.Popen(
        [
            PYTHON,
            str(HERE / "mcp_client.py"),
            "load",
            "--url",
            url,
            "--sessions",
            str(sessions),
            "--duration",
            str(duration),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    watched = [server.pid, load.pid] + ([backend.pid] if backend is not None else [])
    marks: dict[str, tuple[float, list[float]]] = {}
    result: dict[str, Any] = {}
    try:
        assert load.stdout is not None
        for line in load.stdout:
            if line.startswith("window-"):
                marks[line.strip()] = (time.monotonic(), [cpu_seconds(pid) for pid in watched])
            elif line.startswith("{"):
                result = json.loads(line)
        load.wait(timeout=duration + 300)
    finally:
        if load.poll() is None:
            load.kill()
    (start, before), (end, after) = marks["window-start"], marks["window-end"]
    used = [(b - a) / (end - start) for a, b in zip(before, after, strict=True)]
    calls = max(1, result["calls"])
    return Throughput(
        name,
        sessions,
        result["calls_per_second"],
        sessions / 0.2,
        result["p50_ms"],
        result["p99_ms"],
        result["errors"],
        server_cores=used[0],
        server_cpu_ms=(after[0] - before[0]) / calls * 1000,
        backend_cores=used[2] if backend is not None else 0.0,
        client_cores=used[1],
    )


# --- memory ------------------------------------------------------------------------------------


def big_state(size: int) -> dict[str, Any]:
    """A state document of about ``size`` bytes of JSON: records of a catalogue."""
    records = []
    text_size = 2
    while text_size < size:
        i = len(records)
        record = {
            "id": f"rec_{i:05d}",
            "title": f"Record {i}",
            "body": "Lorem ipsum dolor sit amet, consectetur adipiscing elit. " * 3,
            "tags": ["alpha", "beta"],
            "score": i % 97,
        }
        records.append(record)
        text_size += len(json.dumps(record)) + 2
    return {"records": records}


def write_big_world(folder: Path, size: int) -> Path:
    world = WORLD.read_text(encoding="utf-8").replace(
        "state:\n  records_total: 3\n", f"state: {json.dumps(big_state(size))}\n"
    )
    path = folder / "big-world.yaml"
    path.write_text(world, encoding="utf-8")
    return path


@dataclass
class Memory:
    sessions: int
    state_bytes: int
    fresh_bytes: float
    after_call_bytes: float
    deep_copy_bytes: float
    http_sim_big_bytes: float | None = None
    http_sim_small_bytes: float | None = None
    http_echo_bytes: float | None = None


class InstantModel:
    """Answers every call at once with the 1 KB observation (for in-process memory figures)."""

    def __init__(self) -> None:
        self.text = f"<predicted_observation>\n{observation(1024)}\n</predicted_observation>"

    async def complete(self, request: Any, progress: Any = None) -> Any:
        from mcp_sim.models.base import Completion

        return Completion(content=self.text, model="instant")

    async def aclose(self) -> None:
        pass


async def memory_in_process(world_path: Path, sessions: int) -> Memory:
    from mcp_sim.simulator.core import Simulator
    from mcp_sim.spec.loading import load_world

    world = load_world(world_path)
    state_bytes = len(json.dumps(world.state))
    simulator = Simulator(world, InstantModel())
    simulator.sessions.get("warm-up")
    await simulator.call("warm-up", "lookup", {"key": "k"})
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    for i in range(sessions):
        simulator.sessions.get(f"episode-{i}")
    gc.collect()
    fresh = tracemalloc.get_traced_memory()[0]
    for i in range(sessions):
        await simulator.call(f"episode-{i}", "lookup", {"key": f"k{i}"})
    gc.collect()
    after = tracemalloc.get_traced_memory()[0]
    copy_start = tracemalloc.get_traced_memory()[0]
    duplicate = copy.deepcopy(world.state)
    copied = tracemalloc.get_traced_memory()[0] - copy_start
    del duplicate
    tracemalloc.stop()
    return Memory(
        sessions,
        state_bytes,
        fresh_bytes=(fresh - before) / sessions,
        after_call_bytes=(after - before) / sessions,
        deep_copy_bytes=copied,
    )


async def hold_sessions(url: str, sessions: int) -> list[HttpSession]:
    opened: list[HttpSession] = []
    for first in range(0, sessions, 200):
        batch = [HttpSession(url) for _ in range(first, min(sessions, first + 200))]
        opened += await asyncio.gather(*(s.open() for s in batch))
        await asyncio.gather(*(s.call("lookup", {"key": "k"}) for s in batch))
    return opened


async def memory_per_http_session(url: str, pid: int, sessions: int) -> float:
    """Resident memory the server process grows by per open MCP session (each with one call),
    sessions held open on their connections while it is read."""
    warm = await hold_sessions(url, 200)
    await asyncio.sleep(0.5)
    before = rss_bytes(pid)
    opened = await hold_sessions(url, sessions)
    await asyncio.sleep(1.0)
    grown = rss_bytes(pid) - before
    await asyncio.gather(*(s.close() for s in [*warm, *opened]))
    return grown / sessions


# --- prefix sharing ----------------------------------------------------------------------------


async def prefix() -> dict[str, float]:
    import prefix_sharing

    from mcp_sim.fidelity.prefix_reuse import PrefixReuse
    from mcp_sim.prompting.native import estimate_tokens
    from mcp_sim.settings import Settings
    from mcp_sim.spec.loading import load_world

    world = load_world(ROOT / "worlds" / "shop.yaml")
    requests = await prefix_sharing.run_session(world, Settings.of(history_budget=10**9))
    reuse = PrefixReuse()
    for messages, answer in requests:
        reuse.add("shop", messages, answer)
    row = reuse.summary()
    tokens = [estimate_tokens("".join(m["content"] for m in r[0])) for r in requests]
    return {
        "calls": len(requests),
        "shared_weighted": row["reuse_chars"],
        "shared_mean": statistics.fmean(reuse.overall.per_call),
        "tokens_mean": sum(tokens) / len(tokens),
        "tokens_last": tokens[-1],
        "unshared_tokens_mean": row["recomputed_tokens_mean"],
    }


# --- the table ---------------------------------------------------------------------------------


def table(rows: list[list[str]]) -> str:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = []
    for n, row in enumerate(rows):
        lines.append("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)))
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer calls, shorter runs")
    parser.add_argument("--only", default="overhead,throughput,memory,prefix,episodes")
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    parser.add_argument(
        "--sessions", default="1,10,100,1000", help="concurrency levels for throughput"
    )
    args = parser.parse_args()
    only = set(args.only.split(","))
    results: dict[str, Any] = {"load_average_before": load_average()}
    print("mcp-sim benchmarks: every world model answer comes from benchmarks/backend.py, an")
    print("OpenAI-compatible HTTP server answering in vLLM's streaming wire format after a set")
    print("delay (no GPU, no real model); the yardstick is benchmarks/echo_server.py, an MCP")
    print("server on the same SDK and transports returning the same 1 KB result at once.")
    print(f"machine: {os.cpu_count()} cores, load average {load_average()}\n", flush=True)

    if "overhead" in only:
        calls = 100 if args.quick else 500
        rows = [
            [
                "transport",
                "model answer",
                "echo ms/call",
                "mcp-sim ms/call",
                "ratio",
                "echo CPU ms",
                "mcp-sim CPU ms",
                "CPU ratio",
            ]
        ]
        figures = []
        # The 1 KB observation as vLLM streams it (an event per ~4-character token, ~270
        # events), and as one event, which shows what reading a token costs.
        for stream, token_chars in (("~270 token events", 4), ("1 event", 1 << 20)):
            backend, model_url = start_backend(0.0, token_chars)
            with running(backend):
                for transport in ("stdio", "http"):
                    o = await overhead(transport, stream, model_url, calls)
                    figures.append(o.__dict__ | {"ratio": o.ratio, "cpu_ratio": o.cpu_ratio})
                    rows.append(
                        [
                            transport,
                            stream,
                            f"{o.echo_ms:.2f}",
                            f"{o.sim_ms:.2f}",
                            f"{o.ratio:.2f}",
                            f"{o.echo_cpu_ms:.2f}",
                            f"{o.sim_cpu_ms:.2f}",
                            f"{o.cpu_ratio:.2f}",
                        ]
                    )
        results["overhead"] = figures
        print(
            f"Server overhead per call, 1 KB result, zero-latency backend ({calls} sequential "
            f"calls each, median; sessions of {EPISODE} calls; CPU = the server process's own):"
        )
        print(table(rows) + "\n", flush=True)

    if "throughput" in only:
        levels = [int(n) for n in args.sessions.split(",")]
        backend, model_url = start_backend(0.2)
        sim, sim_url = start_http(mcp_sim_command(WORLD, model_url), "mcp-sim")
        json_sim, json_url = start_http(
            [*mcp_sim_command(WORLD, model_url), "--json-response"], "mcp-sim --json-response"
        )
        echo, echo_url = start_http(echo_command(0.2), "echo")
        rows = [
            [
                "server",
                "sessions",
                "ideal/s",
                "calls/s",
                "of ideal",
                "p50 ms",
                "p99 ms",
                "server CPU ms/call",
                "cores: server",
                "model",
                "client",
                "errors",
            ]
        ]
        figures = []
        servers = (
            ("mcp-sim", sim_url, sim, backend),
            ("mcp-sim --json-response", json_url, json_sim, backend),
            ("echo (SDK alone)", echo_url, echo, None),
        )
        with running(backend, sim, json_sim, echo):
            for sessions in levels:
                # Long enough for a few rounds of every session's calls even when the server
                # is saturated, so the window sees its steady rate, not the first round's queue.
                duration = (
                    (5.0 if sessions < 1000 else 15.0)
                    if args.quick
                    else (6.0 if sessions < 100 else 10.0 if sessions < 1000 else 30.0)
                )
                for name, url, process, model in servers:
                    t = throughput(url, process, model, name, sessions, duration)
                    figures.append(t.__dict__ | {"fraction": t.fraction})
                    rows.append(
                        [
                            name,
                            str(sessions),
                            f"{t.ideal:.0f}",
                            f"{t.calls_per_second:.0f}",
                            f"{t.fraction:.0%}",
                            f"{t.p50_ms:.0f}",
                            f"{t.p99_ms:.0f}",
                            f"{t.server_cpu_ms:.1f}",
                            f"{t.server_cores:.2f}",
                            f"{t.backend_cores:.2f}",
                            f"{t.client_cores:.2f}",
                            str(t.errors),
                        ]
                    )
        results["throughput"] = figures
        print(
            "Throughput over HTTP with a world model answering after 200 ms (the echo server "
            "sleeps 200 ms per call instead); ideal = sessions / 0.2 s; CPU in the measuring "
            "window, in cores of this machine, for the server, the model backend and the load "
            "generator:"
        )
        print(table(rows) + "\n", flush=True)

    if "memory" in only:
        import tempfile

        sessions = 200 if args.quick else 1000
        with tempfile.TemporaryDirectory() as folder:
            world = write_big_world(Path(folder), 1_000_000)
            m = await memory_in_process(world, sessions)
            if not args.quick:
                backend, model_url = start_backend(0.0)
                big, big_url = start_http(mcp_sim_command(world, model_url), "mcp-sim")
                small, small_url = start_http(mcp_sim_command(WORLD, model_url), "mcp-sim")
                echo, echo_url = start_http(echo_command(), "echo")
                with running(backend, big, small, echo):
                    m.http_sim_big_bytes = await memory_per_http_session(big_url, big.pid, sessions)
                    m.http_sim_small_bytes = await memory_per_http_session(
                        small_url, small.pid, sessions
                    )
                    m.http_echo_bytes = await memory_per_http_session(echo_url, echo.pid, sessions)
        results["memory"] = m.__dict__
        rows = [["what", "bytes per session"]]
        rows.append(["mcp-sim session, fresh (state shared)", f"{m.fresh_bytes:,.0f}"])
        rows.append(["mcp-sim session after one 1 KB call", f"{m.after_call_bytes:,.0f}"])
        rows.append(["a private copy of the state (before sharing)", f"{m.deep_copy_bytes:,.0f}"])
        for label, value in (
            ("mcp-sim over HTTP, RSS growth, 1 MB state", m.http_sim_big_bytes),
            ("mcp-sim over HTTP, RSS growth, tiny state", m.http_sim_small_bytes),
            ("echo server over HTTP, RSS growth", m.http_echo_bytes),
        ):
            if value is not None:
                rows.append([label, f"{value:,.0f}"])
        print(
            f"Memory per open session, world state of {m.state_bytes / 1e6:.2f} MB, "
            f"{m.sessions} sessions (tracemalloc in one process; over HTTP, the server's RSS "
            "growth per MCP session held open after one call, SDK session included):"
        )
        print(table(rows) + "\n", flush=True)

    if "prefix" in only:
        p = await prefix()
        results["prefix"] = p
        rows = [["what", "value"]]
        rows.append(
            ["prompt shared with the previous call (char-weighted)", f"{p['shared_weighted']:.3f}"]
        )
        rows.append(
            ["prompt shared with the previous call (mean per call)", f"{p['shared_mean']:.3f}"]
        )
        rows.append(["prompt tokens per call, mean (~3 chars/token)", f"{p['tokens_mean']:,.0f}"])
        rows.append(["prompt tokens at the last call", f"{p['tokens_last']:,.0f}"])
        rows.append(
            ["tokens not shared with the previous call, mean", f"{p['unshared_tokens_mean']:,.0f}"]
        )
        print(
            f"Prompt prefix sharing, a {p['calls']:.0f}-call session on worlds/shop.yaml "
            "(rule-based stand-in model; details: python benchmarks/prefix_sharing.py):"
        )
        print(table(rows) + "\n", flush=True)

    if "episodes" in only:
        import episodes

        worlds, count = (10, 1000) if args.quick else (50, 10_000)
        e = await episodes.measure(worlds, count, http=True)
        results["episodes"] = e
        rows = [["what", "value"]]
        rows.append(
            ["idle episode, heap (in process)", f"{e['in_process']['bytes_per_episode']:,.0f} B"]
        )
        rows.append(["create one, CPU (in process)", f"{e['in_process']['create_ms']:.3f} ms"])
        rows.append(
            ["idle episode, server RSS (HTTP)", f"{e['http']['rss_bytes_per_episode']:,.0f} B"]
        )
        rows.append(
            [
                "create one, server CPU (POST /episodes)",
                f"{e['http']['server_cpu_ms_per_create']:.3f} ms",
            ]
        )
        rows.append(
            [
                f"create one in a batch of {e['http']['batch']}, server CPU",
                f"{e['http']['server_cpu_ms_per_create_in_batch']:.3f} ms",
            ]
        )
        print(
            f"Episodes: {count:,} idle episodes over {worlds} worlds (details: benchmarks/episodes.py):"
        )
        print(table(rows) + "\n", flush=True)

    results["load_average_after"] = load_average()
    print(f"load average after: {load_average()}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")


async def _main_stopping_on_sigterm() -> None:
    # Cancelled on SIGTERM, so that the servers this run started are stopped on the way out.
    task = asyncio.current_task()
    assert task is not None
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, task.cancel)
    try:
        await main()
    finally:
        for process in STARTED:
            process.stop()


if __name__ == "__main__":
    with contextlib.suppress(asyncio.CancelledError, KeyboardInterrupt):
        asyncio.run(_main_stopping_on_sigterm())
