"""The OpenAI-compatible world model client when its endpoint fails, over real HTTP to a
vLLM-shaped double: which failures it retries, and when it gives up or times out."""

from __future__ import annotations

import time

import anyio
import pytest

from mcp_sim.errors import ModelError, ModelTimeout, ModelUnavailable
from mcp_sim.models.openai import OpenAICompatibleModel
from tests.models.conftest import request, settings
from tests.openai_double import DEFAULT_MODEL, OpenAIDouble, Reply, unused_base_url

# -- retries ---------------------------------------------------------------------------------


async def test_503_then_success_is_retried_on_the_same_endpoint(
    double: OpenAIDouble, model: OpenAICompatibleModel
) -> None:
    double.script(Reply(status=503, error="engine busy"), Reply(content="fine"))

    completion = await model.complete(request())

    assert completion.content == "fine"
    assert len(double.completion_requests) == 2


async def test_429_is_retried_after_the_delay_the_server_asks_for(
    double: OpenAIDouble, model: OpenAICompatibleModel
) -> None:
    double.script(
        Reply(status=429, error="slow down", headers={"Retry-After": "0.6"}), Reply(content="ok")
    )
    started = time.monotonic()

    completion = await model.complete(request())

    assert completion.content == "ok"
    assert time.monotonic() - started >= 0.6
    assert len(double.completion_requests) == 2


async def test_400_is_not_retried_and_carries_the_servers_message(
    double: OpenAIDouble, model: OpenAICompatibleModel
) -> None:
    double.script(Reply(status=400, error="schema has unsupported keyword"), Reply(content="x"))

    with pytest.raises(ModelError) as caught:
        await model.complete(request())

    assert type(caught.value) is ModelError
    assert "HTTP 400" in str(caught.value)
    assert "schema has unsupported keyword" in str(caught.value)
    assert double.base_url in str(caught.value)
    assert len(double.completion_requests) == 1


async def test_older_vllm_error_bodies_with_top_level_message_are_read(
    double: OpenAIDouble, model: OpenAICompatibleModel
) -> None:
    double.script(Reply(status=422, body={"object": "error", "message": "bad messages"}))

    with pytest.raises(ModelError, match=r"HTTP 422.*bad messages"):
        await model.complete(request())


async def test_persistent_5xx_becomes_model_unavailable_naming_endpoint_and_status(
    double: OpenAIDouble,
) -> None:
    double.script(*[Reply(status=502, body="upstream exploded")] * 3)

    async with OpenAICompatibleModel(settings(double.base_url, retries=2)) as client:
        with pytest.raises(ModelUnavailable) as caught:
            await client.complete(request())

    message = str(caught.value)
    assert double.base_url in message
    assert "HTTP 502" in message
    assert "upstream exploded" in message
    assert "3 tries" in message
    assert len(double.completion_requests) == 3


async def test_retry_after_beyond_the_deadline_gives_up_at_once(double: OpenAIDouble) -> None:
    double.script(Reply(status=429, error="quota", headers={"Retry-After": "120"}))

    async with OpenAICompatibleModel(settings(double.base_url, request_timeout=5)) as client:
        with anyio.fail_after(2):
            with pytest.raises(ModelUnavailable, match="would pass the request timeout"):
                await client.complete(request())


async def test_dead_endpoint_is_model_unavailable_quickly() -> None:
    dead = unused_base_url()
    async with OpenAICompatibleModel(settings(dead, model=DEFAULT_MODEL)) as client:
        with anyio.fail_after(2):
            with pytest.raises(ModelUnavailable) as caught:
                await client.complete(request())

    assert dead in str(caught.value)
    assert "cannot connect" in str(caught.value)


async def test_dead_endpoint_during_discovery_is_model_unavailable_too() -> None:
    dead = unused_base_url()
    async with OpenAICompatibleModel(settings(dead)) as client:
        with anyio.fail_after(3):
            with pytest.raises(ModelUnavailable, match="cannot connect"):
                await client.complete(request())


async def test_connection_dropped_mid_stream_is_retried(
    double: OpenAIDouble, model: OpenAICompatibleModel
) -> None:
    double.script(Reply(content="never finished " * 20, abort_after=5), Reply(content="whole"))
    reports: list[int] = []

    async def progress(tokens: int, message: str) -> None:
        reports.append(tokens)

    completion = await model.complete(request(), progress)

    assert completion.content == "whole"
    assert len(double.completion_requests) == 2
    assert reports == sorted(set(reports))


# -- timeouts --------------------------------------------------------------------------------


async def test_no_first_byte_within_the_request_timeout_is_model_timeout(
    double: OpenAIDouble,
) -> None:
    double.script(Reply(content="too late", delay=5))

    async with OpenAICompatibleModel(
        settings(double.base_url, model=DEFAULT_MODEL, request_timeout=0.5)
    ) as client:
        # The reply would come after 5 s: the client gives up at its 0.5 s timeout.
        with anyio.fail_after(1.5):
            with pytest.raises(ModelTimeout) as caught:
                await client.complete(request())

    assert double.base_url in str(caught.value)
    assert "0.5 s" in str(caught.value)
    await double.wait_for(lambda: double.disconnects == 1)


async def test_a_stream_slower_than_the_request_timeout_is_model_timeout(
    double: OpenAIDouble,
) -> None:
    double.script(Reply(content="one two three four five six", chunk_delay=0.3))

    async with OpenAICompatibleModel(
        settings(double.base_url, model=DEFAULT_MODEL, request_timeout=0.7)
    ) as client:
        with anyio.fail_after(3):
            with pytest.raises(ModelTimeout, match=r"0\.7 s"):
                await client.complete(request())

    await double.wait_for(lambda: double.disconnects == 1)
