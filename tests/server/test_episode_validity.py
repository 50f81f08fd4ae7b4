"""The episode API says when an episode's calls were not all simulated: its summary counts model
errors, timeouts and injected faults with the world model's tokens and seconds, and its verdict
is marked invalid, as a launcher masking rollouts reads them."""

from __future__ import annotations

import anyio

from mcp_sim.episodes.hub import EpisodeHub
from mcp_sim.simulator.core import Simulator
from mcp_sim.spec.world import World
from tests.scripted_model import OutageModel
from tests.server.test_episode_routes import BOOKS, api_client, book_order

PLACE = {"book_id": "b1", "quantity": 2, "email": "ana@example.pt", "country": "Portugal"}


async def test_an_outage_mid_episode_is_in_its_summary_and_marks_its_verdict(
    bookstore: World,
) -> None:
    # The world model answers the first order and is down for the second.
    simulator = Simulator(bookstore, OutageModel(book_order(), down={2}))
    hub = EpisodeHub({BOOKS: simulator})
    with anyio.fail_after(30):
        async with api_client(hub) as http:
            made = (await http.post("/episodes", json={"task": "gift-order"})).json()
            await simulator.call(made["id"], "search_books", {"query": "glass"})
            await simulator.call(made["id"], "place_order", PLACE)
            healthy = (await http.get(f"/episodes/{made['id']}")).json()
            await simulator.call(made["id"], "place_order", PLACE)
            summary = (await http.get(f"/episodes/{made['id']}")).json()
            verdict = (await http.post(f"/episodes/{made['id']}/verify")).json()
            fork = (await http.post(f"/episodes/{made['id']}/fork")).json()
            forked = (await http.get(f"/episodes/{fork['id']}")).json()

    assert healthy["valid"] is True and healthy["simulation"]["calls"] == 2
    assert summary["valid"] is False
    assert summary["simulation"] == {
        "calls": 3,
        "model_errors": 1,
        "timeouts": 0,
        "injected_faults": 0,
    }
    usage = summary["usage"]
    assert usage["prompt_tokens"] > 0 and usage["completion_tokens"] > 0
    assert usage["model_seconds"] is not None and usage["model_seconds"] >= 0
    assert verdict["valid"] is False and verdict["simulation"] == summary["simulation"]
    assert verdict["usage"] == usage
    # A fork counts its parent's calls, and so their failures and cost.
    assert forked["valid"] is False and forked["usage"] == usage
