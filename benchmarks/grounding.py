"""Grounding benchmark: does each prompt hold the facts the real answer needs, within budget?

    python benchmarks/grounding.py WORLD CALLS.jsonl [--state-budget T] [--limit N] [--json F]
    python benchmarks/grounding.py --zoo [--shapes a,b] [--size-mb N] [--episodes N] [--json F]

CALLS.jsonl holds recorded calls, one JSON object a line: an episode id (``episode``, or
``split`` + ``task_index`` as in tau-bench exports), ``tool``, ``arguments``, the real
``response`` (text), ``is_error`` and optionally the real state ``patch``. The run is teacher
forced: every call goes through the simulator's real path (the code ``serve`` runs) against a
stand-in model that records the prompt it is sent and answers with the real response and the
real patch, so each prompt is built on the real earlier calls, answers and state. No model runs.

Printed per tool, per kind of call and overall:

- **recall**: of the real answer's ``"key": value`` pairs (strings of 3+ characters and all
  numbers, numbers compared by value, values the call's own arguments hold left out; a
  non-JSON answer is one value), the share that appear in the prompt outside the system
  message, next to their key. Successful calls only.
- **presence** (value presence): the share of the same values found anywhere in the prompt,
  whatever key stands beside them: a summary that holds an answer's computed total under its
  own name (``size_total`` for an answer's ``bytes``) counts here, not in recall.
- **unsimulated**: calls the simulator could not answer (``model_error``) though the stand-in
  gave the real answer (an answer shape it refuses, such as an empty one); should be 0;
- the share of calls with recall 1.0;
- prompt tokens (mean, p95, max; the simulator's estimate) and the longest prompt in
  characters;
- prompt build time per call (ms): from the call's start to the request reaching the model;
- prefix reuse (characters and tokens): of each later call's prompt, the share that is a prefix
  of the episode's previous prompt plus its answer (see :mod:`mcp_sim.fidelity.prefix_reuse`),
  overall and, with ``--episodes``, per episode; and what a server serves of it from its cache
  in whole blocks, for a plain model (``--plain-block``, 16 tokens) and for a hybrid one
  (``--hybrid-block``, 1,056, from the points where vLLM kept its linear layers' state), with
  the tokens each call recomputes (mean, p95).

Kinds: a call's ``kind`` field where it has one, else ``lookup`` (a read whose argument is a
record's key), ``search`` (another read), ``write``. Also: state-grounded recall (only the
answer's values the state holds), prefix reuse (the share of a call's prompt that is a prefix of
the previous call's prompt and answer, in characters of the rendered chat), and calls the
simulator could not answer.

``--zoo`` generates the worlds of ``benchmarks/zoo`` (state of ``--size-mb`` MB each, calls
answered by code) and prints the figures per shape and per kind of call (``lookup``,
``nested_lookup``, ``search``, ``join``, ``aggregate``, ``write``, ``read_after_write``,
``empty``), then per kind over all shapes. The held-out shapes (``benchmarks.zoo.HELD_OUT``) run
only with ``--include-held-out``: nobody tunes on them. ``--shapes random:0-9`` runs the shapes
drawn from seeds 0 to 9 (``benchmarks/zoo/random_shapes``): seeds 0-99 are for development,
seeds from 1000 up are held out.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import anyio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # benchmarks.zoo, when this runs as a script

from benchmarks.zoo.measuring import chosen_shapes, measure_zoo, table  # noqa: E402
from mcp_sim.fidelity.grounding_recall import TeacherModel, measure, read_calls  # noqa: E402
from mcp_sim.fidelity.prefix_reuse import (  # noqa: E402
    HYBRID_BLOCK_TOKENS,
    PLAIN_BLOCK_TOKENS,
    PrefixReuse,
)
from mcp_sim.prompting.native import estimate_tokens, render_system  # noqa: E402
from mcp_sim.settings import PromptSettings, Settings  # noqa: E402
from mcp_sim.simulator.core import Simulator  # noqa: E402
from mcp_sim.spec.loading import load_world  # noqa: E402


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    return f"{value:.3f}" if isinstance(value, float) else str(value)


def served_line(summary: dict[str, Any]) -> str:
    """What servers serve of the later calls' prompts (whole blocks, the hybrid model's
    checkpoints: :class:`~mcp_sim.fidelity.prefix_reuse.BlockCache`) and what they
    recompute per call."""
    blocks = summary["blocks"]
    return (
        f"served from the cache: plain model (blocks of {blocks['plain']}) "
        f"{_cell(summary.get('reuse_plain_blocks'))}, hybrid model (blocks of "
        f"{blocks['hybrid']}) {_cell(summary.get('reuse_hybrid_blocks'))}, with its state "
        f"kept at every block {_cell(summary.get('reuse_hybrid_dense_blocks'))}; tokens recomputed "
        f"per call, mean / p95: exact {summary['recomputed_tokens_mean']:,.0f} / "
        f"{summary['recomputed_tokens_p95']:,}, plain "
        f"{summary.get('recomputed_plain_mean', 0):,.0f} / "
        f"{summary.get('recomputed_plain_p95', 0):,}, hybrid "
        f"{summary.get('recomputed_hybrid_mean', 0):,.0f} / "
        f"{summary.get('recomputed_hybrid_p95', 0):,}"
    )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("world", type=Path, nargs="?")
    parser.add_argument("calls", type=Path, nargs="?")
    parser.add_argument("--zoo", action="store_true", help="measure the generated zoo")
    parser.add_argument(
        "--shapes",
        help="the zoo's shapes to run, comma-separated; random:A-B for random seeds A to B",
    )
    parser.add_argument("--size-mb", type=float, default=4.0, help="zoo state size per shape")
    parser.add_argument("--episodes", type=int, default=30, help="zoo episodes per shape")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--include-held-out", action="store_true")
    parser.add_argument("--state-budget", type=int, default=PromptSettings().state_budget)
    parser.add_argument("--history-budget", type=int, default=PromptSettings().history_budget)
    parser.add_argument("--turn-budget", type=int, default=PromptSettings().turn_budget)
    parser.add_argument("--limit", type=int, default=0, help="only the first N calls")
    parser.add_argument("--json", type=Path, help="also write the figures as JSON")
    parser.add_argument(
        "--misses",
        type=Path,
        help="write each call whose prompt lacks facts of its answer (JSON lines: the call, "
        "the facts missing, the call's view)",
    )
    parser.add_argument("--plain-block", type=int, default=PLAIN_BLOCK_TOKENS)
    parser.add_argument("--hybrid-block", type=int, default=HYBRID_BLOCK_TOKENS)
    args = parser.parse_args(argv[1:])
    if args.zoo:
        return _zoo(args)
    if args.world is None or args.calls is None:
        parser.error("give WORLD and CALLS, or --zoo")
    loading = time.perf_counter()
    world = load_world(args.world)
    calls = read_calls(args.calls)[: args.limit or None]
    options = Settings.of(
        state_budget=args.state_budget,
        history_budget=args.history_budget,
        turn_budget=args.turn_budget,
    )
    print(
        f"{args.world}: {len(calls)} calls, state {len(json.dumps(world.state)):,} chars, "
        f"loaded in {time.perf_counter() - loading:.1f} s; state budget {args.state_budget}, "
        f"history budget {args.history_budget} tokens",
        file=sys.stderr,
    )
    reuse = PrefixReuse(args.plain_block, args.hybrid_block)
    misses: list[dict[str, Any]] | None = [] if args.misses else None
    rows = anyio.run(measure, world, calls, options, reuse, misses)
    _write_misses(args.misses, misses)
    budget = Simulator(world, TeacherModel(), settings=options).budget
    system = estimate_tokens(render_system(world))
    print(
        f"prompt budget: system {system} + state {budget.state_tokens} (later turns "
        f"{budget.turn_tokens}) + history {budget.history_tokens} + closing = "
        f"{system + budget.bound} tokens; largest prompt {rows['overall']['tokens_max']}",
        file=sys.stderr,
    )
    print(f"world index built in {rows['overall'].pop('index_ms'):.0f} ms", file=sys.stderr)
    columns = list(dict.fromkeys(c for row in rows.values() for c in row))
    print("\t".join(["group", *columns]))
    for name, row in rows.items():
        print("\t".join([name, *(_cell(row.get(c)) for c in columns)]))
    summary = reuse.summary()
    print(
        f"prefix reuse of later calls ({summary['later_calls']} in {summary['episodes']} "
        f"episodes; tokens by {summary['tokenizer']}): characters {_cell(summary['reuse_chars'])}, "
        f"tokens {_cell(summary['reuse_tokens'])}; per episode (tokens) mean "
        f"{_cell(summary['episode_reuse_mean'])}, min {_cell(summary['episode_reuse_min'])}; "
        f"calls under 0.9: {summary['under_0.9']}",
        file=sys.stderr,
    )
    print(served_line(summary), file=sys.stderr)
    episodes = {name: r.row() for name, r in reuse.episodes.items()}
    if args.json:
        figures = {"groups": rows, "prefix_reuse": summary, "episodes": episodes}
        args.json.write_text(json.dumps(figures, indent=1), encoding="utf-8")
    return 0


def _zoo(args: argparse.Namespace) -> int:
    shapes = chosen_shapes(args.shapes, args.include_held_out)
    options = Settings.of(
        state_budget=args.state_budget,
        history_budget=args.history_budget,
        turn_budget=args.turn_budget,
    )
    print(
        f"zoo: {', '.join(shapes)}; {args.size_mb} MB, {args.episodes} episodes each, seed "
        f"{args.seed}",
        file=sys.stderr,
    )
    blocks = (args.plain_block, args.hybrid_block)
    misses: list[dict[str, Any]] | None = [] if args.misses else None
    report = anyio.run(
        measure_zoo, shapes, args.size_mb, args.seed, args.episodes, options, blocks, misses
    )
    _write_misses(args.misses, misses)
    for shape, block in report["shapes"].items():
        print(f"{shape}: {block['info']}", file=sys.stderr)
    print("\n".join(table(report)))
    over = report["over_bound"]
    print(
        f"prompts over their bound: {', '.join(over)}" if over else "every prompt within its bound",
        file=sys.stderr,
    )
    if args.json:
        args.json.write_text(json.dumps(report, indent=1), encoding="utf-8")
    return 0


def _write_misses(path: Path | None, misses: list[dict[str, Any]] | None) -> None:
    if path is None or misses is None:
        return
    lines = [json.dumps(miss, ensure_ascii=False) for miss in misses]
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    print(f"{len(misses)} calls with facts missing written to {path}", file=sys.stderr)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
