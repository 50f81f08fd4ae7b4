"""From a model's completion to an observation: pure functions, no I/O.

A call asks for its answer in one of three shapes (see
:mod:`mcp_sim.prompting.answer_shape`). These functions unwrap each shape, say what is wrong
with an answer that has none, and word the request to answer again.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import jsonschema

from mcp_sim.errors import ModelOutputInvalid
from mcp_sim.models.base import ChatMessage, Completion
from mcp_sim.prompting.answer_format import (
    closes_observation,
    extract_observation,
    strip_code_fence,
)
from mcp_sim.prompting.answer_shape import AnswerShape
from mcp_sim.prompting.bounds import open_envelope
from mcp_sim.runtime.state import split_patch


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


def opened_envelope(content: str) -> str:
    """The observation inside an envelope answer, stripped (possibly empty); raises
    :class:`ModelOutputInvalid` when ``content`` is not an envelope."""
    text = open_envelope(content)
    if text is None:
        raise ModelOutputInvalid(f"the answer is not an observation envelope: {content[:200]!r}")
    return text.strip()


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
    tool_name: str,
    completion: Completion,
    shape: AnswerShape,
    validator: jsonschema.protocols.Validator | None,
) -> Answer:
    """The observation in an answer to a call of ``tool_name``, in the ``shape`` it was asked
    for (a structured answer is checked by ``validator``); raises :class:`ModelOutputInvalid`
    when it has none. The empty text is an answer where the shape allows it, given as such:
    an empty envelope, or closed tags around nothing; a completion without either is not."""
    content, reasoning = completion.content, completion.reasoning
    if shape.envelope:
        text = opened_envelope(content)
        return Answer(
            content, text if shape.may_be_empty else _not_empty(text), None, reasoning, None
        )
    if not shape.structured or validator is None:
        rest, tagged = split_patch(content)
        text = extract_observation(rest)
        if not (shape.may_be_empty and closes_observation(rest)):
            text = _not_empty(text)
        return Answer(content, text, None, reasoning, tagged)
    data = parse_structured(tool_name, content, validator)
    return Answer(content, json.dumps(data, ensure_ascii=False), data, reasoning, None)


def page_text(content: str, shape: AnswerShape) -> str:
    """The observation in an answer to a page store's question, in the ``shape`` it was asked
    for (see :meth:`AnswerShape.for_question`): JSON text, an envelope's text, or the tagged
    observation."""
    if shape.structured:
        return _not_empty(strip_code_fence(extract_observation(content)))
    if shape.envelope:
        return _not_empty(opened_envelope(content))
    return _not_empty(extract_observation(content))


def repair_messages(
    messages: list[ChatMessage],
    completion: Completion,
    error: ModelOutputInvalid,
    shape: AnswerShape,
) -> list[ChatMessage]:
    """``messages`` followed by the invalid answer and a request to answer again that says
    what was wrong and which ``shape`` is wanted."""
    # Where the empty text is an answer, the request must not rule it out.
    close = "." if shape.may_be_empty else ", not empty."
    if shape.envelope:
        again = (
            'Answer again with only a JSON object whose "observation" field holds the '
            f"tool's raw output{close}"
        )
    elif not shape.structured:
        again = (
            "Predict the observation again, wrapped in "
            f"<predicted_observation></predicted_observation> tags{close}"
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
