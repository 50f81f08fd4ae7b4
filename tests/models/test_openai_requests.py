"""The OpenAI-compatible world model client, over real HTTP to a vLLM-shaped double: which
model it names, what each request carries, the settings it accepts, and the double's own
non-streaming mode."""

from __future__ import annotations

from typing import Any

import httpx2
import pytest

from mcp_sim.errors import ModelError
from mcp_sim.models.base import Sampling
from mcp_sim.models.openai import EndpointSettings, OpenAICompatibleModel
from mcp_sim.models.payload import routing_header
from tests.models.conftest import MESSAGES, request, settings
from tests.openai_double import DEFAULT_MODEL, OpenAIDouble, Reply

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
