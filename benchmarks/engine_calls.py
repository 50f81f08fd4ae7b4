"""How long ``mcp-sim call`` takes on the embedded engine, as a world designer runs it: without a
background engine (each call starts vLLM for itself), then with ``mcp-sim engine start`` (which
warms vLLM up): the first call after the start and the ones after it. Ends with ``engine
stop`` and counts the vLLM processes left (there should be none).

    python benchmarks/engine_calls.py [--calls 3] [--without]

The engine is the real one (vLLM's CPU build and the tiny model, installed on first use, which
takes minutes and is not timed here). Every figure is the wall-clock time of one command, as
a subprocess of this script, from start to exit. An engine already running is used as it is
(its start is then not measured) and left running.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

from run import table

ROOT = Path(__file__).resolve().parent.parent
CALL = ["call", "worlds/bookstore.yaml", "get_book", "--args", '{"book_id": "b3"}']


def timed(*args: str) -> tuple[float, subprocess.CompletedProcess[str]]:
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "mcp_sim", *args], capture_output=True, text=True, cwd=ROOT
    )
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"mcp-sim {' '.join(args)} failed ({done.returncode}):\n{done.stderr}")
    return seconds, done


def engine_running() -> bool:
    _, status = timed("engine", "status")
    return '"state": "running"' in status.stdout


def vllm_processes() -> int:
    """vLLM servers alive on this machine (anyone's), from /proc."""
    count = 0
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                command = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            count += b"vllm.entrypoints" in command
    return count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=3, help="calls made with the engine up")
    parser.add_argument(
        "--without", action="store_true", help="first time one call without a background engine"
    )
    args = parser.parse_args()
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}", flush=True)
    rows = [["command", "seconds", "note"]]
    ours = not engine_running()
    if args.without:
        if not ours:
            raise SystemExit("--without needs no background engine: run `mcp-sim engine stop`")
        seconds, _ = timed(*CALL)
        rows.append(["call (no engine running)", f"{seconds:.1f}", "starts and stops vLLM"])
    if ours:
        seconds, started = timed("engine", "start")
        warmed = [line for line in started.stderr.splitlines() if "warmed up in" in line]
        rows.append(
            ["engine start", f"{seconds:.1f}", warmed[0].split(": ", 1)[-1] if warmed else ""]
        )
    for n in range(1, args.calls + 1):
        seconds, _ = timed(*CALL)
        note = "first after the start" if n == 1 and ours else ""
        rows.append([f"call {n} (engine up)", f"{seconds:.1f}", note])
    if ours:
        seconds, _ = timed("engine", "stop")
        time.sleep(1)
        rows.append(["engine stop", f"{seconds:.1f}", f"{vllm_processes()} vLLM processes left"])
    print(table(rows))


if __name__ == "__main__":
    main()
