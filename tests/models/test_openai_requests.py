"""The OpenAI-compatible world model client, over real HTTP to a vLLM-shaped double."""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import anyio
import httpx2
import pytest

from mcp_sim.errors import ModelError, ModelOutputInvalid, ModelTimeout, ModelUnavailable
from mcp_sim.models.base import CompletionRequest, Sampling
from mcp_sim.models.openai import EndpointSettings, OpenAICompatibleModel
from mcp_sim.models.payload import routing_header
from tests.openai_double import DEFAULT_MODEL, OpenAIDouble, Reply, unused_base_url

MESSAGES = [
    {"role": "system", "content": "You are a tool world model."},
    {"role": "user", "content": "### Turn 1\n**Action:**\n```json\n{}\n```"},
]
FAST = {"backoff": 0.01, "backoff_max": 0.05, "connect_timeout": 2.0, "request_timeout": 10.0}


def settings(*urls: str, **overrides: Any) -> EndpointSettings:
    return EndpointSettings(base_urls=list(urls), **{**FAST, **overrides})


def request(**fields: Any) -> CompletionRequest:
    return CompletionRequest(messages=MESSAGES, **fields)


@pytest.fixture
def double() -> Iterator[OpenAIDouble]:
    with OpenAIDouble() as server:
        yield server


@pytest.fixture
def second_double() -> Iterator[OpenAIDouble]:
    with OpenAIDouble() as server:
        yield server


@pytest.fixture
async def model(double: OpenAIDouble) -> AsyncIterator[OpenAICompatibleModel]:
    async with OpenAICompatibleModel(settings(double.base_url)) as client:
        yield client


# -- model discovery -------------------------------------------------------------------------


async def test_model_name_is_discovered_once_per_endpoint_and_sent_with_each_request(
    double: OpenAIDouble, model: OpenAICompatibleModel
) -> None:
    double.script(Reply(content="one"), Reply(content="two"))

    first = await model.complete(request())
    second = await model.complete(request())

    paths = [(r.method, r.path) for r in double.requests]
    assert paths == [
        ("GET", "/v1/models"),
        ("POST", "/v1/chat/completions"),
        ("POST", "/v1/chat/completions"),
    ]
    assert [r.body["model"] for r in double.completion_requests] == [DEFAULT_MODEL] * 2
    assert (first.content, second.content) == ("one", "two")
    assert first.model == DEFAULT_MODEL


async def test_configured_model_name_skips_discovery(double: OpenAIDouble) -> None:
    double.script(Reply(content="hi"))
    async with OpenAICompatibleModel(settings(double.base_url, model=DEFAULT_MODEL)) as client:
        await client.complete(request())

    assert [r.path for r in double.requests] == ["/v1/chat/completions"]


async def test_unknown_configured_model_is_a_model_error_with_the_servers_message(
    double: OpenAIDouble,
) -> None:
    async with OpenAICompatibleModel(settings(double.base_url, model="nope")) as client:
        with pytest.raises(ModelError, match=r"HTTP 404.*The model `nope` does not exist"):
            await client.complete(request())

    assert len(double.completion_requests) == 1


# -- what is sent ----------------------------------------------------------------------------


async def test_request_body_carries_streaming_sampling_and_no_tools(
    double: OpenAIDouble, model: OpenAICompatibleModel
) -> None:
    double.script(Reply(content="ok"))
    sampling = Sampling(temperature=0.3, top_p=0.8, top_k=7, max_tokens=1234, seed=42)

    await model.complete(request(sampling=sampling))

    body = double.completion_requests[0].body
    assert body["messages"] == MESSAGES
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert (body["temperature"], body["top_p"], body["top_k"]) == (0.3, 0.8, 7)
    assert body["max_completion_tokens"] == 1234
    assert body["seed"] == 42
    for absent in ("tools", "tool_choice", "guided_json", "max_tokens", "response_format"):
        assert absent not in body
    # Thinking on (the default) sends nothing special, so the template's default applies.
    assert "chat_template_kwargs" not in body


async def test_seed_is_left_out_when_unset(
    double: OpenAIDouble, model: OpenAICompatibleModel
) -> None:
    double.script(Reply(content="ok"))
    await model.complete(request())

    assert "seed" not in double.completion_requests[0].body


