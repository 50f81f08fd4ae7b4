"""Sessions: a private copy of the world's state each, forgotten after an idle timeout."""

from __future__ import annotations

from mcp_sim.session import Session, SessionStore
from mcp_sim.simulator import Simulator
from mcp_sim.spec import World


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_each_session_starts_with_its_own_copy_of_the_state(bookstore: World) -> None:
    store = SessionStore(bookstore)
    first, second = store.get("a"), store.get("b")
    first.state["books"][0]["stock"] = 0
    first.state["orders"].append({"id": "ord_1"})
    assert bookstore.state["books"][0]["stock"] == 3
    assert bookstore.state["orders"] == []
    assert second.state == bookstore.state
    assert Session.start("c", bookstore).state == bookstore.state


def test_same_id_returns_the_same_session(bookstore: World) -> None:
    store = SessionStore(bookstore)
    assert store.get("a") is store.get("a")
    assert store.get("a") is not store.get("b")
    assert len(store) == 2 and "a" in store and "c" not in store


def test_idle_session_expires_after_the_timeout(bookstore: World) -> None:
    clock = FakeClock()
    store = SessionStore(bookstore, idle_timeout=10, clock=clock)
    store.get("a").state["orders"].append("ord_1")
    clock.now += 9
    assert store.expire_idle() == []
    clock.now += 2
    assert store.expire_idle() == ["a"]
    assert "a" not in store
    assert store.get("a").state["orders"] == []


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
