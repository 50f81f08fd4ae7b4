"""Reading a streamed chat completion into an answer: content, reasoning, usage, how it ended.

The events come as vLLM and llama-server send them: ``chat.completion.chunk`` objects of about
one token each, the thinking in ``delta.reasoning`` (``reasoning_content`` on llama-server), a
last chunk with the usage when asked for, then ``[DONE]``. Reading them is on the path of every
call the model answers, once per token, so the usual chunk takes as few steps as it can.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import anyio

from mcp_sim.errors import ModelOutputInvalid
from mcp_sim.models.base import Completion, CompletionRequest
from mcp_sim.models.failures import Retryable, snippet, stream_error
from mcp_sim.models.http_client import StreamedResponse
from mcp_sim.models.sse import EventParser
from mcp_sim.models.stream_progress import StreamProgress

_ABORTED_FINISH_REASONS = frozenset({"abort", "error"})
_DRAIN_SECONDS = 1.0
"""How long the rest of a response after ``[DONE]`` may take to arrive before the connection is
dropped instead of kept for the next request."""


@dataclass
class StreamedAnswer:
    """What one streamed response has told us so far."""

    model: str
    content: list[str] = field(default_factory=list)
    reasoning: list[str] = field(default_factory=list)
    finish_reason: str | None = None
    prompt_tokens: int = 0
    cached_tokens: int = 0
    usage_tokens: int | None = None
    chunks: int = 0
    done: bool = False
    phase: str = "world model thinking"
    model_seen: bool = False
    """The stream has named its model (every chunk repeats it; the first is enough)."""

    @property
    def tokens(self) -> int:
        return max(self.usage_tokens or 0, self.chunks)


async def read_answer(
    url: str, response: StreamedResponse, answer: StreamedAnswer, progress: StreamProgress
) -> StreamedAnswer:
    """Read the response's events into ``answer``, reporting progress as tokens arrive."""
    parser = EventParser()
    chunks = response.aiter_bytes()
    async for chunk in chunks:
        seen = answer.chunks
        _on_events(url, parser.feed(chunk), answer)
        if answer.done:
            break
        if answer.chunks != seen:
            await progress.update(answer.tokens, answer.phase)
    if answer.done:
        # Read the response to its end (vLLM ends it right after [DONE]), so that the client
        # keeps the connection for the next request instead of opening a new one for every call.
        with anyio.move_on_after(_DRAIN_SECONDS):
            async for _ in chunks:
                pass
    else:
        _on_events(url, parser.close(), answer)
    if not answer.done and answer.finish_reason is None:
        raise ModelOutputInvalid(
            f"the event stream from {url} ended before the answer finished (no finish_reason "
            f"and no [DONE]; content type {response.headers.get('content-type', 'unknown')!r})"
        )
    await progress.update(answer.tokens, "world model finished", force=True)
    return answer


def completion_of(url: str, request: CompletionRequest, answer: StreamedAnswer) -> Completion:
    """The completion a finished answer makes, or the failure it stands for."""
    if answer.finish_reason in _ABORTED_FINISH_REASONS:
        raise Retryable(
            f"the endpoint stopped the generation (finish_reason {answer.finish_reason!r})"
        )
    if answer.finish_reason == "length":
        raise ModelOutputInvalid(
            f"the world model's answer from {url} was truncated at max tokens "
            f"({request.sampling.max_tokens}) before it finished; raise the limit with "
            "--max-tokens (thinking alone often takes several thousand tokens)"
        )
    content = "".join(answer.content)
    reasoning = "".join(answer.reasoning) or None
    if not content.strip() and reasoning is None:
        raise ModelOutputInvalid(
            f"the world model at {url} returned an empty answer (no content and no reasoning; "
            f"finish_reason {answer.finish_reason!r})"
        )
    return Completion(
        content=content,
        reasoning=reasoning,
        finish_reason=answer.finish_reason,
        model=answer.model,
        prompt_tokens=answer.prompt_tokens,
        completion_tokens=answer.tokens,
        cached_tokens=answer.cached_tokens,
    )


def _on_events(url: str, events: list[str], answer: StreamedAnswer) -> None:
    """Take in the events of one network read (up to ``[DONE]``)."""
    for i, data in enumerate(events):
        if data.strip() == "[DONE]":
            events, answer.done = events[:i], True
            break
    if not events:
        return
    # One JSON document for the whole read: decoding hundreds of small events one by one
    # costs about three times as much. Anything unusual is decoded event by event, so a bad
    # event is reported as itself.
    chunks: Any = None
    if all(data.startswith("{") for data in events):
        try:
            chunks = json.loads("[" + ",".join(events) + "]")
        except ValueError:
            chunks = None
    if not isinstance(chunks, list) or len(chunks) != len(events):
        chunks = [_decode(url, data) for data in events]
    for data, chunk in zip(events, chunks, strict=True):
        _on_chunk(url, data, chunk, answer)


def _decode(url: str, data: str) -> Any:
    try:
        return json.loads(data)
    except ValueError:
        raise ModelOutputInvalid(
            f"the event stream from {url} carried an event that is not JSON: {snippet(data)}"
        ) from None


def _on_chunk(url: str, data: str, chunk: Any, answer: StreamedAnswer) -> None:
    # Runs for every token streamed, so the usual chunk (one choice, a one-field delta) takes
    # as few steps as it can; type() checks are cheaper than isinstance() here.
    if type(chunk) is not dict:
        raise ModelOutputInvalid(
            f"the event stream from {url} carried an event that is not a JSON object: "
            f"{snippet(data)}"
        )
    if "error" in chunk or chunk.get("object") == "error":
        raise stream_error(url, chunk)
    if not answer.model_seen:
        model = chunk.get("model")
        if model and isinstance(model, str):
            answer.model = model
            answer.model_seen = True
    usage = chunk.get("usage")
    if usage and type(usage) is dict:
        _on_usage(usage, answer)
    choices = chunk.get("choices")
    if not choices:
        return
    if type(choices) is not list:
        raise ModelOutputInvalid(
            f"the event stream from {url} carried a chunk whose choices are not a list: "
            f"{snippet(data)}"
        )
    for choice in choices:
        if type(choice) is not dict or choice.get("index", 0) != 0:
            continue
        delta = choice.get("delta")
        if delta and type(delta) is dict:
            content = delta.get("content")
            # vLLM names the thinking "reasoning"; llama-server still says "reasoning_content".
            reasoning = delta.get("reasoning") or delta.get("reasoning_content")
            if reasoning and type(reasoning) is str:
                answer.reasoning.append(reasoning)
                answer.chunks += 1
                answer.phase = "world model thinking"
            if content and type(content) is str:
                answer.content.append(content)
                if not reasoning:
                    answer.chunks += 1
                answer.phase = "world model writing the observation"
        finish_reason = choice.get("finish_reason")
        if finish_reason and type(finish_reason) is str:
            answer.finish_reason = finish_reason


def _on_usage(usage: dict[str, Any], answer: StreamedAnswer) -> None:
    prompt_tokens = usage.get("prompt_tokens")
    completion_tokens = usage.get("completion_tokens")
    if isinstance(prompt_tokens, int):
        answer.prompt_tokens = prompt_tokens
    if isinstance(completion_tokens, int):
        answer.usage_tokens = completion_tokens
    details = usage.get("prompt_tokens_details")
    cached = details.get("cached_tokens") if isinstance(details, dict) else None
    if isinstance(cached, int):
        answer.cached_tokens = cached