async def test_thinking_off_is_sent_as_chat_template_kwargs(
    double: OpenAIDouble, model: OpenAICompatibleModel
) -> None:
    double.script(Reply(content="ok"))
    await model.complete(request(sampling=Sampling(thinking=False)))

    body = double.completion_requests[0].body
    assert body["chat_template_kwargs"] == {"enable_thinking": False}


async def test_response_schema_is_sent_as_strict_json_schema_response_format(
    double: OpenAIDouble, model: OpenAICompatibleModel
) -> None:
    schema = {"type": "object", "properties": {"results": {"type": "array"}}}
    double.script(Reply(content='{"results": []}'))

    await model.complete(request(response_schema=schema, schema_name="search_books"))

    body = double.completion_requests[0].body
    assert body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "search_books", "schema": schema, "strict": True},
    }
    assert "guided_json" not in body
    assert "structured_outputs" not in body


async def test_api_key_is_sent_as_bearer_token_and_routing_key_as_session_header() -> None:
    with OpenAIDouble(api_key="sekret") as server:
        server.script(Reply(content="ok"))
        async with OpenAICompatibleModel(settings(server.base_url, api_key="sekret")) as client:
            await client.complete(request(routing_key="session-7"))

        headers = [r.headers for r in server.requests]
    assert all(h["authorization"] == "Bearer sekret" for h in headers)
    chat_headers = headers[-1]
    assert chat_headers["x-session-id"] == "session-7"
    assert chat_headers["accept"] == "text/event-stream"


async def test_a_session_id_unfit_for_a_header_is_sent_as_its_digest() -> None:
    unfit = ["s" * 1_000_000, "line\nbreak", "ünïcode", " padded "]
    with OpenAIDouble() as server:
        server.script(*[Reply(content="ok") for _ in unfit])
        async with OpenAICompatibleModel(settings(server.base_url)) as client:
            for key in unfit:
                await client.complete(request(routing_key=key))
        sent = [r.headers["x-session-id"] for r in server.requests if "x-session-id" in r.headers]
    assert sent == [routing_header(key) for key in unfit]
    assert all(value.startswith("sha256-") and len(value) == 71 for value in sent)
    assert routing_header("s" * 1_000_000) != routing_header("s" * 999_999)


async def test_rejected_api_key_says_so() -> None:
    with OpenAIDouble(api_key="right") as server:
        async with OpenAICompatibleModel(settings(server.base_url, api_key="wrong")) as client:
            with pytest.raises(ModelError, match="rejected the API key") as caught:
                await client.complete(request())

        assert len(server.requests) == 1
    assert type(caught.value) is ModelError
    assert "Unauthorized" in str(caught.value)


async def test_missing_api_key_says_one_is_required() -> None:
    with OpenAIDouble(api_key="right") as server:
        async with OpenAICompatibleModel(settings(server.base_url)) as client:
            with pytest.raises(ModelError, match="requires an API key"):
                await client.complete(request())


# -- what is read back -----------------------------------------------------------------------


async def test_streamed_content_reasoning_and_usage_are_accumulated(
    double: OpenAIDouble, model: OpenAICompatibleModel
) -> None:
    content = '<predicted_observation>\n{"results": [1, 2]}\n</predicted_observation>'
    reasoning = "The user searches the catalogue.\nTwo books match the query."
    double.script(Reply(content=content, reasoning=reasoning))

    completion = await model.complete(request())

    assert completion.content == content
    assert completion.reasoning == reasoning
    assert completion.finish_reason == "stop"
    assert completion.model == DEFAULT_MODEL
    assert completion.prompt_tokens > 0
    assert completion.completion_tokens == len(content.split()) + len(reasoning.split())


async def test_prompt_tokens_served_from_the_prefix_cache_are_passed_on(
    double: OpenAIDouble, model: OpenAICompatibleModel
) -> None:
    double.script(Reply(content="x", cached_tokens=12), Reply(content="y"))
    assert (await model.complete(request())).cached_tokens == 12
    assert (await model.complete(request())).cached_tokens == 0


async def test_streamed_answers_reuse_one_connection(
    double: OpenAIDouble, model: OpenAICompatibleModel
) -> None:
    double.respond_with(lambda _: Reply(content="a b c", reasoning="x y"))
    for _ in range(3):
        await model.complete(request())
    ports = {r.client_port for r in double.requests}
    assert len(ports) == 1 and None not in ports


