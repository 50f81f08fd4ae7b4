"""``serve --openenv``: OpenEnv's WebSocket and HTTP protocol over the world's tools, in
process (the ``websockets`` client speaks the wire format by hand here; openenv-core's own
client drives a real server in tests/e2e/test_harness_examples.py)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import httpx2
import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import InvalidStatus

from mcp_sim.episodes.hub import EpisodeHub
from mcp_sim.episodes.limits import EpisodeLimits
from mcp_sim.simulator.core import Simulator
from mcp_sim.spec.loading import parse_world
from mcp_sim.spec.world import World
from tests.scripted_model import OutageModel, ScriptedModel
from tests.server.test_episode_routes import book_order, serving

PLACE = {"book_id": "b1", "quantity": 2, "email": "ana@example.pt", "country": "Portugal"}


def books(bookstore: World) -> EpisodeHub:
    model = ScriptedModel(*[book_order() for _ in range(4)])
    return EpisodeHub({bookstore.world: Simulator(bookstore, model)})


@asynccontextmanager
async def socket(base: str, **headers: str) -> AsyncIterator[ClientConnection]:
    async with connect(base.replace("http://", "ws://") + "/ws", additional_headers=headers) as ws:
        yield ws


async def ask(ws: ClientConnection, kind: str, data: Any = None) -> dict[str, Any]:
    message: dict[str, Any] = {"type": kind} if data is None else {"type": kind, "data": data}
    await ws.send(json.dumps(message))
    reply: dict[str, Any] = json.loads(await ws.recv())
    return reply


async def test_a_socket_resets_steps_and_is_rewarded_when_the_world_says_done(
    bookstore: World,
) -> None:
    with anyio.fail_after(60):
        async with serving(books(bookstore), openenv=True) as base, socket(base) as ws:
            reset = await ask(ws, "reset", {"seed": 4, "task": "gift-order", "extra": 1})
            assert reset["type"] == "observation" and reset["data"]["done"] is False
            meta = reset["data"]["observation"]["metadata"]
            assert (meta["task"], meta["seed"], meta["world"]) == (
                "gift-order",
                4,
                "paperlane-books",
            )
            assert meta["task_description"].startswith("Order two copies")

            listed = (await ask(ws, "step", {"type": "list_tools"}))["data"]
            assert [t["name"] for t in listed["observation"]["tools"]] == [
                t.name for t in bookstore.tools
            ]
            found = await ask(
                ws, "step", {"type": "call_tool", "tool_name": "search_books", "arguments": {}}
            )
            result = found["data"]["observation"]["result"]
            assert result["is_error"] and found["data"]["reward"] is None
            assert result["meta"] == {}  # where the answer came from is the operator's
            glass = {"tool_name": "search_books", "arguments": {"query": "glass"}}
            found = await ask(ws, "step", {"type": "call_tool", **glass})
            assert found["data"]["observation"]["result"]["data"]["results"]
            placed = await ask(
                ws, "step", {"type": "call_tool", "tool_name": "place_order", "arguments": PLACE}
            )
            data = placed["data"]
            assert data["done"] is True and data["reward"] == 1.0
            verdict = data["observation"]["metadata"]["verdict"]
            assert verdict["task"] == "gift-order" and "checks" not in verdict
            assert data["observation"]["metadata"]["valid"] is True
            assert "ord_00042" in data["observation"]["result"]["data"]

            state = (await ask(ws, "state"))["data"]
            assert state["step_count"] == 3 and state["done"] is True and state["valid"] is True
            assert "world_state" not in state and state["version"] == 1
            rpc = await ask(ws, "mcp", {"jsonrpc": "2.0", "id": 7, "method": "tools/list"})
            assert rpc["data"]["id"] == 7 and len(rpc["data"]["result"]["tools"]) == 4


async def test_an_episode_the_world_model_failed_ends_without_a_reward(bookstore: World) -> None:
    # The first order finds the world model down; the second is answered and ends the episode.
    hub = EpisodeHub({bookstore.world: Simulator(bookstore, OutageModel(book_order(), down={1}))})
    place = {"type": "call_tool", "tool_name": "place_order", "arguments": PLACE}
    with anyio.fail_after(60):
        async with serving(hub, openenv=True) as base, socket(base) as ws:
            await ask(ws, "reset", {"task": "gift-order"})
            failed = (await ask(ws, "step", place))["data"]
            assert failed["observation"]["result"]["is_error"]
            assert failed["observation"]["result"]["meta"] == {}
            assert failed["done"] is False
            assert (await ask(ws, "state"))["data"]["valid"] is False
            ended = (await ask(ws, "step", place))["data"]
            assert ended["done"] is True and ended["reward"] is None
            meta = ended["observation"]["metadata"]
            assert meta["valid"] is False
            assert meta["verdict"]["simulation"]["model_errors"] == 1


async def test_two_sockets_get_separate_episodes_that_end_with_them(bookstore: World) -> None:
    hub = books(bookstore)
    with anyio.fail_after(60):
        async with serving(hub, openenv=True) as base:
            async with socket(base) as one, socket(base) as two:
                first = await ask(one, "reset", {"episode_id": "one"})
                second = await ask(two, "reset", {})
                ids = [
                    first["data"]["observation"]["metadata"]["episode_id"],
                    second["data"]["observation"]["metadata"]["episode_id"],
                ]
                assert ids[0] == "one" and ids[1] != "one" and len(hub) == 2
                await ask(
                    one,
                    "step",
                    {"type": "call_tool", "tool_name": "place_order"} | {"arguments": PLACE},
                )
                assert (await ask(one, "state"))["data"]["step_count"] == 1
                assert (await ask(two, "state"))["data"]["step_count"] == 0
                again = await ask(one, "reset", {})
                assert again["data"]["observation"]["metadata"]["episode_id"] != "one"
                await one.send(json.dumps({"type": "close"}))
            with anyio.fail_after(5):
                while len(hub):
                    await anyio.sleep(0.02)


async def test_bad_messages_get_openenv_errors(bookstore: World) -> None:
    with anyio.fail_after(60):
        async with serving(books(bookstore), openenv=True) as base, socket(base) as ws:
            await ws.send("{not json")
            assert json.loads(await ws.recv())["data"]["code"] == "INVALID_JSON"
            assert (await ask(ws, "dance"))["data"]["code"] == "UNKNOWN_TYPE"
            bad = await ask(ws, "step", {"type": "call_tool"})
            assert bad["data"]["code"] == "VALIDATION_ERROR"
            assert (await ask(ws, "reset", {"world": "nowhere"}))["data"]["code"] == (
                "EXECUTION_ERROR"
            )
            unknown = await ask(
                ws, "step", {"type": "call_tool", "tool_name": "teleport", "arguments": {}}
            )
            assert unknown["data"]["observation"]["error"]["error_type"] == "tool_not_found"
            rpc = await ask(ws, "mcp", {"jsonrpc": "2.0", "id": 1, "method": "resources/list"})
            assert rpc["data"]["error"]["code"] == -32601


async def test_http_endpoints_are_stateless_and_describe_the_environment(
    bookstore: World,
) -> None:
    hub = books(bookstore)
    with anyio.fail_after(60):
        async with serving(hub, openenv=True) as base, httpx2.AsyncClient(base_url=base) as http:
            assert (await http.get("/health")).json() == {"status": "healthy"}
            assert (await http.get("/metadata")).json()["name"] == "paperlane-books"
            schema = (await http.get("/schema")).json()
            assert set(schema) == {"action", "observation", "state"}
            reset = (await http.post("/reset", json={"seed": 1})).json()
            assert reset["done"] is False and reset["observation"]["metadata"]["seed"] == 1
            glass = {"type": "call_tool", "tool_name": "search_books"}
            step = await http.post(
                "/step", json={"action": glass | {"arguments": {"query": "glass"}}}
            )
            assert step.json()["observation"]["result"]["is_error"] is False
            assert (await http.post("/step", json={"action": {"type": "x"}})).status_code == 422
            assert (await http.get("/state")).json()["episode_id"] is None
            assert len(hub) == 0


async def test_openenv_routes_follow_the_operator_token_and_the_host_check(
    bookstore: World,
) -> None:
    with anyio.fail_after(60):
        async with serving(books(bookstore), openenv=True, auth_token="op") as base:
            with pytest.raises(InvalidStatus):
                async with socket(base):
                    pass
            with pytest.raises(InvalidStatus):
                async with socket(base, Origin="http://evil.example"):
                    pass
            async with socket(base, Authorization="Bearer op") as ws:
                assert (await ask(ws, "reset", {}))["type"] == "observation"
            async with httpx2.AsyncClient(base_url=base) as http:
                assert (await http.get("/health")).status_code == 401


async def test_without_openenv_there_is_no_socket(bookstore: World) -> None:
    with anyio.fail_after(60):
        async with serving(books(bookstore)) as base:
            with pytest.raises(InvalidStatus):
                async with socket(base):
                    pass


FIVE_STEPS = """
world: five-steps
title: Five steps
tools:
  - {name: a, description: Step a., input_schema: {type: object}}
  - {name: b, description: Step b., input_schema: {type: object}}
  - {name: c, description: Step c., input_schema: {type: object}}
  - {name: d, description: Step d., input_schema: {type: object}}
  - {name: e, description: Step e., input_schema: {type: object}}
  - {name: z, description: Never called., input_schema: {type: object}}
