"""Unwrapping the model's answers: tags, structured output, envelopes, and the repair request."""

from __future__ import annotations

import json

import jsonschema
import pytest

from mcp_sim.errors import ModelOutputInvalid
from mcp_sim.models.base import Completion
from mcp_sim.prompting.answer_format import strip_code_fence
from mcp_sim.prompting.bounds import OutputBounds
from mcp_sim.simulator.answers import (
    enveloped,
    page_text,
    parse_structured,
    repair_messages,
    response_schema,
    unwrap,
)
from mcp_sim.spec.world import ToolSpec

SCHEMA = {
    "type": "object",
    "properties": {"total": {"type": "integer"}},
    "required": ["total"],
}
NO_ARGUMENTS = {"type": "object"}
TEXT_TOOL = ToolSpec(name="read_file", description="Read a file.", input_schema=NO_ARGUMENTS)
JSON_TOOL = ToolSpec(
    name="count", description="Count things.", input_schema=NO_ARGUMENTS, output_schema=SCHEMA
)
BOUNDS = OutputBounds()


def completion(content: str) -> Completion:
    return Completion(content=content, reasoning="thought")


def validator() -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(SCHEMA)


@pytest.mark.parametrize(
    ("text", "stripped"),
    [
        ('```json\n{"a": 1}\n```', '{"a": 1}'),
        ('```\n{"a": 1}\n```', '{"a": 1}'),
        ('{"a": 1}', '{"a": 1}'),
        ("no fence ```", "no fence ```"),
    ],
)
def test_strip_code_fence_removes_only_a_leading_fence(text: str, stripped: str) -> None:
    assert strip_code_fence(text) == stripped


def test_tagged_answer_gives_the_observation_and_the_patch_it_carries() -> None:
    content = (
        "Thinking.\n<predicted_observation>\nhello\n</predicted_observation>\n"
        '<state_patch>[{"op": "add", "path": "/x", "value": 1}]</state_patch>'
    )
    answer = unwrap(TEXT_TOOL, completion(content), envelope=False, validator=None)
    assert answer.text == "hello"
    assert answer.structured is None
    assert answer.reasoning == "thought"
    assert answer.tagged_patch is not None and json.loads(answer.tagged_patch)[0]["path"] == "/x"


def test_empty_tagged_answer_is_invalid() -> None:
    with pytest.raises(ModelOutputInvalid, match="empty observation"):
        unwrap(
            TEXT_TOOL,
            completion("<predicted_observation></predicted_observation>"),
            envelope=False,
            validator=None,
        )


def test_structured_answer_in_a_code_fence_is_parsed_and_checked() -> None:
    content = '<predicted_observation>```json\n{"total": 3}\n```</predicted_observation>'
    answer = unwrap(JSON_TOOL, completion(content), envelope=False, validator=validator())
    assert answer.structured == {"total": 3}
    assert json.loads(answer.text) == {"total": 3}


def test_structured_answer_that_is_not_json_names_the_tool() -> None:
    with pytest.raises(ModelOutputInvalid, match="answer for count is not JSON"):
        parse_structured("count", "total: 3", validator())


def test_structured_answer_that_misses_the_schema_names_the_field() -> None:
    with pytest.raises(ModelOutputInvalid, match="total"):
        parse_structured("count", '{"total": "three"}', validator())


def test_envelope_answer_gives_its_observation_stripped() -> None:
    answer = unwrap(
        TEXT_TOOL, completion('{"observation": "  file text \\n"}'), envelope=True, validator=None
    )
    assert answer.text == "file text"


@pytest.mark.parametrize(
    ("content", "problem"),
    [("plain text", "not an observation envelope"), ('{"observation": "  "}', "empty")],
)
def test_envelope_answer_without_an_observation_is_invalid(content: str, problem: str) -> None:
    with pytest.raises(ModelOutputInvalid, match=problem):
        unwrap(TEXT_TOOL, completion(content), envelope=True, validator=None)


def test_page_text_takes_each_shape() -> None:
    assert page_text('```json\n{"a": 1}\n```', structured=True, envelope=False) == '{"a": 1}'
    assert page_text('{"observation": " page "}', structured=False, envelope=True) == "page"
    tagged = "<predicted_observation>page</predicted_observation>"
    assert page_text(tagged, structured=False, envelope=False) == "page"
    with pytest.raises(ModelOutputInvalid):
        page_text("", structured=True, envelope=False)


@pytest.mark.parametrize(
    ("envelope", "structured", "wanted"),
    [
        (True, False, '"observation" field'),
        (False, False, "<predicted_observation>"),
        (False, True, "output schema"),
    ],
)
def test_repair_request_says_what_was_wrong_and_which_shape_to_use(
    envelope: bool, structured: bool, wanted: str
) -> None:
    asked = [{"role": "user", "content": "call"}]
    messages = repair_messages(
        asked,
        completion("bad"),
        ModelOutputInvalid("it was empty"),
        envelope=envelope,
        structured=structured,
    )
    assert messages[:1] == asked
    assert messages[1] == {"role": "assistant", "content": "bad"}
    assert messages[2]["role"] == "user"
    assert "it was empty" in messages[2]["content"] and wanted in messages[2]["content"]


def test_bounds_put_free_text_in_an_envelope_and_bound_structured_output() -> None:
    assert not enveloped(TEXT_TOOL, None)
    assert enveloped(TEXT_TOOL, BOUNDS)
    assert not enveloped(JSON_TOOL, BOUNDS)
    assert response_schema(TEXT_TOOL, None) is None
    assert response_schema(JSON_TOOL, None) == SCHEMA
    envelope = response_schema(TEXT_TOOL, BOUNDS)
    assert envelope is not None and "observation" in envelope["properties"]
    bounded = response_schema(JSON_TOOL, BOUNDS)
    assert bounded is not None and bounded["properties"]["total"] == {"type": "integer"}
