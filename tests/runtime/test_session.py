"""Sessions: the world's state shared copy-on-write, forgotten after an idle timeout."""

from __future__ import annotations

import copy
import json
from typing import Any

from mcp_sim.episodes.hub import EpisodeHub
from mcp_sim.runtime.session import Session, SessionStore
from mcp_sim.simulator.core import Simulator
from mcp_sim.spec.world import World


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


CANCEL_ORDER_1 = [{"op": "replace", "path": "/orders/0/status", "value": "cancelled"}]


def test_new_sessions_share_the_worlds_starting_state_instead_of_copying_it(
    bookstore: World,
) -> None:
    store = SessionStore(bookstore)
    assert store.get("a").state is bookstore.state
    assert store.get("b").state is bookstore.state
    assert Session.start("c", bookstore).state is bookstore.state


async def test_a_committed_change_gives_only_that_session_a_new_state(
    shop: World, script: Any
) -> None:
    pristine = copy.deepcopy(shop.state)
    simulator = Simulator(shop, script(script.answer("cancelled", CANCEL_ORDER_1)))
    untouched = simulator.sessions.get("b")
    result = await simulator.call("a", "update_order", {"order_id": "ord_00001"})
    changed = simulator.sessions.get("a")
    assert result.patch_status == "committed"
    assert changed.state["orders"][0]["status"] == "cancelled"
    assert changed.state is not shop.state
    assert untouched.state is shop.state
    assert shop.state == pristine


async def test_forks_share_their_parents_state_until_they_change_it(
    shop: World, script: Any
) -> None:
    pristine = copy.deepcopy(shop.state)
    patch = [{"op": "replace", "path": "/orders/0/status", "value": "packed"}]
    answers = [script.answer("cancelled", CANCEL_ORDER_1), script.answer("packed", patch)]
    simulator = Simulator(shop, script(*answers))
    lifecycle = EpisodeHub({shop.world: simulator}).lifecycle
    await simulator.call("parent", "update_order", {"order_id": "ord_00001"})
    parent = simulator.sessions.get("parent")
    parent_state = copy.deepcopy(parent.state)
    await lifecycle.fork_session(shop.world, "parent", "fork")
    fork = simulator.sessions.get("fork")
    assert fork.state["orders"] is parent.state["orders"]
    await simulator.call("fork", "update_order", {"order_id": "ord_00001"})
    assert fork.state["orders"][0]["status"] == "packed"
    assert parent.state == parent_state
    await lifecycle.reset("fork", world=shop.world)
    assert fork.state is shop.state
    assert shop.state == pristine


def test_a_snapshot_keeps_the_state_it_was_taken_at_as_the_session_moves_on(
    shop: World,
) -> None:
    session = Session.start("a", shop)
    taken = json.loads(session.snapshot().model_dump_json())
    session.state = {**session.state, "orders": []}
    assert taken["state"]["orders"] == shop.state["orders"]


def test_same_id_returns_the_same_session(bookstore: World) -> None:
    store = SessionStore(bookstore)
    assert store.get("a") is store.get("a")
    assert store.get("a") is not store.get("b")
    assert len(store) == 2 and "a" in store and "c" not in store


def test_idle_session_expires_after_the_timeout(bookstore: World) -> None:
    clock = FakeClock()
    store = SessionStore(bookstore, idle_timeout=10, clock=clock)
    store.get("a").steps = 4
    clock.now += 9
    assert store.expire_idle() == []
    clock.now += 2
    assert store.expire_idle() == ["a"]
    assert "a" not in store
    assert store.get("a").steps == 0


def test_using_a_session_keeps_it_alive(bookstore: World) -> None:
    clock = FakeClock()
    store = SessionStore(bookstore, idle_timeout=10, clock=clock)
    store.get("a")
    for _ in range(3):
        clock.now += 8
        store.get("a")
    assert store.expire_idle() == []


async def test_a_call_keeps_its_session_alive_by_the_store_clock(bookstore: World) -> None:
    clock = FakeClock()
    store = SessionStore(bookstore, idle_timeout=10, clock=clock)
    simulator = Simulator(bookstore, None, sessions=store)
    clock.now += 8
    await simulator.call("a", "search_books", {"query": "glass"})
    clock.now += 8
    assert store.expire_idle() == []
    clock.now += 3
    assert store.expire_idle() == ["a"]


async def test_session_with_a_call_in_flight_is_not_expired(bookstore: World) -> None:
    clock = FakeClock()
    store = SessionStore(bookstore, idle_timeout=10, clock=clock)
    busy, idle = store.get("busy"), store.get("idle")
    async with busy.lock:
        clock.now += 60
        assert store.expire_idle() == ["idle"]
        assert store.get("busy") is busy
    assert idle is not store.get("idle")


def test_no_timeout_means_sessions_never_expire(bookstore: World) -> None:
    clock = FakeClock()
    store = SessionStore(bookstore, idle_timeout=None, clock=clock)
    store.get("a")
    clock.now += 10**9
    assert store.expire_idle() == []
    assert "a" in store


def test_expiry_is_reported_to_the_store_owner(bookstore: World) -> None:
    clock = FakeClock()
    expired: list[str] = []
    store = SessionStore(bookstore, idle_timeout=10, clock=clock, on_expire=expired.append)
    store.get("a")
    clock.now += 5
    store.get("b")
    clock.now += 6
    store.expire_idle()
    assert expired == ["a"]


def test_expiry_follows_last_use_not_creation_order(bookstore: World) -> None:
    clock = FakeClock()
    store = SessionStore(bookstore, idle_timeout=10, clock=clock)
    store.get("first")
    store.get("second")
    clock.now += 6
    store.get("first")
    clock.now += 6
    assert store.expire_idle() == ["second"]
    assert "first" in store


async def test_ten_thousand_sessions_expire_exactly_the_idle_ones(bookstore: World) -> None:
    clock = FakeClock()
    expired: list[str] = []
    store = SessionStore(bookstore, idle_timeout=10, clock=clock, on_expire=expired.append)
    ids = [f"episode-{i}" for i in range(10_000)]
    for sid in ids:
        store.get(sid)
    clock.now += 6
    kept = ids[1::2]
    for sid in kept:
        store.get(sid)
    busy = store.find(ids[0])  # the oldest session, idle but with a call in flight
    assert busy is not None
    async with busy.lock:
        clock.now += 6
        assert store.find(ids[2]) is None
    assert sorted(expired) == sorted(ids[2::2])
    assert len(store) == len(kept) + 1 and ids[0] in store
    assert store.started == 10_000 and store.expired == len(ids[2::2])


def test_every_expiry_listener_hears_of_an_expired_session(bookstore: World) -> None:
    clock = FakeClock()
    heard: list[str] = []
    store = SessionStore(bookstore, idle_timeout=10, clock=clock, on_expire=heard.append)
    store.on_expire(lambda sid: heard.append(f"second:{sid}"))
    store.get("a")
    clock.now += 11
    store.get("b")
    assert heard == ["a", "second:a"]