async def test_stream_split_mid_line_with_crlf_endings_is_parsed(
    double: OpenAIDouble, model: OpenAICompatibleModel
) -> None:
    first = {"choices": [{"index": 0, "delta": {"content": "ab"}}]}
    last = {"choices": [{"index": 0, "delta": {"content": "c"}, "finish_reason": "stop"}]}
    stream = (
        f"data: {json.dumps(first)}\r\n\r\ndata: {json.dumps(last)}\r\n\r\ndata: [DONE]\r\n\r\n"
    )
    double.script(Reply(raw_stream=stream))
    assert (await model.complete(request())).content == "abc"


async def test_llama_server_reasoning_content_is_read_as_reasoning(
    double: OpenAIDouble, model: OpenAICompatibleModel
) -> None:
    double.script(
        Reply(content="42", reasoning="six times seven", reasoning_field="reasoning_content")
    )

    completion = await model.complete(request())

    assert (completion.content, completion.reasoning) == ("42", "six times seven")


async def test_without_usage_the_streamed_chunks_are_counted(
    double: OpenAIDouble, model: OpenAICompatibleModel
) -> None:
    double.script(Reply(content="a b c d", reasoning="x y", usage=False))

    completion = await model.complete(request())

    assert completion.completion_tokens == 6
    assert completion.prompt_tokens == 0


async def test_progress_is_reported_with_increasing_token_counts_while_streaming(
    double: OpenAIDouble,
) -> None:
    reasoning = " ".join(f"thought{i}" for i in range(150))
    content = " ".join(f"word{i}" for i in range(50))
    # Paced, as a real model streams: progress is judged once per network read, so tokens
    # that arrive together are reported together.
    double.script(Reply(content=content, reasoning=reasoning, chunk_delay=0.003))
    reports: list[tuple[int, str]] = []

    async def progress(tokens: int, message: str) -> None:
        reports.append((tokens, message))

    async with OpenAICompatibleModel(
        settings(double.base_url, progress_tokens=64, progress_interval=60)
    ) as client:
        await client.complete(request(), progress)

    counts = [tokens for tokens, _ in reports]
    assert counts[0] < 64 and counts[-1] == 200
    assert all(later - earlier >= 64 for earlier, later in itertools.pairwise(counts[:-1]))
    assert len(counts) >= 4
    assert "thinking" in reports[0][1]
    assert all("thinking" in m or "observation" in m for _, m in reports[:-1])
    assert "finished" in reports[-1][1]


async def test_progress_is_also_reported_after_the_interval_even_for_few_tokens(
    double: OpenAIDouble,
) -> None:
    double.script(Reply(content="slow steady words", chunk_delay=0.15))
    reports: list[int] = []

    async def progress(tokens: int, message: str) -> None:
        reports.append(tokens)

    async with OpenAICompatibleModel(
        settings(double.base_url, progress_tokens=1000, progress_interval=0.1)
    ) as client:
        await client.complete(request(), progress)

    assert reports == [1, 2, 3]


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


# -- unusable answers ------------------------------------------------------------------------


async def test_answer_truncated_at_max_tokens_is_output_invalid_naming_the_flag(
    double: OpenAIDouble, model: OpenAICompatibleModel
) -> None:
    double.script(Reply(content="<predicted_observation>\n{", finish_reason="length"))

    with pytest.raises(ModelOutputInvalid) as caught:
        await model.complete(request(sampling=Sampling(max_tokens=100)))

    assert "truncated at max tokens (100)" in str(caught.value)
    assert "--max-tokens" in str(caught.value)
    assert len(double.completion_requests) == 1


async def test_empty_answer_without_reasoning_is_output_invalid(
    double: OpenAIDouble, model: OpenAICompatibleModel
) -> None:
    double.script(Reply(content=""))

    with pytest.raises(ModelOutputInvalid, match="empty answer"):
        await model.complete(request())


async def test_empty_content_with_reasoning_is_returned_for_the_caller_to_judge(
    double: OpenAIDouble, model: OpenAICompatibleModel
) -> None:
    double.script(Reply(content="", reasoning="still thinking about it"))

    completion = await model.complete(request())

    assert completion.content == ""
    assert completion.reasoning == "still thinking about it"


