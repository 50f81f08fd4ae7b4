"""Reading the world model's answer, and asking it again: the observation inside an answer,
the follow-up request for a write's state change, and the request to answer again when the
answer contradicts the state. Each follow-up extends the call's messages, so it shares their
whole prefix (see :mod:`mcp_sim.prompting.native`)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from mcp_sim.models.base import ChatMessage
from mcp_sim.prompting.answer_shape import AnswerShape
from mcp_sim.prompting.native import OBSERVATION_MARKER

_PATCH_FOLLOW_UP = """\
Give the change this call made to the world state as an RFC 6902 JSON Patch, as the JSON \
object {"patch": [operations]}. Paths are JSON pointers into the world state as it was before \
this call (the records the call refers to are listed with their pointers); append to an array \
with `/-`. Use {"patch": []} if nothing changed. Answer with \
the JSON object only."""


def patch_request_messages(
    messages: Sequence[ChatMessage], answer: str, rejection: str | None = None
) -> list[ChatMessage]:
    """The follow-up request for a call's state change: after the answer given, or, with
    ``rejection``, after a patch that could not be committed (the reason tells the model what
    to fix)."""
    ask = _PATCH_FOLLOW_UP
    if rejection is not None:
        ask = f"That state change was rejected: {rejection}. Correct it.\n\n{ask}"
    return [*messages, {"role": "assistant", "content": answer}, {"role": "user", "content": ask}]


def regeneration_messages(
    messages: Sequence[ChatMessage],
    answer: str,
    violations: Sequence[str],
    shape: AnswerShape,
) -> list[ChatMessage]:
    """The request to answer a call again, in its ``shape``, because the answer contradicts
    the world state."""
    listed = "\n".join(f"- {v}" for v in violations)
    if shape.structured:
        again = "Answer again with only a JSON object that follows the tool's output schema."
    elif shape.envelope:
        again = (
            'Answer again with only a JSON object whose "observation" field holds the raw output.'
        )
    else:
        again = (
            "Predict the observation again, consistent with the world state, wrapped in "
            "<predicted_observation></predicted_observation> tags"
        )
        again += (
            ", then the state change in <state_patch></state_patch> tags."
            if shape.ask_patch
            else "."
        )
    return [
        *messages,
        {"role": "assistant", "content": answer},
        {
            "role": "user",
            "content": "That observation contradicts the world state of this session:\n"
            f"{listed}\n\n{again}",
        },
    ]


_THINK_BLOCK = re.compile(r"<think>.*?</think>", re.DOTALL)
_OBSERVATION_BLOCK = re.compile(
    r"<predicted_observation>(.*?)(?:</predicted_observation>|\Z)", re.DOTALL
)


def extract_observation(text: str) -> str:
    """The observation inside a model answer, following the official extraction rules: drop
    thinking, take the last ``<predicted_observation>`` block (or the whole text), strip the
    history marker."""
    text = _without_thinking(text)
    blocks = _OBSERVATION_BLOCK.findall(text)
    return _unmarked(blocks[-1] if blocks else text)


def closes_observation(text: str) -> bool:
    """Whether a model answer, its thinking left out, closes its last
    ``<predicted_observation>`` block: an empty observation so given is an answer, not one
    the model never gave (or was cut off in)."""
    text = _without_thinking(text)
    start = text.rfind("<predicted_observation>")
    return start >= 0 and "</predicted_observation>" in text[start:]


def _without_thinking(text: str) -> str:
    text = _THINK_BLOCK.sub("", text)
    if "</think>" in text:
        text = text.rsplit("</think>", 1)[1]
    if "<think>" in text:
        head, tail = text.split("<think>", 1)
        tag = tail.find("<predicted_observation>")
        text = head + (tail[tag:] if tag >= 0 else "")
    return text


def _unmarked(observation: str) -> str:
    observation = observation.strip()
    if observation.startswith(OBSERVATION_MARKER):
        observation = observation[len(OBSERVATION_MARKER) :]
    return observation.replace(OBSERVATION_MARKER, "").strip()


def strip_code_fence(text: str) -> str:
    """``text`` without a Markdown code fence around it (models often fence their JSON)."""
    if text.startswith("```"):
        return text.strip("`").removeprefix("json").strip()
    return text
