"""How often a real world model contradicts the explicit world state: violations per 100 calls.

Runs sessions on ``worlds/shop.yaml`` (create → get → list → update → get → delete → get the
deleted order, in a cycle) through the simulator against a real OpenAI-compatible endpoint,
with the consistency auditor on, and prints what it found: answers that contradicted the state
(and were asked for again), violations still there after that one regeneration, and state
changes committed and rejected. With no ``--model-url`` it starts the embedded tiny model (vLLM
CPU) itself and uses the embedded defaults (bounded output, small budgets, no seeds).

    python benchmarks/consistency.py [--model-url URL] [--calls 100] [--sessions 10]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import anyio

from mcp_sim.api.assembly import Resolved
from mcp_sim.engine.vllm_server import VLLMServer
from mcp_sim.models.base import Sampling
from mcp_sim.models.openai import EndpointSettings, OpenAICompatibleModel
from mcp_sim.settings import Settings
from mcp_sim.simulator.core import Simulator
from mcp_sim.spec.loading import load_world

ROOT = Path(__file__).resolve().parent.parent


def session_calls(session: int, count: int) -> list[tuple[str, dict[str, Any]]]:
    """``count`` calls of one session; ids follow the shop's allocator (ord_00002 first)."""
    calls: list[tuple[str, dict[str, Any]]] = []
    n = 2
    while len(calls) < count:
        order = f"ord_{n:05d}"
        calls += [
            (
                "create_order",
                {"customer": f"c{session}-{n}@example.no", "sku": "p-bag10", "quantity": 1},
            ),
            ("get_order", {"order_id": order}),
            ("list_orders", {}),
            ("update_order", {"order_id": order, "status": "packed"}),
            ("get_order", {"order_id": "ord_00001"}),
            ("delete_order", {"order_id": order}),
            ("get_order", {"order_id": order}),
        ]
        n += 1
    return calls[:count]


async def run(
    model_url: str, calls: int, sessions: int, options: Settings, max_tokens: int
) -> None:
    world = load_world(ROOT / "worlds" / "shop.yaml")
    model = OpenAICompatibleModel(EndpointSettings(base_urls=[model_url], request_timeout=900))
    simulator = Simulator(
        world, model, default_sampling=Sampling(max_tokens=max_tokens), settings=options
    )
    per_session = -(-calls // sessions)
    sources: Counter[str] = Counter()
    patches: Counter[str] = Counter()
    started = time.perf_counter()
    done = 0
    try:
        for s in range(sessions):
            for tool, args in session_calls(s, min(per_session, calls - done)):
                result = await simulator.call(f"consistency-{s}", tool, args)
                sources[result.source] += 1
                if world.tool(tool) is not None and world.tool(tool).effect == "write":  # type: ignore[union-attr]
                    patches[result.patch_status] += 1
                done += 1
                flagged = f" FLAGGED {list(result.violations)}" if result.violations else ""
                print(
                    f"call {done:3d} s{s} {tool:13s} v{result.version} {result.source:11s} "
                    f"{result.patch_status:9s}{flagged}",
                    file=sys.stderr,
                )
    finally:
        await model.aclose()
    elapsed = time.perf_counter() - started
    totals: Counter[str] = Counter()
    for session in simulator.sessions:
        totals.update(session.consistency.as_dict())
    checked = totals["checked"]
    per100 = 100 * totals["flagged"] / checked if checked else 0.0
    print(f"consistency on the real model ({model_url}), {done} calls in {sessions} sessions:")
    print(f"  answered by the model and audited: {checked} (sources: {dict(sources)})")
    print(f"  first answers that contradicted the state (regenerated): {totals['regenerated']}")
    print(f"  violations left after the regeneration: {totals['flagged']}")
    print(f"  violations per 100 audited calls: {per100:.1f}")
    print(f"  write calls: {dict(patches)} (rejected patches: {totals['patches_rejected']})")
    print(f"  {elapsed / max(done, 1):.1f} s per call")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model-url", help="OpenAI-compatible base URL (default: embedded)")
    parser.add_argument("--calls", type=int, default=100)
    parser.add_argument("--sessions", type=int, default=10)
    parser.add_argument("--max-tokens", type=int, default=512)
    parser.add_argument(
        "--full-model",
        action="store_true",
        help="use the default options (no output bounds, seeds, large budgets) for a real "
        "world model instead of the embedded tiny model's",
    )
    args = parser.parse_args()
    options = Settings.of() if args.full_model else Resolved.of(Settings()).settings
    if args.model_url:
        anyio.run(run, args.model_url, args.calls, args.sessions, options, args.max_tokens)
        return
    with VLLMServer.embedded(progress=lambda m: print(m, file=sys.stderr)) as engine:
        anyio.run(run, engine.base_url, args.calls, args.sessions, options, args.max_tokens)


if __name__ == "__main__":
    main()
