"""What HTTP clients may do: every malformed message posted to an MCP endpoint is answered
with its id, and slow or oversized clients are cut off instead of holding a connection."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import anyio.abc
import httpx2
import pytest
from starlette.applications import Starlette
from starlette.routing import WebSocketRoute
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocket
from websockets.asyncio.client import connect

from mcp_sim.api.worlds import Worlds
from mcp_sim.episodes.hub import EpisodeHub
from mcp_sim.server.hosting import HostingOptions, hosting_app
from mcp_sim.server.http_front import STOP_GRACE_SECONDS, http_server, serve_http
from mcp_sim.server.http_timeouts import HttpLimits
from mcp_sim.simulator.core import Simulator
from mcp_sim.spec.world import World
from tests.processes import free_port

TOKEN = "operator-token"
QUICK = HttpLimits(header_timeout=0.5, body_timeout=0.5)
HEADERS = {
    "Accept": "application/json, text/event-stream",
    "Content-Type": "application/json",
    "MCP-Protocol-Version": "2025-11-25",
}


@asynccontextmanager
async def served(app: ASGIApp, limits: HttpLimits = QUICK) -> AsyncIterator[int]:
    """``app`` served as ``mcp-sim serve --http`` serves it, on a free loopback port."""
    port = free_port()
    server = http_server(app, "127.0.0.1", port, limits)
    async with anyio.create_task_group() as tg:
        tg.start_soon(server.serve)
        with anyio.fail_after(30):
            while not server.started:
                await anyio.sleep(0.02)
        try:
            yield port
        finally:
            server.should_exit = True


@pytest.fixture
def app(bookstore: World) -> ASGIApp:
    hub = EpisodeHub({bookstore.world: Simulator(bookstore, None)})
    return hosting_app(Worlds(hub), HostingOptions(auth_token=TOKEN))


async def until_closed(stream: anyio.abc.SocketStream) -> bytes:
    """Everything the server sends until it closes the connection."""
    received = b""
    with anyio.fail_after(30):  # a guard against a hang: the server closes it long before
        while True:
            try:
                received += await stream.receive()
            except (anyio.EndOfStream, anyio.BrokenResourceError, ConnectionError):
                return received


def post(port: int, body: bytes) -> httpx2.Response:
    headers = {**HEADERS, "Authorization": f"Bearer {TOKEN}"}
    return httpx2.post(f"http://127.0.0.1:{port}/mcp", content=body, headers=headers, timeout=30)


MALFORMED: dict[str, tuple[Any, Any, int]] = {
    "params a list": ({"jsonrpc": "2.0", "id": 4, "method": "ping", "params": [1]}, 4, -32602),
    "no method": ({"jsonrpc": "2.0", "id": 6}, 6, -32600),
    "jsonrpc 1.0": ({"jsonrpc": "1.0", "id": 7, "method": "ping"}, 7, -32600),
    "object id": ({"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"}, None, -32600),
    "null id": ({"jsonrpc": "2.0", "id": None, "method": "ping"}, None, -32600),
}


@pytest.mark.parametrize("case", MALFORMED, ids=list(MALFORMED))
async def test_a_malformed_message_is_answered_with_its_id(app: ASGIApp, case: str) -> None:
    message, request_id, code = MALFORMED[case]
    async with served(app) as port:
        answer = await anyio.to_thread.run_sync(post, port, json.dumps(message).encode())
    assert answer.status_code == 400
    assert (answer.json()["id"], answer.json()["error"]["code"]) == (request_id, code)


async def test_deep_and_unparsable_messages_keep_their_ids(app: ASGIApp) -> None:
    deep = "[" * 300 + "]" * 300
    bodies = {
        f'{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"a":{deep}}}}}': (1, -32602),
        f'{{"jsonrpc":"2.0","id":3,"method":"ping","params":{{"n":{"9" * 5000}}}}}': (3, -32700),
        '{"jsonrpc":"2.0","id":8,"method":"ping"': (None, -32700),
    }
    async with served(app) as port:
        for body, expected in bodies.items():
            answer = await anyio.to_thread.run_sync(post, port, body.encode())
            assert (answer.json()["id"], answer.json()["error"]["code"]) == expected


async def test_a_batch_is_answered_with_an_array_of_errors(app: ASGIApp) -> None:
    batch = [{"jsonrpc": "2.0", "id": i, "method": "ping"} for i in (1, 2)]
    async with served(app) as port:
        answer = await anyio.to_thread.run_sync(post, port, json.dumps(batch).encode())
    assert answer.status_code == 400
    assert [(e["id"], e["error"]["code"]) for e in answer.json()] == [(1, -32600), (2, -32600)]


async def test_a_notification_that_cannot_be_taken_is_refused_without_an_id(app: ASGIApp) -> None:
    note = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": "x"}
    async with served(app) as port:
        answer = await anyio.to_thread.run_sync(post, port, json.dumps(note).encode())
    assert answer.status_code == 400 and answer.json()["id"] is None


@pytest.mark.parametrize(
    "opening",
    [b"", b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "],
    ids=["nothing sent", "headers unfinished"],
)
async def test_a_client_slow_with_its_headers_gets_408_and_is_closed(
    app: ASGIApp, opening: bytes
) -> None:
    async with served(app) as port:
        stream = await anyio.connect_tcp("127.0.0.1", port)
        async with stream:
            if opening:
                await stream.send(opening)
            received = await until_closed(stream)
    assert received.startswith(b"HTTP/1.1 408 ")


async def test_a_client_slow_with_its_body_gets_408_and_is_closed(app: ASGIApp) -> None:
    head = (
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        "Accept: application/json, text/event-stream\r\n"
        f"Authorization: Bearer {TOKEN}\r\nContent-Length: 1000\r\n\r\n{{"
    )
    async with served(app) as port:
        stream = await anyio.connect_tcp("127.0.0.1", port)
        async with stream:
            await stream.send(head.encode())
            received = await until_closed(stream)
    assert received.startswith(b"HTTP/1.1 408 ")


async def test_a_client_without_a_token_is_refused_and_closed_at_once(app: ASGIApp) -> None:
    head = b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000\r\n\r\n{"
    # Deadlines far away: the refusal, not a timeout, closes the connection.
    async with served(app, HttpLimits(header_timeout=600, body_timeout=600)) as port:
        stream = await anyio.connect_tcp("127.0.0.1", port)
        async with stream:
            await stream.send(head)
            received = await until_closed(stream)
    assert received.startswith(b"HTTP/1.1 401 ")


async def test_headers_over_the_limit_are_refused_even_in_one_piece(app: ASGIApp) -> None:
    limits = HttpLimits(max_header_bytes=4096)
    async with served(app, limits) as port:
        answer = await anyio.to_thread.run_sync(
            lambda: httpx2.get(
                f"http://127.0.0.1:{port}/mcp", headers={"X-Big": "a" * 8192}, timeout=30
            )
        )
    assert answer.status_code == 431


async def test_a_kept_alive_connection_serves_requests_one_after_another(app: ASGIApp) -> None:
    client_info = {"name": "test", "version": "0"}
    params = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": client_info}
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params}
    async with served(app) as port:

        def two_calls() -> list[int]:
            headers = {**HEADERS, "Authorization": f"Bearer {TOKEN}"}
            with httpx2.Client(headers=headers, timeout=30) as client:
                url = f"http://127.0.0.1:{port}/mcp"
                first = client.post(url, content=b"[]")
                second = client.post(url, json=initialize)
                return [first.status_code, second.status_code]

        statuses = await anyio.to_thread.run_sync(two_calls)
    assert statuses == [400, 200]


async def test_a_websocket_outlives_the_request_deadlines() -> None:
    async def echo(socket: WebSocket) -> None:
        await socket.accept()
        await socket.send_text(await socket.receive_text())
        await socket.close()

    app = Starlette(routes=[WebSocketRoute("/ws", echo)])
    async with served(app) as port, connect(f"ws://127.0.0.1:{port}/ws") as socket:
        await anyio.sleep(QUICK.header_timeout + QUICK.body_timeout + 0.5)
        await socket.send("still here")
        with anyio.fail_after(30):
            assert await socket.recv() == "still here"


async def test_a_server_told_to_stop_returns_even_with_a_request_in_flight() -> None:
    """``serve_http(stop=...)`` (the workbench's reload) returns and frees its port although a
    response is still streaming (as an MCP client's event stream does, for ever): it waits
    for it ``STOP_GRACE_SECONDS``, not longer."""

    async def endless(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            while True:
                kind = (await receive())["type"]  # lifespan.startup, then lifespan.shutdown
                await send({"type": kind + ".complete"})
                if kind == "lifespan.shutdown":
                    return
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"event\n", "more_body": True})
        await anyio.sleep_forever()

    port = free_port()
    stop = anyio.Event()
    returned = anyio.Event()

    async def serve() -> None:
        await serve_http(endless, "127.0.0.1", port, stop=stop)
        returned.set()

    with anyio.fail_after(STOP_GRACE_SECONDS + 20):
        async with anyio.create_task_group() as tg:
            tg.start_soon(serve)
            while True:
                try:
                    stream = await anyio.connect_tcp("127.0.0.1", port)
                    break
                except OSError:
                    await anyio.sleep(0.02)
            async with stream:
                await stream.send(b"GET /events HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n")
                assert b"200" in await stream.receive()
                started = anyio.current_time()
                stop.set()
                await returned.wait()
                waited = anyio.current_time() - started
                assert STOP_GRACE_SECONDS - 1 <= waited <= STOP_GRACE_SECONDS + 3
            with pytest.raises(OSError):
                await anyio.connect_tcp("127.0.0.1", port)
