"""A suite's input lines, and the schema a draft answers under."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from mcp_sim.suites.environment_drafting import environment_schema
from mcp_sim.suites.inputs import InputError, parse_input, read_inputs
from tests.suites.environment_drafts import environment, openapi_input, tool_list_input


def test_a_good_draft_is_valid_under_the_schema_the_model_answers_under() -> None:
    schema = environment_schema(parse_input(json.dumps({"description": "a ferry API"})))
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.validate(json.loads(environment("ferry")), schema)
    one_task = json.loads(environment("ferry"))
    one_task["tasks"] = one_task["tasks"][:1]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(one_task, schema)


def test_the_schema_holds_every_check_to_exactly_one_kind() -> None:
    """The tiny model answered checks with a name and nothing else, or with prose for a state
    pointer, which the grammar allowed and the world file refuses: the schema now has no room
    for them, nor for a check of two kinds."""
    schema = environment_schema(parse_input(json.dumps({"description": "a ferry API"})))
    check = {"$defs": schema["$defs"], "$ref": "#/$defs/Check"}
    state = {"name": "cancelled", "state": "/tickets/0/status", "equals": "cancelled"}
    called = {"name": "cancelled by id", "called": {"tool": "cancel_ticket"}}
    for valid in (state, called, {"name": "no refund", "not_called": {"tool": "refund"}}):
        jsonschema.validate(valid, check)
    pointless = {**state, "state": "the tickets"}
    for invalid in ({"name": "nothing"}, {**state, "called": {"tool": "cancel_ticket"}}, pointless):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(invalid, check)


def test_each_kind_of_line_names_its_environment(tmp_path: Path) -> None:
    lines = [
        {"description": "a ferry API", "domain": "terminal"},
        tool_list_input("kiosk", "kiosk"),
        openapi_input("meters", "meter"),
    ]
    path = tmp_path / "inputs.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n\n")
    described, tools, openapi = read_inputs(path)
    assert (described.kind, described.domain, described.imported) == (
        "description",
        "terminal",
        None,
    )
    assert described.id.startswith("env-") and described.id == parse_input(described.line).id
    assert tools.kind == "tools" and tools.imported is not None
    assert [t["name"] for t in tools.imported["tools"]] == [
        "list_kiosks",
        "cancel_kiosk",
        "create_kiosk",
    ]
    assert openapi.kind == "openapi" and "list_meters" in openapi.description


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("not json", "not JSON"),
        ("[1]", "a JSON object"),
        ('{"id": "x"}', 'give "description"'),
        ('{"description": "x", "domain": "moon"}', "domain 'moon'"),
        ('{"id": "bad id!", "description": "x"}', "not a world id"),
        ('{"tools": []}', "non-empty list"),
        ('{"tools": [{"name": "t"}]}', "not an MCP tool"),
    ],
)
def test_a_bad_line_is_refused_with_its_line_number(
    tmp_path: Path, line: str, problem: str
) -> None:
    path = tmp_path / "inputs.jsonl"
    path.write_text(json.dumps({"description": "fine"}) + "\n" + line + "\n")
    with pytest.raises(InputError, match=":2: ") as raised:
        read_inputs(path)
    assert problem in str(raised.value)


def test_two_lines_with_one_id_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "inputs.jsonl"
    line = json.dumps({"id": "same", "description": "x"})
    path.write_text(f"{line}\n{line}\n")
    with pytest.raises(InputError, match="also on line 1"):
        read_inputs(path)