fixtures:
  - {when: {tool: a}, result: a done}
  - {when: {tool: b}, result: b done}
  - {when: {tool: c}, result: c done}
  - {when: {tool: d}, result: d done}
  - {when: {tool: e}, result: e done}
episode: {max_steps: 5, reward: every_step}
verify:
  five:
    description: Call a, b, c, d and e.
    checks:
      - {name: called a, called: {tool: a}}
      - {name: called b, weight: 2, called: {tool: b}}
      - {name: called c, weight: 3, called: {tool: c}}
      - {name: called d, called: {tool: d}}
      - {name: called e, weight: 0.5, called: {tool: e}}
      - {name: called z, weight: 4.5, called: {tool: z}}
"""
"""A world whose five steps each pass one more check (every answer a fixture), rewarded on
every step: verdicts 1/12, 3/12, 6/12, 7/12 and 7.5/12."""


async def test_every_step_rewards_are_increments_and_a_step_after_done_is_refused() -> None:
    world = parse_world(FIVE_STEPS)
    hub = EpisodeHub({world.world: Simulator(world, None)})
    with anyio.fail_after(60):
        async with serving(hub, openenv=True) as base, socket(base) as ws:
            await ask(ws, "reset", {"task": "five"})
            steps = [
                (await ask(ws, "step", {"type": "call_tool", "tool_name": name}))["data"]
                for name in "abcde"
            ]
            after = await ask(ws, "step", {"type": "call_tool", "tool_name": "a"})
            rpc_call = {"method": "tools/call", "params": {"name": "a"}}
            rpc = await ask(ws, "mcp", {"jsonrpc": "2.0", "id": 3, **rpc_call})
            listed = await ask(ws, "step", {"type": "list_tools"})
            state = (await ask(ws, "state"))["data"]
    assert [s["done"] for s in steps] == [False, False, False, False, True]
    final = steps[-1]["observation"]["metadata"]["verdict"]["reward"]
    total = 0.0
    for step in steps:
        total += step["reward"]
    assert final == 0.625 and total == final
    assert [round(s["reward"], 6) for s in steps] == [0.083333, 0.166667, 0.25, 0.083333, 0.041667]
    assert after["type"] == "error" and after["data"]["code"] == "EXECUTION_ERROR"
    assert "is done: reset to start another" in after["data"]["message"]
    assert rpc["data"]["error"]["code"] == -32000
    assert listed["type"] == "observation" and state["step_count"] == 5


async def test_bad_frames_seeds_and_values_get_short_openenv_errors_on_a_living_socket(
    bookstore: World,
) -> None:
    with anyio.fail_after(60):
        async with serving(books(bookstore), openenv=True) as base, socket(base) as ws:
            await ws.send(b"\x00\x01 binary")
            assert json.loads(await ws.recv())["data"]["code"] == "INVALID_JSON"
            # Valid JSON, but past the 4,300 digits Python parses.
            await ws.send('{"type": "reset", "data": {"seed": ' + "7" * 5000 + "}}")
            assert json.loads(await ws.recv())["data"]["code"] == "INVALID_JSON"
            for seed in (-1, int("9" * 300), 2**63, True, 1.5):
                refused = await ask(ws, "reset", {"seed": seed})
                assert refused["data"]["code"] == "EXECUTION_ERROR", seed
                assert "seed must be a whole number" in refused["data"]["message"]
            huge = "w\n" * 100_000
            for data in ({"world": huge}, {"task": huge}):
                refused = await ask(ws, "reset", data)
                assert refused["type"] == "error" and len(json.dumps(refused)) < 400, data
                assert "\n" not in refused["data"]["message"]
            bad = await ask(ws, "step", {"type": "call_tool", "tool_name": 5, "x": huge})
            assert bad["data"]["code"] == "VALIDATION_ERROR" and len(json.dumps(bad)) < 1000
            unknown = await ask(ws, huge)
            assert unknown["data"]["code"] == "UNKNOWN_TYPE" and len(json.dumps(unknown)) < 400
            # The socket lived through all of it, and the largest seed is taken.
            reset = await ask(ws, "reset", {"seed": 2**63 - 1})
            assert reset["data"]["observation"]["metadata"]["seed"] == 2**63 - 1


async def test_two_authorization_headers_are_refused_even_if_one_is_right(
    bookstore: World,
) -> None:
    twice = [("Authorization", "Bearer op"), ("Authorization", "Bearer op")]
    with anyio.fail_after(60):
        async with serving(books(bookstore), openenv=True, auth_token="op") as base:
            with pytest.raises(InvalidStatus):
                async with connect(
                    base.replace("http://", "ws://") + "/ws", additional_headers=twice
                ):
                    pass
            async with httpx2.AsyncClient(base_url=base) as http:
                reply = await http.get("/episodes", headers=twice)
                once = await http.get("/episodes", headers=twice[:1])
                seed = await http.post("/episodes", json={"seed": -1}, headers=twice[:1])
    assert reply.status_code == 400 and reply.json()["error"] == "bad_request"
    assert once.status_code == 200
    assert seed.status_code == 400 and "'seed'" in seed.json()["message"]


async def test_sockets_past_the_limit_or_idle_too_long_are_told_and_closed(
    bookstore: World,
) -> None:
    with anyio.fail_after(60):
        async with serving(
            books(bookstore), openenv=True, max_websockets=2, websocket_idle_timeout=0.5
        ) as base:
            async with socket(base) as one, socket(base) as two:
                async with socket(base) as third:
                    refused = json.loads(await third.recv())
                    assert refused["data"]["code"] == "CAPACITY_REACHED"
                    await third.wait_closed()
                assert (await ask(one, "reset", {}))["type"] == "observation"
                idle = json.loads(await two.recv())  # two says nothing for 0.5 s
                assert idle["data"]["code"] == "SESSION_ERROR"
                await two.wait_closed()
            async with socket(base) as again:  # the closed ones freed their places
                assert (await ask(again, "reset", {}))["type"] == "observation"


async def test_the_episode_api_refuses_episodes_and_snapshots_past_the_limits(
    bookstore: World,
) -> None:
    hub = EpisodeHub(
        {bookstore.world: Simulator(bookstore, None)},
        limits=EpisodeLimits(max_episodes=1, max_snapshot_values=1000),
    )
    with anyio.fail_after(60):
        async with serving(hub) as base, httpx2.AsyncClient(base_url=base) as http:
            made = await http.post("/episodes", json={})
            taken = (await http.post(f"/episodes/{made.json()['id']}/snapshot")).json()
            taken["state"]["filler"] = [{}] * 2000
            big = await http.post("/episodes", json={"snapshot": taken})
            full = await http.post("/episodes", json={})
    assert big.status_code == 400 and "over the limit of 1000" in big.json()["message"]
    assert full.status_code == 429 and full.json()["error"] == "capacity"
