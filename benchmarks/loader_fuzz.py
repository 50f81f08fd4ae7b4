"""Fuzz the world loader: load thousands of broken worlds and count what went wrong.

Every world is a mutation of a shipped one (``tests/world_mutations.py``: byte flips, control
characters, YAML tags, odd numbers, deep nesting, alias bombs, bad regexes, bad JSON Schemas,
bad id patterns, moved lines, values of the wrong type), written to a file and loaded with
``load_world``, as ``mcp-sim validate`` and ``serve`` do. A run must end in a loaded world or a
``SpecError`` whose every problem has a line and a column. Prints:

- tracebacks: runs that raised anything else, by exception type and place;
- loaded worlds that fail to serve their first calls (each fixture, each tool with no
  arguments, through the simulator and a scripted model);
- slow runs: over ``--slow`` seconds (2 by default);
- problems without a line and column, and reader errors (control characters, bytes that are not
  UTF-8) whose line and column do not hold the bad character;
- the time to refuse "billion laughs" files of nested aliases (target: under 100 ms).

    python benchmarks/loader_fuzz.py [--count 10000] [--seed 0] [--slow 2]
"""

from __future__ import annotations

import argparse
import contextlib
import random
import signal
import sys
import tempfile
import time
import traceback
from collections import Counter
from pathlib import Path
from types import FrameType

import anyio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mcp_sim.errors import SpecError, SpecProblem  # noqa: E402
from mcp_sim.spec.loading import load_world  # noqa: E402
from mcp_sim.spec.locations import LINE_BREAK  # noqa: E402
from tests.world_mutations import billion_laughs, mutate, seed_worlds, serve_some_calls  # noqa: E402

HANG_SECONDS = 30


class Hung(Exception):
    pass


def _hang(signum: int, frame: FrameType | None) -> None:
    raise Hung


def misplaced(problem: SpecProblem, raw: bytes) -> bool:
    """Whether a problem's line and column lie outside the file, or a reader error's miss the
    character it is about (lines counted as YAML counts them)."""
    lines = LINE_BREAK.split(raw.decode("utf-8", "replace"))
    if not 1 <= problem.line <= len(lines) or problem.column > len(lines[problem.line - 1]) + 1:
        return True
    at = lines[problem.line - 1][problem.column - 1 : problem.column]
    if problem.message.startswith("not UTF-8"):
        return at != "\ufffd"
    if problem.message.startswith("character U+"):
        return at != chr(int(problem.message.split()[1][2:], 16))
    return False


def laughs_refusal_ms(folder: Path) -> list[tuple[int, int, int, float]]:
    """(depth, fanout, bytes, milliseconds to refuse) for a few alias bombs."""
    timings = []
    for depth, fanout in [(6, 9), (7, 9), (9, 9), (12, 10)]:
        path = folder / f"laughs-{depth}.yaml"
        path.write_text(billion_laughs(depth, fanout), encoding="utf-8")
        start = time.perf_counter()
        with contextlib.suppress(SpecError):
            load_world(path)
        timings.append((depth, fanout, path.stat().st_size, (time.perf_counter() - start) * 1e3))
    return timings


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--slow", type=float, default=2.0, help="seconds that count as slow")
    args = parser.parse_args()

    seeds = sorted(seed_worlds().items())
    outcomes: Counter[str] = Counter()
    tracebacks: Counter[str] = Counter()
    examples: dict[str, str] = {}
    slow: list[tuple[float, str]] = []
    unlocated: list[str] = []
    at_start: Counter[str] = Counter()
    durations: list[tuple[float, str]] = []
    served, unservable = 0, list[str]()
    signal.signal(signal.SIGALRM, _hang)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for i in range(args.count):
            rng = random.Random(args.seed * 1_000_003 + i)
            name, text = rng.choice(seeds)
            applied: list[str] = []
            raw = mutate(text, rng, applied)
            path = folder / f"{i % 2}-{name}"
            path.write_bytes(raw)
            world = None
            signal.alarm(HANG_SECONDS)
            start = time.perf_counter()
            try:
                world = load_world(path)
                outcomes["loaded"] += 1
            except SpecError as exc:
                outcomes["refused"] += 1
                for problem in exc.problems:
                    if problem.line < 1 or problem.column < 1 or misplaced(problem, raw):
                        unlocated.append(f"case {i} ({name}): {problem}")
                    if (problem.line, problem.column) == (1, 1):
                        at_start[problem.message[:70]] += 1
            except Hung:
                outcomes["hung"] += 1
                slow.append((HANG_SECONDS, f"case {i} ({name}): hung"))
            except Exception as exc:
                outcomes["traceback"] += 1
                where = traceback.extract_tb(exc.__traceback__)[-1]
                cause = f"{type(exc).__name__} at {Path(where.filename).name}:{where.lineno}"
                tracebacks[cause] += 1
                examples.setdefault(cause, f"case {i} ({name}): {str(exc)[:200]}")
            finally:
                signal.alarm(0)
            elapsed = time.perf_counter() - start
            durations.append((elapsed, f"case {i} ({name}: {', '.join(applied)})"))
            if elapsed > args.slow:
                slow.append((elapsed, f"case {i} ({name})"))
            if world is not None:
                try:
                    anyio.run(serve_some_calls, world)
                    served += 1
                except Exception as exc:
                    unservable.append(f"case {i} ({name}): {type(exc).__name__}: {exc}"[:300])
        laughs = laughs_refusal_ms(folder)

    durations.sort()
    times = [elapsed for elapsed, _ in durations]
    print(
        f"worlds: {args.count} (seed {args.seed}); "
        + ", ".join(f"{k} {v}" for k, v in outcomes.items())
    )
    print(
        f"load time: median {times[len(times) // 2] * 1e3:.0f} ms, "
        f"p99 {times[int(len(times) * 0.99)] * 1e3:.0f} ms; slowest:"
    )
    for elapsed, what in durations[-3:][::-1]:
        print(f"  {elapsed * 1e3:6.0f} ms  {what}")
    print(f"tracebacks: {sum(tracebacks.values())} from {len(tracebacks)} causes")
    for cause, count in tracebacks.most_common():
        print(f"  {count:5}  {cause}\n         e.g. {examples[cause]}")
    print(f"loaded worlds served (fixtures and tools called): {served}, failed: {len(unservable)}")
    for line in unservable[:10]:
        print(f"  {line}")
    print(f"runs over {args.slow:g} s: {len(slow)}")
    for elapsed, what in sorted(slow, reverse=True)[:10]:
        print(f"  {elapsed:6.2f} s  {what}")
    print(f"problems without a (right) line and column: {len(unlocated)}")
    for line in unlocated[:10]:
        print(f"  {line}")
    print(f"problems at 1:1 (the file as a whole, or its top mapping): {sum(at_start.values())}")
    for message, count in at_start.most_common(8):
        print(f"  {count:5}  {message}")
    print("billion laughs refused in:")
    for depth, fanout, size, ms in laughs:
        print(f"  depth {depth:2}, fanout {fanout:2} ({size} bytes): {ms:.1f} ms")
    failed = tracebacks or slow or unlocated or unservable or any(ms >= 100 for *_, ms in laughs)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
