"""The lean HTTP/1.1 client, against a raw TCP server that sends exactly the bytes a test scripts
(framing, split writes, closed keep-alive connections, broken responses).

Its ordinary use, streaming answers from an OpenAI-compatible server, is covered through the
model client in ``tests/models/test_openai_*.py`` against ``tests/openai_double.py``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

import anyio
import anyio.abc
import pytest

from mcp_sim.errors import ConnectFailed, ConnectionBroken
from mcp_sim.models import http11
from mcp_sim.models.http11 import LeanClient

Handler = Callable[[anyio.abc.SocketStream, int], Awaitable[None]]


class RawServer:
    """Accepts connections on 127.0.0.1 and hands each to the handler with its number."""

    def __init__(self, handler: Handler) -> None:
        self.handler = handler
        self.connections = 0
        self.port = 0

    async def serve(self, listener: anyio.abc.Listener[anyio.abc.SocketStream]) -> None:
        async def accept(stream: anyio.abc.SocketStream) -> None:
            number = self.connections
            self.connections += 1
            async with stream:
                await self.handler(stream, number)

        await listener.serve(accept)


@asynccontextmanager
async def raw_server(handler: Handler) -> AsyncIterator[RawServer]:
    server = RawServer(handler)
    listener = await anyio.create_tcp_listener(local_host="127.0.0.1")
    server.port = listener.extra(anyio.abc.SocketAttribute.local_port)
    async with listener, anyio.create_task_group() as tg:
        tg.start_soon(server.serve, listener)
        try:
            yield server
        finally:
            tg.cancel_scope.cancel()


async def read_request(stream: anyio.abc.SocketStream, buffer: bytearray) -> bytes:
    """One request (head and Content-Length body) from the stream; b'' when it closes."""
    while b"\r\n\r\n" not in buffer:
        try:
            buffer += await stream.receive()
        except (anyio.EndOfStream, anyio.BrokenResourceError):
            return b""
    end = buffer.index(b"\r\n\r\n") + 4
    head = bytes(buffer[:end])
    length = 0
    for line in head.decode().split("\r\n"):
        if line.lower().startswith("content-length:"):
            length = int(line.split(":")[1])
    while len(buffer) < end + length:
        buffer += await stream.receive()
    request = bytes(buffer[: end + length])
    del buffer[: end + length]
    return request


def answering(*responses: bytes, split: int = 0) -> Handler:
    """Answer the requests of each connection with ``responses`` in turn (cycling), each sent
    in pieces of ``split`` bytes when given."""

    async def handle(stream: anyio.abc.SocketStream, number: int) -> None:
        buffer = bytearray()
        index = 0
        while await read_request(stream, buffer):
            response = responses[index % len(responses)]
            index += 1
            size = split or len(response)
            for start in range(0, len(response), size):
                await stream.send(response[start : start + size])

    return handle


def url(server: RawServer, path: str = "/v1/x") -> str:
    return f"http://127.0.0.1:{server.port}{path}"


async def body_of(client: LeanClient, target: str) -> tuple[int, bytes]:
    async with client.stream("POST", target, json={"a": 1}) as response:
        return response.status_code, b"".join([p async for p in response.aiter_bytes()])


OK_LENGTH = b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"
CHUNKED = (
    b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
    b"4;name=value\r\ndata\r\n6\r\n: more\r\n0\r\nX-Trailer: yes\r\n\r\n"
)


async def test_a_kept_alive_connection_serves_the_next_request() -> None:
    async with raw_server(answering(OK_LENGTH)) as server:
        client = LeanClient(connect_timeout=2)
        for _ in range(3):
            assert await body_of(client, url(server)) == (200, b"hello")
        await client.aclose()
    assert server.connections == 1


@pytest.mark.parametrize("split", [0, 1, 3, 7])
async def test_a_chunked_body_with_extensions_and_trailers_is_read_however_it_is_split(
    split: int,
) -> None:
    async with raw_server(answering(CHUNKED, OK_LENGTH, split=split)) as server:
        client = LeanClient(connect_timeout=2)
        assert await body_of(client, url(server)) == (200, b"data: more")
        assert await body_of(client, url(server)) == (200, b"hello")
        await client.aclose()
    assert server.connections == 1


async def test_a_body_that_ends_with_the_connection_is_read_whole_and_not_reused() -> None:
    async def close_after(stream: anyio.abc.SocketStream, number: int) -> None:
        await read_request(stream, bytearray())
        await stream.send(b"HTTP/1.1 200 OK\r\n\r\nuntil the end")

    async with raw_server(close_after) as server:
        client = LeanClient(connect_timeout=2)
        assert await body_of(client, url(server)) == (200, b"until the end")
        assert await body_of(client, url(server)) == (200, b"until the end")
        await client.aclose()
    assert server.connections == 2


async def test_connection_close_is_honoured() -> None:
    closing = b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok"
    async with raw_server(answering(closing)) as server:
        client = LeanClient(connect_timeout=2)
        await body_of(client, url(server))
        await body_of(client, url(server))
        await client.aclose()
    assert server.connections == 2


async def test_a_kept_alive_connection_the_server_closed_is_replaced_transparently() -> None:
    async def one_request_per_connection(stream: anyio.abc.SocketStream, number: int) -> None:
        await read_request(stream, bytearray())
        await stream.send(OK_LENGTH)  # kept alive as far as the client knows, then closed

    async with raw_server(one_request_per_connection) as server:
        client = LeanClient(connect_timeout=2)
        assert await body_of(client, url(server)) == (200, b"hello")
        await anyio.sleep(0.05)
        assert await body_of(client, url(server)) == (200, b"hello")
        await client.aclose()
    assert server.connections == 2


async def test_a_connection_idle_past_its_expiry_is_not_reused() -> None:
    async with raw_server(answering(OK_LENGTH)) as server:
        client = LeanClient(connect_timeout=2, keepalive_expiry=0.05)
        await body_of(client, url(server))
        await anyio.sleep(0.1)
        await body_of(client, url(server))
        await client.aclose()
    assert server.connections == 2


async def test_a_chunked_body_cut_short_is_a_broken_connection() -> None:
    async def cut(stream: anyio.abc.SocketStream, number: int) -> None:
        await read_request(stream, bytearray())
        await stream.send(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n9\r\npart")

    async with raw_server(cut) as server:
        client = LeanClient(connect_timeout=2)
        with pytest.raises(ConnectionBroken, match="incomplete"):
            await body_of(client, url(server))
        await client.aclose()


async def test_an_answer_that_is_not_http_is_a_broken_connection() -> None:
    async with raw_server(answering(b"SSH-2.0-OpenSSH_9.6\r\n\r\n")) as server:
        client = LeanClient(connect_timeout=2)
        with pytest.raises(ConnectionBroken, match="not an HTTP"):
            await body_of(client, url(server))
        await client.aclose()


async def test_a_refused_connection_is_a_failed_connect() -> None:
    with anyio.fail_after(5):
        async with raw_server(answering(OK_LENGTH)) as server:
            port = server.port
        client = LeanClient(connect_timeout=2)
        with pytest.raises(ConnectFailed) as caught:
            await body_of(client, f"http://127.0.0.1:{port}/v1/x")
    assert not caught.value.timed_out


async def test_a_connection_that_takes_too_long_is_a_failed_connect_that_timed_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async def never(*args: object) -> anyio.abc.ByteStream:
        await anyio.sleep_forever()
        raise AssertionError

    monkeypatch.setattr(http11, "_open_tcp", never)
    client = LeanClient(connect_timeout=0.05)
    with anyio.fail_after(5), pytest.raises(ConnectFailed, match="connect timeout") as caught:
        await body_of(client, "http://127.0.0.1:9/v1/x")
    assert caught.value.timed_out


async def test_the_request_carries_host_length_and_the_given_headers() -> None:
    seen: list[bytes] = []

    async def record(stream: anyio.abc.SocketStream, number: int) -> None:
        buffer = bytearray()
        while request := await read_request(stream, buffer):
            seen.append(request)
            await stream.send(OK_LENGTH)

    async with raw_server(record) as server:
        client = LeanClient(connect_timeout=2)
        async with client.stream(
            "POST", url(server, "/v1/chat?x=1"), json={"é": 1}, headers={"X-Session-Id": "s1"}
        ) as response:
            await response.aread()
        got = await client.get(url(server, "/v1/models"))
        await client.aclose()
    head, _, body = seen[0].partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    assert lines[0] == "POST /v1/chat?x=1 HTTP/1.1"
    assert f"Host: 127.0.0.1:{server.port}" in lines
    assert "X-Session-Id: s1" in lines
    assert f"Content-Length: {len(body)}" in lines
    assert body.decode() == '{"é":1}'
    assert seen[1].startswith(b"GET /v1/models HTTP/1.1\r\n")
    assert got.content == b"hello"


async def test_a_header_with_a_line_break_is_refused() -> None:
    client = LeanClient(connect_timeout=2)
    with pytest.raises(ValueError, match="line break"):
        async with client.stream("GET", "http://127.0.0.1:9/", headers={"X": "a\r\nB: c"}):
            pass


async def test_a_proxy_named_in_the_environment_is_used_for_the_model_endpoint(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from mcp_sim.errors import ModelUnavailable
    from mcp_sim.models.base import CompletionRequest
    from mcp_sim.models.openai import EndpointSettings, OpenAICompatibleModel

    seen: list[bytes] = []

    async def proxy(stream: anyio.abc.SocketStream, number: int) -> None:
        buffer = bytearray()
        while request := await read_request(stream, buffer):
            seen.append(request.split(b"\r\n", 1)[0])
            await stream.send(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")

    async with raw_server(proxy) as server:
        monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{server.port}")
        monkeypatch.delenv("NO_PROXY", raising=False)
        monkeypatch.delenv("no_proxy", raising=False)
        settings = EndpointSettings(
            base_urls=["http://model.invalid:8000/v1"], model="m", retries=0
        )
        async with OpenAICompatibleModel(settings) as model:
            with pytest.raises(ModelUnavailable, match="502"):
                await model.complete(CompletionRequest(messages=[{"role": "user", "content": "x"}]))
    assert seen == [b"POST http://model.invalid:8000/v1/chat/completions HTTP/1.1"]
