"""httpx2 under the model client: its failures become mcp-sim's errors, wherever they happen, and
a proxy in the environment is noticed.

The lean client's own failures are tested in ``test_http11.py``; how the model client retries
them, in ``tests/models/test_openai_*.py``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import anyio
import httpx2
import pytest

from mcp_sim.errors import ConnectFailed, ConnectionBroken, ModelError, ModelTimeout
from mcp_sim.models.http_client import Httpx2Client, proxied

URL = "http://model.invalid:8000/v1/chat/completions"


def client_raising(exc: Exception) -> Httpx2Client:
    def handler(request: httpx2.Request) -> httpx2.Response:
        raise exc

    return Httpx2Client.create(
        httpx2.MockTransport(handler), connect_timeout=3, request_timeout=7, connections=2
    )


async def read_whole(client: Httpx2Client) -> bytes:
    async with client.stream("POST", URL, json={"a": 1}) as response:
        return b"".join([piece async for piece in response.aiter_bytes()])


async def test_a_refused_connection_is_a_failed_connect() -> None:
    client = client_raising(httpx2.ConnectError("connection refused"))

    with pytest.raises(ConnectFailed, match="connection refused") as caught:
        await read_whole(client)

    assert not caught.value.timed_out
    await client.aclose()


async def test_a_connect_timeout_is_a_failed_connect_that_timed_out() -> None:
    client = client_raising(httpx2.ConnectTimeout("slow"))

    with pytest.raises(ConnectFailed, match=r"within 3 s \(connect timeout\)") as caught:
        await read_whole(client)

    assert caught.value.timed_out
    await client.aclose()


async def test_a_read_timeout_is_a_model_timeout_naming_the_request_timeout() -> None:
    client = client_raising(httpx2.ReadTimeout("nothing came"))

    with pytest.raises(ModelTimeout, match=r"model\.invalid.*sent nothing for 7 s"):
        await read_whole(client)
    await client.aclose()


async def test_a_protocol_error_on_a_plain_get_is_a_broken_connection() -> None:
    client = client_raising(httpx2.RemoteProtocolError("illegal status line"))

    with pytest.raises(ConnectionBroken, match="RemoteProtocolError: illegal status line"):
        await client.get("http://model.invalid:8000/v1/models")
    await client.aclose()


async def test_a_body_that_breaks_while_the_caller_reads_it_is_a_broken_connection() -> None:
    async def body() -> AsyncIterator[bytes]:
        yield b"data: {}\n\n"
        raise httpx2.ReadError("connection reset by peer")

    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, content=body())

    client = Httpx2Client.create(
        httpx2.MockTransport(handler), connect_timeout=3, request_timeout=7, connections=2
    )
    seen: list[bytes] = []
    with pytest.raises(ConnectionBroken, match="connection reset by peer"):
        async with client.stream("POST", URL, json={}) as response:
            async for piece in response.aiter_bytes():
                seen.append(piece)
    assert seen == [b"data: {}\n\n"]
    await client.aclose()


async def test_errors_of_the_callers_own_pass_through_untouched() -> None:
    client = Httpx2Client.create(
        httpx2.MockTransport(lambda request: httpx2.Response(200, content=b"x")),
        connect_timeout=3,
        request_timeout=7,
        connections=2,
    )

    with pytest.raises(ModelError, match="the caller's"):
        async with client.stream("POST", URL, json={}):
            raise ModelError("the caller's")
    await client.aclose()


async def test_aclose_closes_an_owned_client_and_leaves_an_injected_one_open() -> None:
    transport = httpx2.MockTransport(lambda request: httpx2.Response(204))
    async with httpx2.AsyncClient(transport=transport) as injected:
        borrowed = Httpx2Client(injected, connect_timeout=1, request_timeout=1, owned=False)
        await borrowed.aclose()
        assert not injected.is_closed
        owned = Httpx2Client(injected, connect_timeout=1, request_timeout=1, owned=True)
        with anyio.fail_after(5):
            await owned.aclose()
        assert injected.is_closed


def test_a_proxy_is_noticed_unless_the_host_is_exempt(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy", "HTTPS_PROXY", "https_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HTTP_PROXY", "http://proxy.invalid:3128")

    assert proxied(["http://gpu:8000/v1"])
    assert not proxied(["https://gpu:8000/v1"])
    monkeypatch.setenv("NO_PROXY", "gpu")
    assert not proxied(["http://gpu:8000/v1"])
