"""How much of each prompt vLLM's prefix cache can reuse, with compaction and on a large world.

Sessions on ``worlds/shop.yaml`` (create, get, list, update, delete in a cycle) are answered by
a rule-based stand-in for the world model that reads the session's real state, so
observations and patches are plausible and every patch commits. For each call after the first
it measures the share of its prompt (characters, and tokens: see
:mod:`mcp_sim.fidelity.prefix_reuse`) that is a prefix of the previous call's prompt plus its
answer, counts the compactions (prompts that do not extend the previous one), and checks the
prompt sizes against the budget, and what a server serves from its cache in whole blocks, for a
plain and for a hybrid model (see :class:`~mcp_sim.fidelity.prefix_reuse.BlockCache`). Sessions: the shop with default options; with a small history
budget (compaction); and the shop with 6,000 orders (about 2.6 MB of state, shown as a view),
for 50 and 100 calls.

With ``--engine`` it measures vLLM's own prefix cache instead: one episode of ``--calls``
calls (10) on ``worlds/shop.yaml`` answered by the real embedded model (vLLM CPU, started here
with the embedded defaults, or the server at ``--model-url``), reading the server's
``/metrics`` counters ``vllm:prefix_cache_queries`` and ``vllm:prefix_cache_hits`` (prompt
tokens looked up, and found, in the cache) around each request, and printing each call's hit
rate next to its character and token reuse; then, per request, its prompt as the engine
tokenized it (``/tokenize``), the tokens it shares with an earlier one, those in whole blocks,
those the engine's default retention allows, what vLLM served, and the text where it diverges
(``--dump FILE`` writes the tokens too).

With ``--example`` it prints the prompt of the third call of a shop session instead (the
example in the README's "What the model is shown"), the system part abbreviated.

    python benchmarks/prefix_sharing.py
    python benchmarks/prefix_sharing.py --engine [--model-url URL] [--calls 10] [--dump F]
    python benchmarks/prefix_sharing.py --example
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
import sys
from pathlib import Path
from typing import Any

import anyio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # benchmarks.engine_cache, when this runs as a script

from benchmarks.engine_cache import engine_episode  # noqa: E402
from benchmarks.grounding import served_line  # noqa: E402
from mcp_sim.fidelity.prefix_reuse import PrefixReuse  # noqa: E402
from mcp_sim.models.base import (  # noqa: E402
    ChatMessage,
    Completion,
    CompletionRequest,
    ProgressCallback,
)
from mcp_sim.prompting.native import estimate_tokens, render_system  # noqa: E402
from mcp_sim.settings import Settings  # noqa: E402
from mcp_sim.simulator.core import Simulator  # noqa: E402
from mcp_sim.spec.loading import load_world  # noqa: E402
from mcp_sim.spec.world import World  # noqa: E402

CALLS = 50
SESSION = "bench"


class RuleBasedModel:
    """Answers shop calls from the session's real state, with a correct patch for writes."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.simulator: Simulator | None = None
        self.requests: list[tuple[list[ChatMessage], str]] = []

    async def complete(
        self, request: CompletionRequest, progress: ProgressCallback | None = None
    ) -> Completion:
        if self.simulator is None:
            raise RuntimeError("attach the simulator first")
        state = self.simulator.sessions.get(SESSION).state
        last = request.messages[-1]["content"]
        action = json.loads(
            re.findall(r"\*\*Action:\*\*\n```json\n(.*?)\n```", last, re.DOTALL)[-1]
        )
        name, args = action["name"], action["arguments"]
        orders = state["orders"]
        where = {o["id"]: i for i, o in enumerate(orders)}
        patch: list[dict[str, Any]] | None = None
        if name == "create_order":
            fresh = re.search(r"order: (ord_\d+)", last)
            record = {
                "id": fresh.group(1) if fresh else "ord_99999",
                "customer": args["customer"],
                "sku": args["sku"],
                "quantity": args["quantity"],
                "status": "placed",
                "created_at": "2026-03-02T09:00:00Z",
            }
            observation: Any = record
            patch = [{"op": "add", "path": "/orders/-", "value": record}]
        elif name == "get_order":
            i = where.get(args["order_id"])
            observation = orders[i] if i is not None else f"not_found: {args['order_id']}"
        elif name == "list_orders":
            observation = {"orders": orders[-10:], "total": len(orders)}
        elif name == "update_order":
            i = where[args["order_id"]]
            observation = {**orders[i], "status": args["status"]}
            patch = [{"op": "replace", "path": f"/orders/{i}/status", "value": args["status"]}]
        else:
            i = where[args["order_id"]]
            observation = {"deleted": args["order_id"]}
            patch = [{"op": "remove", "path": f"/orders/{i}"}]
        text = json.dumps(observation, indent=2)
        content = f"<predicted_observation>\n{text}\n</predicted_observation>"
        if patch is not None:
            content += f"\n<state_patch>{json.dumps(patch)}</state_patch>"
        self.requests.append((list(request.messages), content))
        return Completion(content=content, model="rule-based")

    async def aclose(self) -> None:
        pass


