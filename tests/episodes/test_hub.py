"""The episode hub: episodes of several worlds, kept apart, forked, reset, scored, expired."""

from __future__ import annotations

from typing import Any

import pytest

from mcp_sim.episodes.hub import EpisodeHub
from mcp_sim.errors import SessionExists, UnknownSession, UnknownWorld, VerifyError
from mcp_sim.runtime.session import SessionStore
from mcp_sim.simulator.core import Simulator
from mcp_sim.spec.world import World
from tests.runtime.test_state import ORDER_2
from tests.scripted_model import ScriptedModel

CREATE = {"customer": "ola@example.no", "sku": "p-tent2", "quantity": 2}
ADD_ORDER: list[dict[str, Any]] = [
    {"op": "add", "path": "/orders/-", "value": ORDER_2},
    {"op": "replace", "path": "/products/0/stock", "value": 3},
]


def hub_of(shop: World, bookstore: World, *answers: str) -> EpisodeHub:
    return EpisodeHub(
        {
            shop.world: Simulator(shop, ScriptedModel(*answers)),
            bookstore.world: Simulator(bookstore, None),
        }
    )


async def test_episodes_are_named_by_world_and_get_random_ids_and_tokens(
    shop: World, bookstore: World
) -> None:
    hub = hub_of(shop, bookstore)
    with pytest.raises(UnknownWorld, match="name a world"):
        await hub.create()
    with pytest.raises(UnknownWorld, match="no world 'nowhere'"):
        await hub.create("nowhere")
    first = await hub.create(shop.world, seed=3)
    second = await hub.create(bookstore.world)
    assert len(first.id) == 32 and first.id != second.id
    assert len(first.token) >= 40 and first.token != second.token
    assert hub.opens(first.token, first.id) and not hub.opens(first.token, second.id)
    assert not hub.opens("", first.id) and not hub.opens(first.token, "unknown")
    assert [e["world"] for e in hub.listing()] == [shop.world, bookstore.world]
    assert hub.summary(first)["seed"] == 3
    assert hub.is_episode(shop.world, first.id) and not hub.is_episode(bookstore.world, first.id)


async def test_given_ids_are_bounded_and_unique(shop: World, bookstore: World) -> None:
    hub = hub_of(shop, bookstore)
    await hub.create(shop.world, "run-1")
    with pytest.raises(SessionExists):
        await hub.create(bookstore.world, "run-1")
    hub.simulators[shop.world].sessions.get("shared-session")
    with pytest.raises(SessionExists):
        await hub.create(shop.world, "shared-session")
    for bad in ("", "x" * 129, "../etc", "a/b", "-lead"):
        with pytest.raises(ValueError, match="an episode id is"):
            await hub.create(shop.world, bad)
    with pytest.raises(VerifyError, match="no task 'nope'"):
        await hub.create(shop.world, task="nope")


async def test_episodes_never_share_state_and_forks_carry_their_past(
    shop: World, bookstore: World
) -> None:
    a = ScriptedModel.answer
    hub = hub_of(shop, bookstore, a(ORDER_2, ADD_ORDER), a("listed"), a("listed again"))
    one = await hub.create(shop.world, task="tent-for-ola")
    other = await hub.create(shop.world)
    simulator = hub.simulators[shop.world]
    await simulator.call(one.id, "create_order", CREATE)
    assert len((await hub.state(one.id))["state"]["orders"]) == 2
    assert (await hub.state(other.id))["state"] == shop.state

    fork = await hub.fork(one.id, seed=9)
    assert (fork.parent, fork.task, fork.world) == (one.id, "tent-for-ola", shop.world)
    assert (await hub.state(fork.id))["state"] == (await hub.state(one.id))["state"]
    await simulator.call(fork.id, "list_orders", {})
    assert [r.tool for r in hub.journal(fork.id)] == ["create_order", "list_orders"]
    assert [r.tool for r in hub.journal(one.id)] == ["create_order"]
    verdict = await hub.verify(fork.id)
    assert verdict.task == "tent-for-ola" and verdict.reward == 1.0
    untouched = await hub.verify(other.id, "tent-for-ola")
    assert untouched.reward < 1.0

    await hub.reset(fork.id)
    assert hub.journal(fork.id) == [] and hub.entry(fork.id).parent is None
    assert (await hub.state(fork.id))["version"] == 0
    await hub.delete(fork.id)
    with pytest.raises(UnknownSession):
        hub.entry(fork.id)
    assert not hub.is_episode(shop.world, fork.id)


async def test_idle_episodes_expire_with_their_sessions(shop: World) -> None:
    now = [0.0]
    simulator = Simulator(shop, None, sessions=SessionStore(shop, 60.0, clock=lambda: now[0]))
    hub = EpisodeHub({shop.world: simulator})
    episode = await hub.create()
    now[0] = 61.0
    simulator.sessions.expire_idle()
    assert len(hub) == 0 and hub.listing() == []
    with pytest.raises(UnknownSession):
        hub.entry(episode.id)
