"""The Python API's episodes say what their calls cost and whether all were simulated, and a
verdict the world model's failure spoiled is marked invalid for the caller to mask."""

from __future__ import annotations

from mcp_sim.api import Worlds
from mcp_sim.scoring.trajectory_counts import SimulationCounts
from tests.conftest import BOOKSTORE
from tests.scripted_model import OutageModel
from tests.server.test_episode_routes import book_order

PLACE = {"book_id": "b1", "quantity": 2, "email": "ana@example.pt", "country": "Portugal"}


async def test_a_group_rollout_masks_the_branch_the_world_model_failed() -> None:
    # Two branches order; the world model is down for the first branch's order only.
    model = OutageModel(book_order(), down={1})
    async with await Worlds.open(BOOKSTORE, model=model, seed=5) as worlds:
        prefix = await worlds.episode(task="gift-order")
        await prefix.call("search_books", {"query": "glass"})
        branches = [await prefix.fork(seed=i) for i in range(2)]
        results = [await branch.call("place_order", PLACE) for branch in branches]
        verdicts = [await branch.verify() for branch in branches]
        usages = [branch.usage() for branch in branches]

    assert [r.source for r in results] == ["model_error", "model"]
    assert [v.valid for v in verdicts] == [False, True]
    assert verdicts[1].reward == 1.0
    kept = [v.reward for v in verdicts if v.valid]
    assert kept == [1.0]
    assert usages[0].simulation == SimulationCounts(calls=2, model_errors=1)
    assert usages[1].valid and usages[1].model.prompt_tokens == verdicts[1].usage.prompt_tokens
    assert usages[1].model.prompt_tokens > 0 and usages[0].model.prompt_tokens == 0
    assert branches[1].summary()["usage"] == usages[1].model.as_dict()
