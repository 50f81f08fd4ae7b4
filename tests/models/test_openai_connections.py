"""The OpenAI-compatible world model client's connections, over real HTTP to vLLM-shaped
doubles: routing over endpoints, concurrency, cancellation and closing."""

from __future__ import annotations

import asyncio

import anyio
import httpx2
import pytest

from mcp_sim.errors import ModelUnavailable
from mcp_sim.models.openai import OpenAICompatibleModel
from tests.models.conftest import request, settings
from tests.openai_double import DEFAULT_MODEL, OpenAIDouble, Reply, unused_base_url

# -- routing and concurrency -----------------------------------------------------------------


async def test_same_routing_key_always_reaches_the_same_endpoint(
    double: OpenAIDouble, second_double: OpenAIDouble
) -> None:
    doubles = {double.base_url: double, second_double.base_url: second_double}
    for server in doubles.values():
        server.respond_with(lambda _: Reply(content="ok"))
    keys = [f"session-{i}" for i in range(8)]

    async with OpenAICompatibleModel(
        settings(double.base_url, second_double.base_url, model=DEFAULT_MODEL)
    ) as client:
        for _ in range(3):
            for key in keys:
                await client.complete(request(routing_key=key))
        preferred = {key: client.preferred_endpoint(key) for key in keys}

    for url, server in doubles.items():
        seen = [r.headers["x-session-id"] for r in server.completion_requests]
        assert sorted(seen) == sorted(k for k in keys for _ in range(3) if preferred[k] == url)
    assert set(preferred.values()) == set(doubles)


async def test_routing_key_fails_over_to_the_next_endpoint_when_its_own_is_dead(
    double: OpenAIDouble,
) -> None:
    dead = unused_base_url()
    double.respond_with(lambda _: Reply(content="from the live one"))
    async with OpenAICompatibleModel(
        settings(dead, double.base_url, model=DEFAULT_MODEL, retries=0)
    ) as client:
        key = next(k for k in (f"s{i}" for i in range(100)) if client.preferred_endpoint(k) == dead)
        completion = await client.complete(request(routing_key=key))

    assert completion.content == "from the live one"
    assert double.completion_requests[0].headers["x-session-id"] == key


async def test_requests_without_routing_key_go_round_robin(
    double: OpenAIDouble, second_double: OpenAIDouble
) -> None:
    for server in (double, second_double):
        server.respond_with(lambda _: Reply(content="ok"))

    async with OpenAICompatibleModel(
        settings(double.base_url, second_double.base_url, model=DEFAULT_MODEL)
    ) as client:
        for _ in range(4):
            await client.complete(request())

    assert len(double.completion_requests) == 2
    assert len(second_double.completion_requests) == 2
    assert all("x-session-id" not in r.headers for r in double.completion_requests)


async def test_concurrency_limit_per_endpoint_is_honoured(double: OpenAIDouble) -> None:
    double.respond_with(lambda _: Reply(content="a b c", chunk_delay=0.1))
    results: list[str] = []

    async with OpenAICompatibleModel(
        settings(double.base_url, model=DEFAULT_MODEL, max_concurrency=2)
    ) as client:

        async def one() -> None:
            results.append((await client.complete(request())).content)

        with anyio.fail_after(10):
            async with anyio.create_task_group() as group:
                for _ in range(5):
                    group.start_soon(one)

    assert results == ["a b c"] * 5
    assert double.max_in_flight == 2


# -- cancellation and lifecycle --------------------------------------------------------------


async def test_cancelling_a_call_closes_the_request_and_propagates_cancellation(
    double: OpenAIDouble, model: OpenAICompatibleModel
) -> None:
    double.script(Reply(content="word " * 100, chunk_delay=0.2))
    reports: list[int] = []

    async def progress(tokens: int, message: str) -> None:
        reports.append(tokens)

    task = asyncio.create_task(model.complete(request(), progress))
    await double.wait_for(lambda: bool(reports))
    task.cancel()

    with pytest.raises(asyncio.CancelledError):
        await task
    await double.wait_for(lambda: double.disconnects == 1 and double.in_flight == 0)


async def test_aclose_closes_an_owned_client_but_not_an_injected_one(
    double: OpenAIDouble,
) -> None:
    double.respond_with(lambda _: Reply(content="ok"))
    async with httpx2.AsyncClient() as injected:
        client = OpenAICompatibleModel(settings(double.base_url), http_client=injected)
        await client.complete(request())
        await client.aclose()
        assert not injected.is_closed
        assert (await injected.get(f"{double.url}/health")).status_code == 200

    owned = OpenAICompatibleModel(settings(double.base_url))
    await owned.aclose()
    with pytest.raises(RuntimeError, match="closed"):
        await owned.complete(request())


async def test_injected_transport_is_used_for_every_request() -> None:
    seen: list[str] = []

    def handler(http_request: httpx2.Request) -> httpx2.Response:
        seen.append(http_request.url.path)
        return httpx2.Response(503, json={"error": {"message": "warming up"}})

    transport = httpx2.MockTransport(handler)
    async with OpenAICompatibleModel(
        settings("http://replica.invalid:8000/v1", model="m", retries=1), transport=transport
    ) as client:
        with pytest.raises(ModelUnavailable, match="warming up"):
            await client.complete(request())

    assert seen == ["/v1/chat/completions"] * 2


async def test_a_refused_connection_through_httpx2_is_retried_and_marks_the_replica_down() -> None:
    tries: list[str] = []

    def handler(http_request: httpx2.Request) -> httpx2.Response:
        tries.append(http_request.url.host)
        raise httpx2.ConnectError("connection refused")

    transport = httpx2.MockTransport(handler)
    async with OpenAICompatibleModel(
        settings("http://replica.invalid:8000/v1", model="m", retries=1), transport=transport
    ) as client:
        with pytest.raises(ModelUnavailable, match=r"cannot connect \(connection refused\)"):
            await client.complete(request())
        assert client.replicas_down == ["http://replica.invalid:8000/v1"]

    assert tries == ["replica.invalid"] * 2
