"""Durable episodes: an episode written through to SQLite or Redis goes on in another process
(here: another hub on the same store) exactly as it would have gone on in the first, one
worker at a time runs its calls, and creation, reset, fork and delete reach every worker."""

from __future__ import annotations

import hashlib
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest

from mcp_sim.episodes.durable import DurableEpisodes
from mcp_sim.episodes.hub import EpisodeHub
from mcp_sim.episodes.store import EpisodeStore, Revision
from mcp_sim.episodes.store_opening import open_store
from mcp_sim.errors import EpisodeBusy, UnknownSession
from mcp_sim.models.base import Completion, CompletionRequest, ProgressCallback
from mcp_sim.settings import Settings
from mcp_sim.simulator.core import Simulator
from mcp_sim.spec.world import World
from tests.scripted_model import ScriptedModel


class DigestModel:
    """Answers every request with a function of what it was sent: the same prompt and seed
    give the same answer in any process, and a prompt that differs in one byte (a history
    shown differently, a clock, an id, a seed) gives another. Write calls get a patch that
    records the digest, so the state carries the history too."""

    def __init__(self) -> None:
        self.requests: list[CompletionRequest] = []

    async def complete(
        self, request: CompletionRequest, progress: ProgressCallback | None = None
    ) -> Completion:
        self.requests.append(request)
        text = json.dumps([request.messages, request.sampling.seed], sort_keys=True)
        digest = hashlib.sha256(text.encode()).hexdigest()[:12]
        stock = int(digest, 16) % 9
        patch = [{"op": "replace", "path": "/products/1/stock", "value": stock}]
        content = ScriptedModel.answer({"digest": digest, "stock": stock}, patch)
        return Completion(content=content, model="digest", prompt_tokens=10, completion_tokens=5)

    async def aclose(self) -> None:
        pass


CALLS: list[tuple[str, dict[str, Any]]] = [
    ("list_orders", {}),
    ("create_order", {"customer": "ola@example.no", "sku": "p-tent2", "quantity": 1}),
    ("get_order", {"order_id": "ord_1001"}),
    ("update_order", {"order_id": "ord_1001", "status": "shipped"}),
    ("list_orders", {}),
    ("create_order", {"customer": "kari@example.no", "sku": "p-bag10", "quantity": 2}),
    ("get_order", {"order_id": "nope"}),
    ("list_orders", {}),
]


@asynccontextmanager
async def worker(
    shop: World, url: str | None, lease: float = 5.0
) -> AsyncIterator[tuple[EpisodeHub, DigestModel]]:
    """One worker's hub over the store at ``url`` (``None``: memory only)."""
    model = DigestModel()
    store: EpisodeStore | None = open_store(url, idle_seconds=None) if url else None
    durable = DurableEpisodes(store, lease_seconds=lease) if store else None
    # One --seed for every worker, as a deployment gives them: the perturbations' seeds
    # derive from it.
    simulator = Simulator(
        shop,
        model,
        settings=Settings.of(seed=11),
        write_through=durable.write_through(shop.world) if durable else None,
    )
    hub = EpisodeHub({shop.world: simulator}, durable=durable)
    try:
        yield hub, model
    finally:
        if store is not None:
            await store.close()


async def run_calls(
    hub: EpisodeHub, episode_id: str, calls: list[tuple[str, dict[str, Any]]]
) -> None:
    simulator = next(iter(hub.simulators.values()))
    for tool, arguments in calls:
        await hub.find(episode_id, current=False)
        perturb = "stale,paginated" if tool == "list_orders" else None
        await simulator.call(episode_id, tool, arguments, perturb=perturb)


def lines(hub: EpisodeHub, episode_id: str) -> list[str]:
    return [record.to_json() for record in hub.journal(episode_id)]


async def test_an_episode_goes_on_in_another_worker_exactly_as_in_the_first(
    shop: World, store_url: str
) -> None:
    with anyio.fail_after(60):
        async with worker(shop, None) as (alone, alone_model):
            await alone.create(shop.world, "e1", seed=7)
            await run_calls(alone, "e1", CALLS)
            expected = lines(alone, "e1"), await alone.state("e1"), alone.summary(alone.entry("e1"))
        async with worker(shop, store_url) as (first, _):
            await first.create(shop.world, "e1", seed=7)
            await run_calls(first, "e1", CALLS[:5])
        async with worker(shop, store_url) as (second, second_model):
            await run_calls(second, "e1", CALLS[5:])
            got = lines(second, "e1"), await second.state("e1"), second.summary(second.entry("e1"))
    assert got == expected
    # The prompts of the calls made after the move are byte for byte those of the run that
    # never moved: history, clock, ids, seeds and perturbations all carried over.
    tail = len(second_model.requests)
    assert tail >= 3
    assert [r.messages for r in second_model.requests] == [
        r.messages for r in alone_model.requests[-tail:]
    ]
    assert [r.sampling.seed for r in second_model.requests] == [
        r.sampling.seed for r in alone_model.requests[-tail:]
    ]


