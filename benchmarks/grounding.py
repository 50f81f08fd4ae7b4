"""Grounding benchmark: does each prompt hold the facts the real answer needs, within budget?

    python benchmarks/grounding.py WORLD CALLS.jsonl [--state-budget T] [--limit N] [--json F]

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
- the share of calls with recall 1.0;
- prompt tokens (mean, p95, max; the simulator's estimate) and the longest prompt in
  characters;
- prompt build time per call (ms): from the call's start to the request reaching the model;
- prefix reuse (characters and tokens): of each later call's prompt, the share that is a prefix
  of the episode's previous prompt plus its answer (see :mod:`mcp_sim.fidelity.prefix_reuse`),
  overall and, with ``--episodes``, per episode.

Kinds: ``lookup`` (a read whose argument is a record's key), ``search`` (another read),
``write``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import anyio

from mcp_sim.fidelity.grounding_recall import TeacherModel, measure, read_calls
from mcp_sim.fidelity.prefix_reuse import PrefixReuse
from mcp_sim.prompting.native import estimate_tokens, render_system
from mcp_sim.simulator.core import SimOptions, Simulator
from mcp_sim.spec.loading import load_world


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    return f"{value:.3f}" if isinstance(value, float) else str(value)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("world", type=Path)
    parser.add_argument("calls", type=Path)
    parser.add_argument("--state-budget", type=int, default=SimOptions.state_budget_tokens)
    parser.add_argument("--history-budget", type=int, default=SimOptions.history_budget_tokens)
    parser.add_argument("--turn-budget", type=int, default=SimOptions.turn_budget_tokens)
    parser.add_argument("--limit", type=int, default=0, help="only the first N calls")
    parser.add_argument("--json", type=Path, help="also write the figures as JSON")
    parser.add_argument(
        "--episodes", action="store_true", help="also print each episode's prefix reuse"
    )
    args = parser.parse_args(argv[1:])
    loading = time.perf_counter()
    world = load_world(args.world)
    calls = read_calls(args.calls)[: args.limit or None]
    options = SimOptions(
        state_budget_tokens=args.state_budget,
        history_budget_tokens=args.history_budget,
        turn_budget_tokens=args.turn_budget,
    )
    print(
        f"{args.world}: {len(calls)} calls, state {len(json.dumps(world.state)):,} chars, "
        f"loaded in {time.perf_counter() - loading:.1f} s; state budget {args.state_budget}, "
        f"history budget {args.history_budget} tokens",
        file=sys.stderr,
    )
    reuse = PrefixReuse()
    rows = anyio.run(measure, world, calls, options, reuse)
    budget = Simulator(world, TeacherModel(), options=options).budget
    system = estimate_tokens(render_system(world))
    print(
        f"prompt budget: system {system} + state {budget.state_tokens} (later turns "
        f"{budget.turn_tokens}) + history {budget.history_tokens} + closing = "
        f"{system + budget.bound} tokens; largest prompt {rows['overall']['tokens_max']}",
        file=sys.stderr,
    )
    print(f"world index built in {rows['overall'].pop('index_ms'):.0f} ms", file=sys.stderr)
    columns = list(next(iter(rows.values())))
    print("\t".join(["group", *columns]))
    for name, row in rows.items():
        print("\t".join([name, *(_cell(row[c]) for c in columns)]))
    summary = reuse.summary()
    print(
        f"prefix reuse of later calls ({summary['later_calls']} in {summary['episodes']} "
        f"episodes; tokens by {summary['tokenizer']}): characters {_cell(summary['reuse_chars'])}, "
        f"tokens {_cell(summary['reuse_tokens'])}; per episode (tokens) mean "
        f"{_cell(summary['episode_reuse_mean'])}, min {_cell(summary['episode_reuse_min'])}; "
        f"calls under 0.9: {summary['under_0.9']}",
        file=sys.stderr,
    )
    episodes = {name: r.row() for name, r in reuse.episodes.items()}
    if args.episodes:
        columns = list(next(iter(episodes.values()), {}))
        print("\t".join(["episode", *columns]))
        for name, row in episodes.items():
            print("\t".join([name, *(_cell(row[c]) for c in columns)]))
    if args.json:
        figures = {"groups": rows, "prefix_reuse": summary, "episodes": episodes}
        args.json.write_text(json.dumps(figures, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
