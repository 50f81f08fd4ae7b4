"""From a model's completion to an observation: pure functions, no I/O.

A call asks for its answer in one of three shapes: the observation in
``<predicted_observation>`` tags (a free-text tool; a write call's patch may ride along in its
own tag), a JSON object that follows the tool's output schema (a structured tool), or, with
output bounds for a small model, a JSON envelope whose ``observation`` field holds the text (see
:mod:`mcp_sim.prompting.bounds`). These functions unwrap each shape, say what is wrong with an
answer that has none, and word the request to answer again.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import jsonschema

from mcp_sim.errors import ModelOutputInvalid
from mcp_sim.models.base import ChatMessage, Completion
from mcp_sim.prompting.answer_format import extract_observation, strip_code_fence
from mcp_sim.prompting.bounds import OutputBounds, bounded_schema, envelope_schema, open_envelope
from mcp_sim.runtime.state import split_patch
from mcp_sim.spec.world import ToolSpec


@dataclass
class Answer:
    """One answer of the model to a call, before any state change."""

    content: str
    text: str
    structured: Any
    reasoning: str | None
    tagged_patch: str | None


def format_validation_error(error: jsonschema.ValidationError) -> str:
    """A schema error as ``path.to.field: message`` (just the message at the top level)."""
    where = ".".join(str(p) for p in error.absolute_path)
    return f"{where}: {error.message}" if where else error.message


def enveloped(tool: ToolSpec, bounds: OutputBounds | None) -> bool:
    """Whether ``tool``'s observation is asked for inside an envelope (a free-text tool of a
    world with output bounds)."""
    return bounds is not None and tool.output_schema is None


def response_schema(tool: ToolSpec, bounds: OutputBounds | None) -> dict[str, Any] | None:
    """The schema a call's answer is constrained to: the tool's output schema, bounded when
    there are bounds, or the envelope's for a free-text tool with bounds."""
    if bounds is None:
        return tool.output_schema
    if tool.output_schema is None:
        return envelope_schema(bounds)
    schema: dict[str, Any] = bounded_schema(tool.output_schema, bounds)
    return schema


def opened_envelope(content: str) -> str:
    """The observation inside an envelope answer, stripped; raises
    :class:`ModelOutputInvalid` when ``content`` is not an envelope or holds nothing."""
    text = open_envelope(content)
    if text is None:
        raise ModelOutputInvalid(f"the answer is not an observation envelope: {content[:200]!r}")
    return _not_empty(text.strip())


def parse_structured(
    tool_name: str, content: str, validator: jsonschema.protocols.Validator
) -> Any:
    """The JSON object in ``content`` (tags and a code fence allowed around it), checked by
    ``validator`` against the tool's output schema; raises :class:`ModelOutputInvalid` when
    it is not JSON or does not match."""
    raw = strip_code_fence(extract_observation(content))
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ModelOutputInvalid(
            f"the answer for {tool_name} is not JSON ({exc.msg} at position {exc.pos}): "
            f"{raw[:200]!r}"
        ) from None
    error = jsonschema.exceptions.best_match(validator.iter_errors(data))
    if error is not None:
        raise ModelOutputInvalid(
            f"the answer for {tool_name} does not match its output schema: "
            f"{format_validation_error(error)}"
        )
    return data


def unwrap(
    tool: ToolSpec,
    completion: Completion,
    *,
    envelope: bool,
    validator: jsonschema.protocols.Validator | None,
) -> Answer:
    """The observation in an answer, as the request asked for it (an ``envelope``, tags, or
    the tool's structured output, checked by ``validator``); raises
    :class:`ModelOutputInvalid` when it has none."""
    content, reasoning = completion.content, completion.reasoning
    if envelope:
        return Answer(content, opened_envelope(content), None, reasoning, None)
    if tool.output_schema is None or validator is None:
        rest, tagged = split_patch(content)
        return Answer(content, _not_empty(extract_observation(rest)), None, reasoning, tagged)
    data = parse_structured(tool.name, content, validator)
    return Answer(content, json.dumps(data, ensure_ascii=False), data, reasoning, None)


def page_text(content: str, *, structured: bool, envelope: bool) -> str:
    """The observation in an answer to a page store's question: JSON text when it asked for
    ``structured`` output, an ``envelope``'s text, or the tagged observation."""
    if structured:
        return _not_empty(strip_code_fence(extract_observation(content)))
    if envelope:
        return opened_envelope(content)
    return _not_empty(extract_observation(content))


def repair_messages(
    messages: list[ChatMessage],
    completion: Completion,
    error: ModelOutputInvalid,
    *,
    envelope: bool,
    structured: bool,
) -> list[ChatMessage]:
    """``messages`` followed by the invalid answer and a request to answer again that says
    what was wrong and which shape is wanted."""
    if envelope:
        again = (
            'Answer again with only a JSON object whose "observation" field holds the '
            "tool's raw output, not empty."
        )
    elif not structured:
        again = (
            "Predict the observation again, wrapped in "
            "<predicted_observation></predicted_observation> tags, not empty."
        )
    else:
        again = "Answer again with only a JSON object that follows the tool's output schema."
    return [
        *messages,
        {"role": "assistant", "content": completion.content},
        {"role": "user", "content": f"That response is not valid: {error}. {again}"},
    ]


def _not_empty(text: str) -> str:
    if not text:
        raise ModelOutputInvalid("the world model returned an empty observation")
    return text