async def test_non_json_stream_event_is_output_invalid(
    double: OpenAIDouble, model: OpenAICompatibleModel
) -> None:
    double.script(Reply(raw_stream="data: {not json\n\ndata: [DONE]\n\n"))

    with pytest.raises(ModelOutputInvalid, match="not JSON"):
        await model.complete(request())


async def test_events_that_are_only_json_together_are_each_reported_as_not_json(
    double: OpenAIDouble, model: OpenAICompatibleModel
) -> None:
    double.script(Reply(raw_stream='data: {"choices": [1\n\ndata: 2]}\n\ndata: [DONE]\n\n'))
    with pytest.raises(ModelOutputInvalid, match="not JSON"):
        await model.complete(request())


async def test_stream_ending_without_finish_or_done_is_output_invalid(
    double: OpenAIDouble, model: OpenAICompatibleModel
) -> None:
    chunk = {"choices": [{"index": 0, "delta": {"content": "half"}, "finish_reason": None}]}
    double.script(Reply(raw_stream=f"data: {json.dumps(chunk)}\n\n"))

    with pytest.raises(ModelOutputInvalid, match="ended before the answer finished"):
        await model.complete(request())


async def test_error_event_inside_the_stream_is_a_model_error(
    double: OpenAIDouble, model: OpenAICompatibleModel
) -> None:
    error = {"object": "error", "message": "context length exceeded", "code": 400}
    double.script(Reply(raw_stream=f"data: {json.dumps(error)}\n\ndata: [DONE]\n\n"))

    with pytest.raises(ModelError, match="context length exceeded"):
        await model.complete(request())


async def test_sse_comments_and_multiline_data_are_parsed_per_the_sse_rules(
    double: OpenAIDouble, model: OpenAICompatibleModel
) -> None:
    chunk = {"choices": [{"index": 0, "delta": {"content": "x"}, "finish_reason": "stop"}]}
    text = json.dumps(chunk, indent=1)
    multiline = "\n".join(f"data: {line}" for line in text.splitlines())
    double.script(Reply(raw_stream=f": keep-alive\n\n{multiline}\n\ndata: [DONE]\n\n"))

    completion = await model.complete(request())

    assert completion.content == "x"


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


# -- settings --------------------------------------------------------------------------------


def test_settings_normalise_base_urls() -> None:
    endpoint = EndpointSettings(base_urls=[" http://a:8000/v1/ ", "http://b:8000/v1"])

    assert endpoint.base_urls == ["http://a:8000/v1", "http://b:8000/v1"]


@pytest.mark.parametrize(
    ("urls", "fields", "problem"),
    [
        ([], {}, "at least one"),
        (["localhost:8000/v1"], {}, "not an http"),
        (["http://a:99999/v1"], {}, "not an http"),
        (["http://a/v1", "http://a/v1/"], {}, "more than once"),
        (["http://a/v1"], {"request_timeout": 0}, "request_timeout"),
        (["http://a/v1"], {"retries": -1}, "retries"),
        (["http://a/v1"], {"max_concurrency": 0}, "max_concurrency"),
    ],
)
def test_settings_reject_unusable_values(
    urls: list[str], fields: dict[str, Any], problem: str
) -> None:
    with pytest.raises(ValueError, match=problem):
        EndpointSettings(base_urls=urls, **fields)


# -- the double's own non-streaming mode -----------------------------------------------------


async def test_double_answers_non_streaming_requests_with_a_full_chat_completion(
    double: OpenAIDouble,
) -> None:
    double.script(Reply(content="answer", reasoning="because"))
    async with httpx2.AsyncClient() as http:
        response = await http.post(
            f"{double.base_url}/chat/completions",
            json={"model": DEFAULT_MODEL, "messages": MESSAGES, "stream": False},
        )

    body = response.json()
    assert body["object"] == "chat.completion"
    assert body["choices"][0]["message"] == {
        "role": "assistant",
        "content": "answer",
        "reasoning": "because",
    }
    assert body["choices"][0]["finish_reason"] == "stop"
    assert set(body["usage"]) == {"prompt_tokens", "completion_tokens", "total_tokens"}