async def test_a_worker_with_a_warm_copy_catches_up_before_its_next_call(
    shop: World, store_url: str
) -> None:
    with anyio.fail_after(60):
        async with worker(shop, None) as (alone, _):
            await alone.create(shop.world, "e1", seed=3)
            await run_calls(alone, "e1", CALLS)
            expected = lines(alone, "e1")
        async with worker(shop, store_url) as (a, _), worker(shop, store_url) as (b, _):
            made = await a.create(shop.world, "e1", seed=3)
            assert await b.token_holder(made.token) == "e1"
            await run_calls(a, "e1", CALLS[:2])
            await run_calls(b, "e1", CALLS[2:4])  # b loads it; a's copy is now behind
            await run_calls(a, "e1", CALLS[4:6])  # a must catch up first
            await run_calls(b, "e1", CALLS[6:])
            assert lines(b, "e1") == expected
            assert (await a.state("e1")) == (await b.state("e1"))
            assert lines(a, "e1") == expected


async def test_one_writer_at_a_time_and_a_dead_workers_lease_runs_out(
    shop: World, store_url: str
) -> None:
    with anyio.fail_after(60):
        async with (
            worker(shop, store_url, lease=0.4) as (a, _),
            worker(shop, store_url, lease=0.4) as (b, _),
        ):
            await a.create(shop.world, "e1")
            assert a.durable is not None and b.durable is not None
            # A worker that took the lease and died (never releases it): the other waits for
            # the lease to run out, then goes on.
            claim = await a.durable.store.claim("e1", "dead-worker", 0.4)
            assert claim is not None and claim.rev == 0
            started = anyio.current_time()
            await run_calls(b, "e1", CALLS[:1])
            assert anyio.current_time() - started >= 0.3
            # A worker that holds the lease for longer than a call waits: a clear error.
            await a.durable.store.claim("e1", "busy-worker", 5.0)
            with pytest.raises(EpisodeBusy, match="busy on another worker"):
                await run_calls(b, "e1", CALLS[1:2])
            await a.durable.store.release("e1", "busy-worker")
            await run_calls(b, "e1", CALLS[1:2])
            assert [r.step for r in b.journal("e1")] == [1, 2]


async def test_reset_fork_and_delete_reach_every_worker(shop: World, store_url: str) -> None:
    with anyio.fail_after(60):
        async with worker(shop, store_url) as (a, _), worker(shop, store_url) as (b, _):
            made = await a.create(shop.world, "e1", seed=5, task="tent-for-ola")
            await run_calls(a, "e1", CALLS[:2])
            fork = await b.fork("e1", "e1-fork")
            assert fork.parent == "e1" and [r.step for r in b.journal("e1-fork")] == [1, 2]
            await run_calls(a, "e1-fork", CALLS[2:3])
            assert [r.step for r in (await b.find("e1-fork"), b.journal("e1-fork"))[1]] == [
                1,
                2,
                3,
            ]
            summary = await b.reset("e1")
            assert (summary["steps"], summary["version"], summary["seed"]) == (0, 0, 5)
            assert (await a.state("e1"))["version"] == 0 and a.journal("e1") == []
            assert await a.token_holder(made.token) == "e1"
            await b.delete("e1")
            with pytest.raises(UnknownSession):
                await a.find("e1")
            assert await a.token_holder(made.token) is None


async def test_a_call_writes_its_step_not_the_state(shop: World, tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'episodes.db'}"
    with anyio.fail_after(60):
        async with worker(shop, url) as (hub, _):
            await hub.create(shop.world, "e1")
            await run_calls(hub, "e1", CALLS[:2])
            assert hub.durable is not None
            stored = await hub.durable.store.load("e1")
    assert stored is not None and stored.rev == 2
    assert json.loads(stored.base)["state"] is None  # the world's own start is not copied
    state_text = json.dumps(shop.state["products"])
    assert all(state_text not in step for step in stored.steps)
    # Two Mersenne Twister states (the session's, the perturbations') are most of the head.
    assert len(stored.head) < 8000


async def test_an_episode_idle_past_the_timeout_is_gone_from_the_store(
    shop: World, store_url: str
) -> None:
    store = open_store(store_url, idle_seconds=1.5)
    assert store is not None
    durable = DurableEpisodes(store)
    simulator = Simulator(shop, DigestModel(), write_through=durable.write_through(shop.world))
    hub = EpisodeHub({shop.world: simulator}, durable=durable)
    try:
        with anyio.fail_after(30):
            idle = await hub.create(shop.world, "idle")
            busy = await hub.create(shop.world, "busy")
            for _ in range(4):
                await anyio.sleep(0.5)
                await run_calls(hub, "busy", CALLS[:1])
            await anyio.sleep(0.5)
            assert await store.revision("idle") is None
            assert await store.holder(idle.token) is None
            assert await store.revision("busy") == Revision(busy.incarnation, 4)
            assert await store.holder(busy.token) == "busy"
    finally:
        await store.close()


async def test_two_workers_calling_one_episode_at_once_take_turns(
    shop: World, store_url: str
) -> None:
    with anyio.fail_after(60):
        async with worker(shop, store_url) as (a, _), worker(shop, store_url) as (b, _):
            await a.create(shop.world, "e1", seed=2)
            await b.find("e1")
            async with anyio.create_task_group() as tg:
                tg.start_soon(run_calls, a, "e1", CALLS)
                tg.start_soon(run_calls, b, "e1", CALLS)
            await a.find("e1")
            await b.find("e1")
            steps = [r.step for r in a.journal("e1")]
            assert steps == list(range(1, 2 * len(CALLS) + 1))
            assert [r.to_json() for r in b.journal("e1")] == lines(a, "e1")
            assert (await a.state("e1")) == (await b.state("e1"))