def session_calls(count: int) -> list[tuple[str, dict[str, Any]]]:
    calls: list[tuple[str, dict[str, Any]]] = []
    n = 2
    while len(calls) < count:
        order = f"ord_{n:05d}"
        calls += [
            ("create_order", {"customer": f"c{n}@example.no", "sku": "p-bag10", "quantity": 1}),
            ("get_order", {"order_id": order}),
            ("list_orders", {}),
            ("update_order", {"order_id": order, "status": "packed"}),
            ("get_order", {"order_id": "ord_00001"}),
        ]
        if n % 2:
            calls.append(("delete_order", {"order_id": order}))
        n += 1
    return calls[:count]


async def run_session(
    world: World, options: Settings, count: int = CALLS
) -> list[tuple[list[ChatMessage], str]]:
    """The messages of each request of a ``count``-call session, with the answer given."""
    model = RuleBasedModel(world)
    simulator = Simulator(world, model, settings=options)
    model.simulator = simulator
    for tool, args in session_calls(count):
        result = await simulator.call(SESSION, tool, args)
        if result.patch_status == "rejected":
            raise RuntimeError(f"{tool}: the stand-in's patch was rejected")
    return model.requests


def big_world(world: World, orders: int = 6000) -> World:
    records = [
        {
            "id": f"ord_{i:05d}",
            "customer": f"customer{i}@example.no",
            "sku": "p-tent2",
            "quantity": 1 + i % 3,
            "status": ("placed", "packed", "shipped")[i % 3],
            "created_at": "2026-01-01T00:00:00Z",
            "note": "Leave the parcel at the door and ring twice. " * 6,
        }
        for i in range(1, orders + 1)
    ]
    return world.model_copy(update={"state": {**world.state, "orders": records}})


def extends(previous: list[ChatMessage], current: list[ChatMessage]) -> bool:
    """Whether ``current`` repeats ``previous`` up to the turn of its call (then appends)."""
    head = len(previous) - 1
    return current[:head] == previous[:head] and (
        len(current) > head and previous[head]["content"].startswith(current[head]["content"])
    )


async def report(name: str, world: World, options: Settings, count: int = CALLS) -> None:
    requests = await run_session(world, options, count)
    reuse = PrefixReuse()
    for messages, answer in requests:
        reuse.add(SESSION, messages, answer)
    row = reuse.summary()
    cuts = sum(not extends(a[0], b[0]) for a, b in itertools.pairwise(requests))
    tokens = [estimate_tokens("".join(m["content"] for m in r[0])) for r in requests]
    bound = (
        estimate_tokens(render_system(world))
        + Simulator(world, RuleBasedModel(world), settings=options).budget.bound
    )
    print(
        f"{name}: {count} calls, reuse of calls 2..{count}: characters {row['reuse_chars']:.3f}, "
        f"tokens {row['reuse_tokens']:.3f} (lowest call {row['reuse_min']:.3f}, "
        f"{row['under_0.9']} under 0.9); compactions {cuts}; recomputed tokens per call "
        f"{row['recomputed_tokens_mean']:,.0f}; prompt tokens (estimate) last {tokens[-1]:,}, "
        f"max {max(tokens):,} of at most {bound:,}"
    )
    print(f"  {served_line(row)}")


async def main() -> None:
    world = load_world(ROOT / "worlds" / "shop.yaml")
    print(f"tokens by {PrefixReuse().tokenizer}")
    await report("shop.yaml, default options", world, Settings.of())
    await report("shop.yaml, history budget 4,000 tokens", world, Settings.of(history_budget=4000))
    large = big_world(world)
    size = len(json.dumps(large.state)) / 1e6
    await report(f"shop with 6,000 orders ({size:.1f} MB), default options", large, Settings.of())
    await report(
        f"shop with 6,000 orders ({size:.1f} MB), 100 calls", large, Settings.of(), count=100
    )


def example_prompt(world: World, calls: int = 3) -> str:
    """The prompt of call ``calls`` of a shop session, one ``[role]`` line before each
    message; the system part (the same for every call) is abbreviated to its size."""
    requests = anyio.run(run_session, world, Settings.of(), calls)
    parts = []
    for message in requests[-1][0]:
        content = message["content"]
        if message["role"] == "system":
            content = f"({len(content):,} characters: role, conventions, the world, its tools)"
        parts.append(f"[{message['role']}]\n{content}")
    return "\n".join(parts)


def cli(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine", action="store_true", help="measure vLLM's prefix cache")
    parser.add_argument("--model-url", help="with --engine: a running server's /v1 base URL")
    parser.add_argument("--calls", type=int, default=10, help="with --engine: calls to make")
    parser.add_argument("--dump", type=Path, help="with --engine: each request's tokens (JSON)")
    parser.add_argument("--example", action="store_true", help="print the README's example")
    args = parser.parse_args(argv[1:])
    world = load_world(ROOT / "worlds" / "shop.yaml")
    if args.example:
        print(example_prompt(world))
        return 0
    if args.engine:
        return engine_episode(world, session_calls(args.calls), args.model_url, args.dump)
    anyio.run(main)
    return 0


if __name__ == "__main__":
    sys.exit(cli(sys.argv))
