"""The OpenAI-compatible world model client reading streamed answers back from a vLLM-shaped
double over real HTTP: content, reasoning, usage and progress, and answers it cannot use."""

from __future__ import annotations

import itertools
import json

import pytest

from mcp_sim.errors import ModelError, ModelOutputInvalid
from mcp_sim.models.base import Sampling
from mcp_sim.models.openai import OpenAICompatibleModel
from tests.models.conftest import request, settings
from tests.openai_double import DEFAULT_MODEL, OpenAIDouble, Reply

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
