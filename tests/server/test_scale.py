"""Many sessions at once: no call waits for another session's call, and idle sessions are cheap.

The model here holds every request until a given number are in flight at the same time, so a
test passes only if the server lets that many calls of different sessions run together; a
call queued behind another session's call would keep the gate shut until the time limit.
"""

from __future__ import annotations

import json
import tracemalloc
from typing import Any, cast

import anyio
import httpx2
import mcp.types as types
import uvicorn
from mcp import Client

from mcp_sim.models.base import Completion, CompletionRequest, ProgressCallback
from mcp_sim.server.mcp_front import SESSION_META_KEY, build_server, http_app
from mcp_sim.simulator.core import Simulator
from mcp_sim.spec.world import World
from tests.processes import free_port


class Gate:
    """Answers nothing until ``expected`` requests are waiting, then answers them all."""

    def __init__(self, expected: int) -> None:
        self.expected = expected
        self.waiting: set[str] = set()
        self.open = anyio.Event()

    async def complete(
        self, request: CompletionRequest, progress: ProgressCallback | None = None
    ) -> Completion:
        self.waiting.add(request.routing_key or "")
        if len(self.waiting) >= self.expected:
            self.open.set()
        await self.open.wait()
        return Completion(
            content=f"<predicted_observation>for {request.routing_key}</predicted_observation>"
        )

    async def aclose(self) -> None:
        pass


async def test_a_thousand_sessions_have_calls_in_flight_at_once(bookstore: World) -> None:
    gate = Gate(1000)
    simulator = Simulator(bookstore, gate)
    texts: dict[str, str] = {}

    async with Client(build_server(simulator)) as client:

        async def call(session: str) -> None:
            meta = cast(types.RequestParamsMeta, {SESSION_META_KEY: session})
            result = await client.call_tool("get_book", {"book_id": "b1"}, meta=meta)
            block = result.content[0]
            assert isinstance(block, types.TextContent)
            texts[session] = block.text

        with anyio.fail_after(60):
            async with anyio.create_task_group() as tg:
                for i in range(1000):
                    tg.start_soon(call, f"episode-{i}")
    assert len(texts) == 1000
    assert all(text == f"for {session}" for session, text in texts.items())
    report = simulator.metrics.report(simulator.sessions)
    assert report["sessions"]["live"] == 1000 and report["calls"]["by_source"] == {"model": 1000}


async def test_http_sessions_have_calls_in_flight_at_once(bookstore: World) -> None:
    sessions = 100
    gate = Gate(sessions)
    simulator = Simulator(bookstore, gate)
    app = http_app(build_server(simulator))
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    answers: list[dict[str, Any]] = []
    # A connection per request: a kept-alive connection can be closed by the server just as it
    # is reused, which httpx2 reports as an error (real MCP clients retry; this one need not).
    limits = httpx2.Limits(max_connections=sessions + 10, max_keepalive_connections=0)

    async with httpx2.AsyncClient(
        base_url=f"http://127.0.0.1:{port}", limits=limits, timeout=60
    ) as http:

        async def post(body: dict[str, Any], session: str | None) -> httpx2.Response:
            headers = {"Accept": "application/json, text/event-stream"}
            if session is not None:
                headers |= {"Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-11-25"}
            return await http.post("/mcp", json=body, headers=headers)

        async def episode(number: int) -> None:
            opened = await post(
                {
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": "initialize",
                    "params": {
                        "protocolVersion": "2025-11-25",
                        "capabilities": {},
                        "clientInfo": {"name": "scale-test", "version": "0"},
                    },
                },
                None,
            )
            session = opened.headers["mcp-session-id"]
            await post({"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
            call = {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/call",
                "params": {"name": "get_book", "arguments": {"book_id": "b1"}},
            }
            response = await post(call, session)
            data = [line[5:] for line in response.text.splitlines() if line.startswith("data:")]
            answers.append(json.loads(data[-1])["result"] | {"session": session})

        with anyio.fail_after(60):
            async with anyio.create_task_group() as tg:
                tg.start_soon(server.serve)
                while not server.started:
                    await anyio.sleep(0.02)
                async with anyio.create_task_group() as episodes:
                    for number in range(sessions):
                        episodes.start_soon(episode, number)
                server.should_exit = True
    assert len(answers) == sessions
    assert len({a["session"] for a in answers}) == sessions
    assert all(a["content"][0]["text"] == f"for {a['session']}" for a in answers)


async def test_an_idle_session_of_a_world_with_a_megabyte_of_state_costs_kilobytes(
    bookstore: World,
) -> None:
    records = [{"id": f"r{i:05d}", "text": "lorem ipsum dolor sit amet " * 7} for i in range(5000)]
    world = bookstore.model_copy(update={"state": {**bookstore.state, "records": records}})
    assert len(json.dumps(world.state)) > 1_000_000
    simulator = Simulator(world, None)
    simulator.sessions.get("warm-up")
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    for i in range(200):
        simulator.sessions.get(f"episode-{i}")
    per_session = (tracemalloc.get_traced_memory()[0] - before) / 200
    tracemalloc.stop()
    assert per_session < 50_000
