"""Streams' events kept in the episode store (SQLite and Redis): each session replays only its
own streams though the SDK names every session's streams alike, a replay from another worker
finds any stream by its event id, and the store's limits hold."""

from __future__ import annotations

from typing import Any

import mcp.types as types

from mcp_sim.episodes.store import EventLimits
from mcp_sim.episodes.store_opening import open_store
from mcp_sim.server.shared_events import SharedEvents


def answer(request_id: int, text: str) -> types.JSONRPCMessage:
    return types.JSONRPCResponse(jsonrpc="2.0", id=request_id, result={"text": text})


async def test_sessions_replay_their_own_streams_and_any_worker_finds_one(store_url: str) -> None:
    store = open_store(store_url, idle_seconds=None)
    assert store is not None
    shared = SharedEvents(store, EventLimits(per_stream=3))
    one, two = shared.scoped(), shared.scoped()
    # Both sessions' first call is request 2: the SDK names both streams "2".
    primed_one = await one.store_event("2", None)
    primed_two = await two.store_event("2", None)
    answered = await one.store_event("2", answer(2, "one's answer"))
    await two.store_event("2", answer(2, "two's answer"))
    sent: list[Any] = []

    async def send(event: Any) -> None:
        sent.append(event.message.result["text"])

    assert await one.replay_events_after(primed_one, send) == "2"
    assert sent == ["one's answer"]
    assert await one.replay_events_after(primed_two, send) is None  # not one's stream
    assert sent == ["one's answer"]
    elsewhere = await SharedEvents(store).after(primed_two)  # another worker, by event id
    assert elsewhere is not None and len(elsewhere.events) == 1
    assert '"two\'s answer"' in str(elsewhere.events[0][1])
    # A priming event is not written: its id names its stream, replayed whole.
    kept = await store.stream_events(f"{one.scope}/2")
    assert primed_one.startswith("p.") and [i for i, _ in kept.events] == [answered]
    for n in range(3):  # the stream keeps its last three events only
        await one.store_event("2", answer(2, f"later {n}"))
    assert await shared.after(answered) is None
    after_priming = await shared.after(primed_one)
    assert after_priming is not None and len(after_priming.events) == 3
    assert await shared.after("no-such-event") is None
    assert await shared.after("p.not-base64!.x") is None
    await store.close()
