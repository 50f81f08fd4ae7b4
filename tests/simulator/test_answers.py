"""Unwrapping the model's answers: tags, structured output, envelopes, and the repair request."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest

from mcp_sim.errors import ModelOutputInvalid
from mcp_sim.models.base import Completion
from mcp_sim.prompting.answer_format import strip_code_fence
from mcp_sim.prompting.answer_shape import AnswerShape
from mcp_sim.prompting.bounds import OutputBounds
from mcp_sim.simulator.answers import page_text, parse_structured, repair_messages, unwrap
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
TAGGED = AnswerShape.of(TEXT_TOOL, None)
ENVELOPE = AnswerShape.of(TEXT_TOOL, BOUNDS)
STRUCTURED = AnswerShape.of(JSON_TOOL, None)


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
    answer = unwrap("read_file", completion(content), TAGGED, None)
    assert answer.text == "hello"
    assert answer.structured is None
    assert answer.reasoning == "thought"
    assert answer.tagged_patch is not None and json.loads(answer.tagged_patch)[0]["path"] == "/x"


@pytest.mark.parametrize(
    "content",
    [
        "<predicted_observation></predicted_observation>",
        "<think>Nothing comes back.</think>\n<predicted_observation>\n\n</predicted_observation>",
        "<predicted_observation></predicted_observation>\n<state_patch>[]</state_patch>",
    ],
)
def test_closed_tags_around_nothing_are_an_empty_answer(content: str) -> None:
    assert unwrap("read_file", completion(content), TAGGED, None).text == ""


@pytest.mark.parametrize(
    "content",
    ["", "  ", "<think>Nothing comes back.</think>", "<predicted_observation>", "<think>x"],
)
def test_a_completion_that_gives_no_answer_is_invalid(content: str) -> None:
    with pytest.raises(ModelOutputInvalid, match="empty observation"):
        unwrap("read_file", completion(content), TAGGED, None)


def test_an_injected_error_is_never_empty() -> None:
    failing = AnswerShape.of(TEXT_TOOL, None, error=True)
    with pytest.raises(ModelOutputInvalid, match="empty observation"):
        unwrap(
            "read_file",
            completion("<predicted_observation></predicted_observation>"),
            failing,
            None,
        )
    with pytest.raises(ModelOutputInvalid, match="empty observation"):
        unwrap(
            "read_file",
            completion('{"observation": ""}'),
            AnswerShape.of(TEXT_TOOL, BOUNDS, error=True),
            None,
        )


@pytest.mark.parametrize("text", ["null", "[]", "{}"])
def test_empty_json_is_free_text_like_any_other(text: str) -> None:
    tagged = f"<predicted_observation>{text}</predicted_observation>"
    assert unwrap("read_file", completion(tagged), TAGGED, None).text == text
    enveloped = json.dumps({"observation": text})
    assert unwrap("read_file", completion(enveloped), ENVELOPE, None).text == text


@pytest.mark.parametrize(
    ("schema", "content", "structured"),
    [
        ({"type": "object"}, "{}", {}),
        ({"type": "array"}, "[]", []),
        ({"type": ["object", "null"]}, "null", None),
        ({"type": "object"}, "<predicted_observation>{}</predicted_observation>", {}),
    ],
)
def test_empty_json_is_a_structured_answer_its_schema_accepts(
    schema: dict[str, Any], content: str, structured: Any
) -> None:
    check = jsonschema.Draft202012Validator(schema)
    answer = unwrap("count", completion(content), STRUCTURED, check)
    assert answer.structured == structured and json.loads(answer.text) == structured


@pytest.mark.parametrize(
    "content", ["{}", "[]", "null", "", "<predicted_observation></predicted_observation>"]
)
def test_empty_json_or_nothing_is_invalid_where_the_schema_wants_more(content: str) -> None:
    with pytest.raises(ModelOutputInvalid, match="count"):
        unwrap("count", completion(content), STRUCTURED, validator())


def test_structured_answer_in_a_code_fence_is_parsed_and_checked() -> None:
    content = '<predicted_observation>```json\n{"total": 3}\n```</predicted_observation>'
    answer = unwrap("count", completion(content), STRUCTURED, validator())
    assert answer.structured == {"total": 3}
    assert json.loads(answer.text) == {"total": 3}


def test_structured_answer_that_is_not_json_names_the_tool() -> None:
    with pytest.raises(ModelOutputInvalid, match="answer for count is not JSON"):
        parse_structured("count", "total: 3", validator())


def test_structured_answer_that_misses_the_schema_names_the_field() -> None:
    with pytest.raises(ModelOutputInvalid, match="total"):
        parse_structured("count", '{"total": "three"}', validator())


def test_envelope_answer_gives_its_observation_stripped() -> None:
    answer = unwrap("read_file", completion('{"observation": "  file text \\n"}'), ENVELOPE, None)
    assert answer.text == "file text"


@pytest.mark.parametrize("content", ['{"observation": ""}', '{"observation": "  "}'])
def test_an_empty_envelope_is_an_empty_answer(content: str) -> None:
    assert unwrap("read_file", completion(content), ENVELOPE, None).text == ""


def test_an_answer_that_is_no_envelope_is_invalid() -> None:
    with pytest.raises(ModelOutputInvalid, match="not an observation envelope"):
        unwrap("read_file", completion("plain text"), ENVELOPE, None)


def test_the_envelopes_grammar_keeps_small_models_from_answering_blank() -> None:
    def least(shape: AnswerShape) -> Any:
        assert shape.response_schema is not None
        return shape.response_schema["properties"]["observation"].get("minLength", 0)

    assert least(ENVELOPE) == 1
    assert ENVELOPE.may_be_empty  # an empty envelope written all the same is an answer
    assert least(ENVELOPE.for_question(None)) == 1
    assert least(AnswerShape.of(TEXT_TOOL, BOUNDS, error=True)) == 1


def test_page_text_takes_each_shape() -> None:
    json_question = TAGGED.for_question({"type": "object"})
    assert page_text('```json\n{"a": 1}\n```', json_question) == '{"a": 1}'
    assert page_text('{"observation": " page "}', ENVELOPE.for_question(None)) == "page"
    tagged = "<predicted_observation>page</predicted_observation>"
    assert page_text(tagged, STRUCTURED.for_question(None)) == "page"
    with pytest.raises(ModelOutputInvalid):
        page_text("", json_question)
    with pytest.raises(ModelOutputInvalid, match="empty"):
        page_text('{"observation": ""}', ENVELOPE.for_question(None))


@pytest.mark.parametrize(
    ("shape", "wanted"),
    [
        (ENVELOPE, '"observation" field'),
        (TAGGED, "<predicted_observation>"),
        (STRUCTURED, "output schema"),
    ],
)
def test_repair_request_says_what_was_wrong_and_which_shape_to_use(
    shape: AnswerShape, wanted: str
) -> None:
    asked = [{"role": "user", "content": "call"}]
    messages = repair_messages(asked, completion("bad"), ModelOutputInvalid("it was empty"), shape)
    assert messages[:1] == asked
    assert messages[1] == {"role": "assistant", "content": "bad"}
    assert messages[2]["role"] == "user"
    assert "it was empty" in messages[2]["content"] and wanted in messages[2]["content"]


def test_bounds_put_free_text_in_an_envelope_and_bound_structured_output() -> None:
    assert TAGGED.tagged and not ENVELOPE.tagged and ENVELOPE.envelope
    bounded_json = AnswerShape.of(JSON_TOOL, BOUNDS)
    assert bounded_json.structured and not bounded_json.envelope
    assert TAGGED.response_schema is None
    assert STRUCTURED.response_schema == SCHEMA
    envelope = ENVELOPE.response_schema
    assert envelope is not None and "observation" in envelope["properties"]
    bounded = bounded_json.response_schema
    assert bounded is not None and bounded["properties"]["total"] == {"type": "integer"}


WRITE_TOOL = TEXT_TOOL.model_copy(update={"effect": "write"})


def test_only_a_tagged_write_call_carries_its_patch_with_the_answer() -> None:
    assert AnswerShape.of(WRITE_TOOL, None).ask_patch
    assert not AnswerShape.of(WRITE_TOOL, BOUNDS).ask_patch
    assert AnswerShape.of(WRITE_TOOL, BOUNDS).writes
    structured_write = JSON_TOOL.model_copy(update={"effect": "write"})
    assert not AnswerShape.of(structured_write, None).ask_patch
    assert not TAGGED.ask_patch


def test_an_injected_error_is_free_text_that_changes_nothing() -> None:
    structured_write = JSON_TOOL.model_copy(update={"effect": "write"})
    shape = AnswerShape.of(structured_write, None, error=True)
    assert shape.error and shape.tagged and not shape.writes and shape.response_schema is None
    assert AnswerShape.of(structured_write, BOUNDS, error=True).envelope
