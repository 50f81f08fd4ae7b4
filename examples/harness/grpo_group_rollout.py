"""A GRPO-style group rollout on the Python API, with no server: one prefix episode,
snapshotted once and forked 8 ways, each branch scored by the world's verify checks.

    python examples/harness/grpo_group_rollout.py http://gpu:8000/v1

The shared prefix (a search) is run once; each fork continues from it with the same state and
history (so a vLLM prefix cache serves their prompts) and its own seed. Each branch plays one
candidate completion of the group (here: a fixed list of tool calls standing in for a
policy's samples), and its reward is the verdict on the task. Prints the group's rewards and
their advantages (reward minus the group mean, over the group's standard deviation) as JSON.
"""

import asyncio
import json
import statistics
import sys
from pathlib import Path

from mcp_sim.api import Worlds
from mcp_sim.models.base import WorldModel

BOOKSTORE = Path(__file__).resolve().parents[2] / "worlds" / "bookstore.yaml"
ORDER = {"book_id": "b1", "quantity": 2, "email": "ana@example.pt", "country": "Portugal"}
# Eight samples of a policy, after the shared search: half order as asked.
CANDIDATES = [
    [("place_order", ORDER)],
    [("place_order", {**ORDER, "book_id": "b2", "quantity": 1})],
    [("get_book", {"book_id": "b1"}), ("place_order", ORDER)],
    [],
    [("place_order", ORDER)],
    [("search_books", {"query": "antarctica"})],
    [("place_order", ORDER)],
    [("cancel_order", {"order_id": "none"})],
]


async def group_rollout(model: WorldModel | str) -> dict:
    async with await Worlds.open(BOOKSTORE, model=model, seed=11) as worlds:
        prefix = await worlds.episode(task="gift-order")
        await prefix.call("search_books", {"query": "glass"})
        snapshot = await prefix.snapshot()
        branches = [await prefix.fork(seed=i) for i in range(len(CANDIDATES))]
        rewards = []
        for branch, calls in zip(branches, CANDIDATES, strict=True):
            for tool, arguments in calls:
                await branch.call(tool, arguments)
            rewards.append((await branch.verify()).reward)
        mean, spread = statistics.mean(rewards), statistics.pstdev(rewards) or 1.0
        return {
            "prefix_steps": snapshot.steps,
            "branches": [b.id for b in branches],
            "rewards": rewards,
            "advantages": [round((r - mean) / spread, 6) for r in rewards],
        }


if __name__ == "__main__":
    print(json.dumps(asyncio.run(group_rollout(sys.argv[1]))))
