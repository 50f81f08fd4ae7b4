"""An episode id used again is another episode: its store record carries a new incarnation,
a write or a warm copy of the old one is not taken for it, and the old token opens nothing,
on SQLite and Redis and on a worker that still holds the old copy at the same step count."""

from __future__ import annotations

from typing import Any

import anyio
import httpx2
from starlette.responses import PlainTextResponse
from starlette.types import Receive, Scope, Send

from mcp_sim.episodes.records import NewRecord
from mcp_sim.episodes.store import Revision
from mcp_sim.episodes.store_opening import open_store
from mcp_sim.errors import EpisodeStoreError
from mcp_sim.server.guards import AccessGuard
from mcp_sim.spec.world import World
from tests.episodes.test_durable import CALLS, lines, run_calls, worker

RECORD = NewRecord("{}", "{}", "{}")


async def test_a_store_tells_incarnations_apart(store_url: str) -> None:
    store = open_store(store_url, idle_seconds=None)
    assert store is not None
    try:
        await store.create("e", "t1", "inc-1", RECORD)
        assert await store.claim("e", "w", 5.0) is not None
        assert await store.append("e", "w", Revision("inc-1", 0), "step", "{}") == 1
        await store.delete("e")
        await store.create("e", "t2", "inc-2", RECORD)
        claim = await store.claim("e", "w", 5.0)
        assert claim is not None and (claim.incarnation, claim.rev) == ("inc-2", 0)
        # A writer that read the old incarnation at the same revision is fenced off.
        assert await store.append("e", "w", Revision("inc-1", 0), "step", "{}") is None
        assert await store.restart("e", "w", Revision("inc-1", 0), RECORD) is None
        assert await store.revision("e") == Revision("inc-2", 0)
        assert await store.holder("t1") is None and not await store.opens("e", "t1")
        assert await store.holder("t2") == "e" and await store.opens("e", "t2")
        assert not await store.opens("other", "t2") and not await store.opens("e", "")
    finally:
        await store.close()


async def test_a_warm_copy_of_the_old_incarnation_is_not_served(
    shop: World, store_url: str
) -> None:
    with anyio.fail_after(60):
        async with worker(shop, store_url) as (one, _), worker(shop, store_url) as (two, _):
            old = await one.create(shop.world, "rollout-7", seed=1)
            await run_calls(two, "rollout-7", CALLS[:2])
            await one.delete("rollout-7")
            new = await one.create(shop.world, "rollout-7", seed=2)
            await run_calls(one, "rollout-7", CALLS[2:4])
            # Worker two still holds the old copy, at the same revision as the new episode.
            assert two.entry("rollout-7").token == old.token
            assert await two.token_holder(old.token) is None
            assert not await two.token_opens(old.token, "rollout-7")
            assert await two.token_opens(new.token, "rollout-7")
            await two.find("rollout-7")
            assert two.entry("rollout-7").incarnation == new.incarnation != old.incarnation
            assert lines(two, "rollout-7") == lines(one, "rollout-7")
            await run_calls(two, "rollout-7", CALLS[4:5])
            await one.find("rollout-7")
            assert [r.tool for r in one.journal("rollout-7")] == [t for t, _ in CALLS[2:5]]


async def test_a_store_that_cannot_answer_for_a_token_gets_503() -> None:
    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        await PlainTextResponse("in")(scope, receive, send)

    async def unreachable(*_: str) -> Any:
        """The store as a dead Redis leaves it: every lookup fails."""
        raise EpisodeStoreError("the episode store redis://x failed: connection refused")

    guard = AccessGuard(app, "operator", unreachable, token_opens=unreachable)
    transport = httpx2.ASGITransport(app=guard)
    async with httpx2.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http:
        got = await http.get("/episodes/e/journal", headers={"Authorization": "Bearer t"})
        operator = await http.get("/episodes", headers={"Authorization": "Bearer operator"})
    assert (got.status_code, got.json()["error"]) == (503, "episode_store")
    assert operator.text == "in"
