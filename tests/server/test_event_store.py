"""Resumable event streams: the bounded event store, and a call resumed over real HTTP after
its connection dropped."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx2
import mcp.types as types
import pytest

from mcp_sim.server.event_store import RETRY_MILLISECONDS, BoundedEventStore
from tests.conftest import BOOKSTORE
from tests.openai_double import OpenAIDouble, Reply
from tests.processes import serving_http


def message(n: int) -> types.JSONRPCMessage:
    return types.JSONRPCNotification(jsonrpc="2.0", method=f"notifications/n{n}")


async def replayed(store: BoundedEventStore, after: str) -> tuple[str | None, list[str]]:
    sent: list[str] = []

    async def send(event: Any) -> None:
        sent.append(event.message.method)

    return await store.replay_events_after(after, send), sent


async def test_replay_sends_the_events_after_the_given_one_of_its_stream_only() -> None:
    store = BoundedEventStore()
    priming = await store.store_event("a", None)
    first = await store.store_event("a", message(1))
    await store.store_event("b", message(9))
    await store.store_event("a", message(2))
    assert await replayed(store, priming) == ("a", ["notifications/n1", "notifications/n2"])
    assert await replayed(store, first) == ("a", ["notifications/n2"])
    assert await replayed(store, "not-an-id") == (None, [])


async def test_event_ids_are_distinct_and_unguessable() -> None:
    store = BoundedEventStore()
    ids = [await store.store_event("s", message(i)) for i in range(100)]
    assert len(set(ids)) == 100 and all(len(i) >= 24 for i in ids)


async def test_the_store_keeps_to_its_limits() -> None:
    now = [0.0]
    store = BoundedEventStore(max_streams=2, max_events=3, max_age=60, clock=lambda: now[0])
    oldest = await store.store_event("a", message(0))
    for i in range(1, 5):
        await store.store_event("a", message(i))
    assert store.held == 3  # the stream lost its two oldest events
    assert await replayed(store, oldest) == (None, [])
    b = await store.store_event("b", message(0))
    await store.store_event("c", message(0))  # a third stream: "a" goes
    assert store.held == 2
    now[0] += 61
    assert await replayed(store, b) == (None, [])
    assert store.held == 0
    with pytest.raises(ValueError, match="positive"):
        BoundedEventStore(max_events=0)


async def test_each_session_replays_its_own_streams_though_their_names_are_alike() -> None:
    """The SDK names a POST's stream by its request id, which every session reuses: without a
    view per session, one session's replay would send it another's answer."""
    store = BoundedEventStore()
    one, two = store.scoped(), store.scoped()
    primed = await one.store_event("2", None)
    await two.store_event("2", message(7))  # the other session's call 2
    await one.store_event("2", message(1))
    sent: list[str] = []

    async def send(event: Any) -> None:
        sent.append(event.message.method)

    assert await one.replay_events_after(primed, send) == "2"
    assert sent == ["notifications/n1"]
    assert await two.replay_events_after(primed, send) is None
    assert sent == ["notifications/n1"]


def sse_events(lines: list[str]) -> list[dict[str, str]]:
    events: list[dict[str, str]] = []
    current: dict[str, str] = {}
    for line in lines:
        if not line:
            if current:
                events.append(current)
            current = {}
            continue
        name, _, value = line.partition(":")
        current[name] = current.get(name, "") + value.removeprefix(" ")
    return events


def test_a_call_whose_connection_dropped_is_resumed_with_last_event_id(tmp_path: Path) -> None:
    """Real HTTP end to end: the client reads the priming event of a call that the model takes
    two seconds to answer, drops the connection, reconnects with ``Last-Event-ID`` and gets the
    answer. The model is the vLLM-format HTTP double (no GPU here)."""
    with OpenAIDouble() as model:
        model.script(
            Reply(content="<predicted_observation>b1 record</predicted_observation>", delay=2)
        )
        with (
            serving_http(
                BOOKSTORE, "--model-url", model.base_url, log=tmp_path / "serve.log"
            ) as url,
            httpx2.Client(timeout=20, trust_env=False) as http,
        ):
            headers = {"Accept": "application/json, text/event-stream"}
            opened = http.post(
                url,
                json={
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": "initialize",
                    "params": {
                        "protocolVersion": "2025-11-25",
                        "capabilities": {},
                        "clientInfo": {"name": "resume-test", "version": "0"},
                    },
                },
                headers=headers,
            )
            headers |= {
                "Mcp-Session-Id": opened.headers["mcp-session-id"],
                "MCP-Protocol-Version": "2025-11-25",
            }
            http.post(
                url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers
            )
            call = {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/call",
                "params": {"name": "get_book", "arguments": {"book_id": "b1"}},
            }
            lines: list[str] = []
            with http.stream("POST", url, json=call, headers=headers) as stream:
                for line in stream.iter_lines():
                    lines.append(line)
                    if line == "" and lines[:-1]:
                        break  # the priming event is in; drop the connection
            (priming,) = sse_events(lines)
            assert priming["data"] == "" and priming["retry"] == str(RETRY_MILLISECONDS)
            # The resumed stream stays open for what comes next: read until the answer.
            resumed: list[str] = []
            resume = headers | {"Accept": "text/event-stream", "Last-Event-ID": priming["id"]}
            with http.stream("GET", url, headers=resume) as stream:
                for line in stream.iter_lines():
                    resumed.append(line)
                    if line.startswith("data:") and '"id":2' in line:
                        break
    results = [json.loads(e["data"]) for e in sse_events([*resumed, ""]) if e.get("data")]
    answer = next(r for r in results if r.get("id") == 2)
    assert answer["result"]["content"][0]["text"] == "b1 record"
