"""Prompt build time per call on the zoo's worlds, and a digest of every prompt built.

    python benchmarks/build_time.py [--shapes a,b] [--size-mb 5] [--episodes 5] [--seed 7]
        [--digests FILE] [--compare FILE] [--profile FILE] [--no-wait]

Each shape's world is generated (``benchmarks/zoo``), and its calls run teacher-forced through
the simulator's real path (:class:`~mcp_sim.fidelity.grounding_recall.TeacherModel` answers
with the real response and patch; no model runs). Printed per shape: the world index's build
(``index ms``, timed apart, as ``serve`` builds it once), the background build of the world's
tables that follows it (``tables ms``, see :mod:`mcp_sim.prompting.table_warmup`; the calls
start once it is done, as they would a few seconds after a world is loaded; ``--no-wait``
starts them at once, beside it), the first call's build, and the later calls' builds, mean,
p95 and max: the per-call figures. A call's build runs from the call's start to the request
reaching the model. ``write ms``: what a write call costs after the model's answer (the patch
checked and committed, the session's index moved on to the new state), mean over the writes
that changed something; a server pays it on every write.

``--digests FILE`` writes a SHA-256 per shape of every prompt's messages in order;
``--compare FILE`` checks them against an earlier run's file and exits 1 on a difference: a
speed-up must leave every prompt byte-identical. Run both with the same ``PYTHONHASHSEED``
(``PYTHONHASHSEED=0 python benchmarks/build_time.py ...``): a few views list a set of strings
in its iteration order, which string hashing varies between processes. ``--profile FILE``
writes a cProfile of the calls (not the generation) for ``python -m pstats``.

Wall time on a shared machine swings with the load beside it; the CPU time of the thread
building the prompt (``cpu mean``, ``cpu p95``) much less: compare runs made side by side.
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import anyio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # benchmarks.zoo, when this runs as a script

from benchmarks.zoo import generate  # noqa: E402
from benchmarks.zoo.measuring import chosen_shapes  # noqa: E402
from mcp_sim.fidelity.grounding_recall import TeacherModel  # noqa: E402
from mcp_sim.models.base import Completion, CompletionRequest, ProgressCallback  # noqa: E402
from mcp_sim.settings.combined import Settings  # noqa: E402
from mcp_sim.simulator.core import Simulator  # noqa: E402
from mcp_sim.spec.world import World  # noqa: E402


class TimedTeacher(TeacherModel):
    """The teacher, noting the CPU time of this thread when a request reaches it: on a
    shared machine, CPU time varies less than wall time between runs."""

    def __init__(self) -> None:
        super().__init__()
        self.reached_cpu: float | None = None

    async def complete(
        self, request: CompletionRequest, progress: ProgressCallback | None = None
    ) -> Completion:
        if self.reached_cpu is None:
            self.reached_cpu = time.thread_time()
        return await super().complete(request, progress)


async def shape_builds(
    world: World, calls: list[dict[str, Any]], profile: cProfile.Profile | None, wait: bool = True
) -> dict[str, Any]:
    """Build times of ``calls`` on ``world`` (ms) and the digest of their prompts."""
    model = TimedTeacher()
    simulator = Simulator(world, model, settings=Settings.of())
    if profile is not None:
        profile.enable()
    started = time.perf_counter()
    _ = simulator.view.index
    index_ms = (time.perf_counter() - started) * 1000
    warmup = simulator.view.warmup
    if warmup is not None and wait:
        warmup.wait()
    tables_ms = (warmup.seconds or 0.0) * 1000 if warmup is not None and wait else 0.0
    digest = hashlib.sha256()
    builds: list[float] = []
    cpu: list[float] = []
    applies: list[float] = []
    for call in calls:
        answer = f"<predicted_observation>\n{call['response']}\n</predicted_observation>"
        tool = world.tool(call["tool"])
        writes = tool is not None and tool.effect == "write"
        if writes:
            answer += f"\n<state_patch>{json.dumps(call.get('patch') or [])}</state_patch>"
        model.answer, model.reached, model.reached_cpu, model.prompts = answer, None, None, []
        started, started_cpu = time.perf_counter(), time.thread_time()
        await simulator.call(str(call["episode"]), call["tool"], call["arguments"])
        if not model.prompts:
            continue
        if writes and model.reached is not None and call.get("patch"):
            # What a server pays after the model's answer: the patch checked and committed,
            # the session's index moved on.
            applies.append((time.perf_counter() - model.reached) * 1000)
        builds.append(((model.reached or started) - started) * 1000)
        cpu.append(((model.reached_cpu or started_cpu) - started_cpu) * 1000)
        digest.update(json.dumps(model.prompts[0], sort_keys=True).encode())
    if profile is not None:
        profile.disable()
    return {
        "index_ms": index_ms,
        "tables_ms": tables_ms,
        "builds": builds,
        "cpu": cpu,
        "applies": applies,
        "digest": digest.hexdigest(),
    }


def spread(values: list[float]) -> tuple[float, float, float]:
    """Mean, p95 and max of ``values`` (zeros when there are none)."""
    values = values or [0.0]
    return statistics.fmean(values), sorted(values)[int(0.95 * len(values))], max(values)


def row(shape: str, figures: dict[str, Any]) -> str:
    """One shape's line: index, tables, first call, later calls' mean / p95 / max (ms, wall), the
    later calls' CPU mean / p95 (ms), and the writes' commits (count, mean ms, wall)."""
    first = figures["builds"][0] if figures["builds"] else 0.0
    mean, p95, most = spread(figures["builds"][1:])
    cpu_mean, cpu_p95, _ = spread(figures["cpu"][1:])
    return (
        f"{shape}\t{len(figures['builds'])}\t{figures['index_ms']:.0f}\t"
        f"{figures['tables_ms']:.0f}\t{first:.0f}\t"
        f"{mean:.1f}\t{p95:.0f}\t{most:.0f}\t{cpu_mean:.1f}\t{cpu_p95:.0f}\t"
        f"{len(figures['applies'])}\t{spread(figures['applies'])[0]:.1f}"
    )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shapes", help="comma-separated; random:A-B for random seeds A to B")
    parser.add_argument("--size-mb", type=float, default=5.0)
    parser.add_argument("--episodes", type=int, default=5)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--digests", type=Path, help="write each shape's prompt digest")
    parser.add_argument("--compare", type=Path, help="check digests against this file")
    parser.add_argument("--profile", type=Path, help="write a cProfile of the calls")
    parser.add_argument(
        "--include-held-out", action="store_true", help="run the held-out shapes too"
    )
    parser.add_argument(
        "--no-wait", action="store_true", help="start the calls beside the tables' build"
    )
    args = parser.parse_args(argv[1:])
    profile = cProfile.Profile() if args.profile else None
    print(
        "shape\tcalls\tindex ms\ttables ms\tfirst ms\tmean ms\tp95 ms\tmax ms\tcpu mean\t"
        "cpu p95\twrites\twrite ms"
    )
    digests: dict[str, str] = {}
    later: list[float] = []
    later_cpu: list[float] = []
    applies: list[float] = []
    for shape in chosen_shapes(args.shapes, include_held_out=args.include_held_out):
        spec, calls = generate(shape, args.size_mb, args.seed, args.episodes)
        world = World.model_validate(spec)
        figures = anyio.run(shape_builds, world, calls, profile, not args.no_wait)
        digests[shape] = figures["digest"]
        later.extend(figures["builds"][1:])
        later_cpu.extend(figures["cpu"][1:])
        applies.extend(figures["applies"])
        print(row(shape, figures), flush=True)
    if later:
        mean, p95, most = spread(later)
        cpu_mean, cpu_p95, _ = spread(later_cpu)
        print(
            f"ALL later calls\t{len(later)}\t\t\t\t{mean:.1f}\t{p95:.0f}\t{most:.0f}\t"
            f"{cpu_mean:.1f}\t{cpu_p95:.0f}\t{len(applies)}\t{spread(applies)[0]:.1f}"
        )
    if profile is not None and args.profile is not None:
        profile.dump_stats(str(args.profile))
    if args.digests:
        args.digests.write_text(json.dumps(digests, indent=1), encoding="utf-8")
    if args.compare:
        before: dict[str, str] = json.loads(args.compare.read_text(encoding="utf-8"))
        changed = [s for s, d in digests.items() if s in before and before[s] != d]
        print(f"prompts changed: {changed or 'none'}", file=sys.stderr)
        return 1 if changed else 0
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
