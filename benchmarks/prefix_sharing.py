"""How much of each prompt vLLM's prefix cache can reuse, and what compaction and large-world
views do to prompt size.

A 50-call session on ``worlds/shop.yaml`` (create, get, list, update, delete in a cycle), with
the default options, is answered by a rule-based stand-in for the world model that reads the session's real state, so
observations and patches are plausible and every patch commits. For each call after the first
it measures the characters its prompt shares, as a prefix, with the previous call's prompt
(the chat rendered as ``<|role|>`` + content, as a chat template would lay it out). Then it
runs the same session with a small history budget to show compaction, and a few calls on the
shop with 6,000 orders (about 2.4 MB of state) to show the prompt size of a large world.

    python benchmarks/prefix_sharing.py
"""

from __future__ import annotations

import itertools
import json
import re
import sys
from pathlib import Path
from typing import Any

import anyio

from mcp_sim.models.base import ChatMessage, Completion, CompletionRequest, ProgressCallback
from mcp_sim.prompting.native import estimate_tokens
from mcp_sim.settings import PromptSettings, Settings
from mcp_sim.simulator.core import Simulator
from mcp_sim.spec.loading import load_world
from mcp_sim.spec.world import World

ROOT = Path(__file__).resolve().parent.parent
CALLS = 50
SESSION = "bench"


def render(messages: list[ChatMessage]) -> str:
    return "".join(f"<|{m['role']}|>\n{m['content']}\n" for m in messages)


def shared_prefix(a: str, b: str) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


class RuleBasedModel:
    """Answers shop calls from the session's real state, with a correct patch for writes."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.simulator: Simulator | None = None
        self.prompts: list[str] = []

    async def complete(
        self, request: CompletionRequest, progress: ProgressCallback | None = None
    ) -> Completion:
        if self.simulator is None:
            raise RuntimeError("attach the simulator first")
        self.prompts.append(render(request.messages))
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


async def run_session(world: World, options: Settings, count: int = CALLS) -> list[str]:
    model = RuleBasedModel(world)
    simulator = Simulator(world, model, settings=options)
    model.simulator = simulator
    for tool, args in session_calls(count):
        result = await simulator.call(SESSION, tool, args)
        if result.patch_status == "rejected":
            raise RuntimeError(f"{tool}: the stand-in's patch was rejected")
    return model.prompts


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


def sharing(prompts: list[str]) -> tuple[float, float, list[float]]:
    """(character-weighted, mean per call, per call) fraction shared with the previous prompt."""
    pairs = [(shared_prefix(prev, cur), len(cur)) for prev, cur in itertools.pairwise(prompts)]
    per_call = [shared / size for shared, size in pairs]
    weighted = sum(shared for shared, _ in pairs) / sum(size for _, size in pairs)
    return weighted, sum(per_call) / len(per_call), per_call


async def main() -> None:
    world = load_world(ROOT / "worlds" / "shop.yaml")
    plain = await run_session(world, Settings.of())  # the default history budget is not reached
    weighted, mean, per_call = sharing(plain)
    print(f"prefix sharing over a {CALLS}-call session (calls 2..{CALLS}):")
    print(f"  shared fraction, character-weighted: {weighted:.3f}")
    print(f"  shared fraction, mean per call:      {mean:.3f}")
    print(
        f"  shared fraction at calls 2 / 10 / 25 / 50: {per_call[0]:.3f} / {per_call[8]:.3f} / "
        f"{per_call[23]:.3f} / {per_call[-1]:.3f}"
    )
    crossing = next((i + 2 for i, share in enumerate(per_call) if share >= 0.9), None)
    print(f"  first call sharing >= 0.9: {crossing}")
    per_call_unshared = len(plain[-1]) - shared_prefix(plain[-2], plain[-1])
    print(f"  characters not shared at call {CALLS}: {per_call_unshared:,}")
    compacted = await run_session(world, Settings.of(history_budget=4000, keep_turns=8))
    c_weighted, c_mean, _ = sharing(compacted)
    print(f"prompt at call {CALLS}:")
    print(
        f"  without compaction (default history budget "
        f"{PromptSettings().history_budget:,} tokens, not reached): {len(plain[-1]):,} chars, "
        f"~{estimate_tokens(plain[-1]):,} tokens"
    )
    print(
        f"  with compaction (history budget 4,000 tokens, keep 8 turns): "
        f"{len(compacted[-1]):,} chars, ~{estimate_tokens(compacted[-1]):,} tokens "
        f"(shared fraction {c_weighted:.3f} weighted, {c_mean:.3f} mean)"
    )
    large = big_world(world)
    size = len(json.dumps(large.state))
    tokens = [estimate_tokens(p) for p in await run_session(large, Settings.of(), count=10)]
    print(f"large world ({size / 1e6:.1f} MB state, state budget 8,000 tokens), prompt tokens:")
    print("  " + " ".join(f"{t:,}" for t in tokens))


if __name__ == "__main__":
    sys.exit(anyio.run(main))
