"""Loading world files: every problem is reported with its file, line, column and field path."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import yaml

from mcp_sim.errors import SpecError, SpecProblem
from mcp_sim.spec.loading import load_world, parse_world
from mcp_sim.spec.world import world_json_schema
from tests.conftest import ROOT, WORLDS, WorldWriter

TINY = """\
world: tiny
title: Tiny world
tools:
  - name: lookup
    description: Look a thing up.
    input_schema:
      type: object
      properties:
        key: {type: string}
      required: [key]
    output_schema:
      type: object
      properties:
        value: {type: integer}
      required: [value]
"""

SECOND_TOOL = """\
  - name: lookup
    description: The same name again.
    input_schema: {type: object}
"""


def problems_in(text: str, file: str = "tiny.yaml") -> list[SpecProblem]:
    with pytest.raises(SpecError) as info:
        parse_world(text, file)
    return info.value.problems


def position(text: str, needle: str) -> tuple[int, int]:
    """1-based line and column of the first occurrence of ``needle`` in ``text``."""
    offset = text.index(needle)
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, column


def where(problem: SpecProblem) -> tuple[int, int, str]:
    return problem.line, problem.column, problem.path


def only(problems: list[SpecProblem]) -> SpecProblem:
    assert len(problems) == 1, problems
    return problems[0]


@pytest.mark.parametrize("path", sorted(WORLDS.glob("*.yaml")), ids=lambda p: p.name)
def test_every_world_in_the_repository_loads(path: Path) -> None:
    world = load_world(path)
    assert world.tools


def test_bookstore_loads_with_its_tools_fixtures_and_state() -> None:
    world = load_world(WORLDS / "bookstore.yaml")
    assert [t.name for t in world.tools] == [
        "search_books",
        "get_book",
        "place_order",
        "cancel_order",
    ]
    place_order = world.tool("place_order")
    assert place_order is not None and place_order.effect == "write"
    assert world.tool("no_such_tool") is None
    assert len(world.fixtures) == 3
    assert {book["id"] for book in world.state["books"]} == {"b1", "b2", "b3", "b4"}


def test_tiny_world_is_valid() -> None:
    assert parse_world(TINY).world == "tiny"


def test_misspelled_top_level_key_is_reported_at_the_key() -> None:
    text = TINY.replace("title: Tiny world\n", "title: Tiny world\ndescripton: typo\n")
    problem = only(problems_in(text))
    assert where(problem) == (*position(text, "descripton"), "descripton")
    assert problem.file == "tiny.yaml"


def test_misspelled_tool_key_is_reported_with_its_path() -> None:
    text = TINY.replace("    description: Look", "    efect: write\n    description: Look")
    assert where(only(problems_in(text))) == (*position(text, "efect"), "tools[0].efect")


def test_missing_top_level_key_points_at_the_mapping_that_lacks_it() -> None:
    text = TINY.replace("title: Tiny world\n", "")
    assert where(only(problems_in(text))) == (1, 1, "title")


def test_missing_tool_key_points_at_the_tool() -> None:
    text = TINY.replace("    description: Look a thing up.\n", "")
    assert where(only(problems_in(text))) == (
        *position(text, "name: lookup"),
        "tools[0].description",
    )


def test_invalid_type_in_input_schema_points_at_the_bad_value() -> None:
    text = TINY.replace("key: {type: string}", "key: {type: strin}")
    problem = only(problems_in(text))
    assert where(problem) == (
        *position(text, "type: strin"),
        "tools[0].input_schema.properties.key.type",
    )
    assert "strin" in problem.message


def test_input_schema_whose_root_is_not_an_object_is_rejected() -> None:
    text = TINY.replace(
        "    input_schema:\n      type: object", "    input_schema:\n      type: array"
    )
    assert where(only(problems_in(text))) == (
        *position(text, "type: array"),
        "tools[0].input_schema.type",
    )


def test_input_schema_without_a_type_is_rejected_at_the_schema() -> None:
    text = TINY.replace("    input_schema:\n      type: object\n", "    input_schema:\n")
    assert where(only(problems_in(text))) == (
        *position(text, "input_schema"),
        "tools[0].input_schema",
    )


def test_invalid_output_schema_is_reported_under_output_schema() -> None:
    text = TINY.replace("value: {type: integer}", "value: {type: int}")
    assert where(only(problems_in(text))) == (
        *position(text, "type: int}"),
        "tools[0].output_schema.properties.value.type",
    )


@pytest.mark.parametrize("name", ["look up", "lookup!", "", "x" * 65])
def test_bad_tool_name_is_rejected(name: str) -> None:
    text = TINY.replace("name: lookup", f"name: {json.dumps(name)}")
    assert where(only(problems_in(text))) == (*position(text, "name: "), "tools[0].name")


def test_duplicate_tool_names_are_reported_at_the_second_tool() -> None:
    text = TINY + SECOND_TOOL
    assert where(only(problems_in(text))) == (
        *position(text, "name: lookup\n    description: The same"),
        "tools[1].name",
    )


def test_duplicate_yaml_keys_are_reported_at_the_repeated_key() -> None:
    text = TINY.replace("title: Tiny world\n", "title: Tiny world\ntitle: Other world\n")
    assert where(only(problems_in(text))) == (*position(text, "title: Other"), "title")


def test_broken_yaml_is_reported_at_the_syntax_error() -> None:
    text = TINY.replace("title: Tiny world", "title: Tiny: world")
    problem = only(problems_in(text))
    assert (problem.line, problem.column, problem.path) == (*position(text, ": world"), "")
    assert problem.file == "tiny.yaml"


@pytest.mark.parametrize("text", ["", "- just\n- a list\n", "plain text\n"])
def test_a_file_that_is_not_a_mapping_is_rejected(text: str) -> None:
    assert where(only(problems_in(text))) == (1, 1, "")


def test_fixture_naming_an_unknown_tool_is_rejected() -> None:
    text = TINY + "fixtures:\n  - when: {tool: nope, arguments: {key: a}}\n    result: {value: 1}\n"
    problem = only(problems_in(text))
    assert where(problem) == (*position(text, "tool: nope"), "fixtures[0].when.tool")
    assert "nope" in problem.message


def test_fixture_arguments_must_satisfy_the_input_schema() -> None:
    text = (
        TINY + "fixtures:\n  - when: {tool: lookup, arguments: {key: 7}}\n    result: {value: 1}\n"
    )
    assert where(only(problems_in(text))) == (
        *position(text, "key: 7"),
        "fixtures[0].when.arguments.key",
    )


def test_fixture_with_missing_required_argument_points_at_the_arguments() -> None:
    text = TINY + "fixtures:\n  - when: {tool: lookup, arguments: {}}\n    result: {value: 1}\n"
    assert where(only(problems_in(text))) == (
        *position(text, "arguments: {}"),
        "fixtures[0].when.arguments",
    )


def test_fixture_result_must_satisfy_the_output_schema() -> None:
    text = (
        TINY
        + "fixtures:\n  - when: {tool: lookup, arguments: {key: a}}\n    result: {value: many}\n"
    )
    assert where(only(problems_in(text))) == (
        *position(text, "value: many"),
        "fixtures[0].result.value",
    )


def test_error_fixture_result_is_not_checked_against_the_output_schema() -> None:
    text = (
        TINY
        + "fixtures:\n  - when: {tool: lookup, arguments: {key: a}}\n"
        + "    result: 'not_found: no such key'\n    is_error: true\n"
    )
    assert parse_world(text).fixtures[0].is_error


def test_several_problems_are_reported_together_in_file_order() -> None:
    text = (
        TINY.replace("title: Tiny world", "titel: Tiny world")
        .replace("key: {type: string}", "key: {type: strin}")
        .replace("      required: [value]", "      required: [value]\n      required: [value]")
    )
    found = problems_in(text)
    assert [p.path for p in found] == [
        "title",
        "titel",
        "tools[0].input_schema.properties.key.type",
        "tools[0].output_schema.required",
    ]
    assert [p.line for p in found] == sorted(p.line for p in found)
    with pytest.raises(SpecError) as info:
        parse_world(text, "tiny.yaml")
    assert str(info.value).splitlines() == [str(p) for p in found]
    assert all(str(p).startswith(f"tiny.yaml:{p.line}:{p.column}: {p.path}: ") for p in found)


def test_problems_between_tools_and_fixtures_are_reported_together() -> None:
    text = (
        TINY
        + SECOND_TOOL
        + "fixtures:\n"
        + "  - when: {tool: nope}\n    result: {value: 1}\n"
        + "  - when: {tool: lookup, arguments: {key: 7}}\n    result: {value: 1}\n"
    )
    assert [p.path for p in problems_in(text)] == [
        "tools[1].name",
        "fixtures[0].when.tool",
        "fixtures[1].when.arguments.key",
    ]


def test_dates_and_times_in_yaml_stay_strings() -> None:
    text = TINY + "state:\n  opened: 2024-05-01\n  at: 2024-05-01T10:00:00Z\n"
    world = parse_world(text)
    assert world.state == {"opened": "2024-05-01", "at": "2024-05-01T10:00:00Z"}


def test_load_world_reports_the_file_it_read(write_world: WorldWriter) -> None:
    path = write_world(TINY.replace("title: Tiny world\n", "title: Tiny world\ncolour: red\n"))
    with pytest.raises(SpecError) as info:
        load_world(path)
    problem = only(info.value.problems)
    assert (problem.file, problem.line, problem.path) == (str(path), 3, "colour")


def test_load_world_reports_a_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "absent.yaml"
    with pytest.raises(SpecError) as info:
        load_world(path)
    assert where(only(info.value.problems)) == (1, 1, "")
    assert info.value.problems[0].file == str(path)


def test_schema_file_is_up_to_date() -> None:
    on_disk = json.loads((ROOT / "schemas" / "world.schema.json").read_text(encoding="utf-8"))
    assert on_disk == world_json_schema(), (
        "schemas/world.schema.json is stale: run `mcp-sim schema -o schemas/world.schema.json`"
    )


@pytest.mark.parametrize("path", sorted(WORLDS.glob("*.yaml")), ids=lambda p: p.name)
def test_every_world_satisfies_the_published_schema(path: Path) -> None:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    jsonschema.validate(json.loads(json.dumps(data, default=str)), world_json_schema())


def test_published_schema_rejects_a_misspelled_key() -> None:
    data = yaml.safe_load(TINY)
    data["descripton"] = "typo"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(data, world_json_schema())


def test_content_hash_is_stable_across_loads_and_formatting() -> None:
    block = TINY + "state:\n  a: 1\n  b: [x, y]\n"
    flow = TINY + "state: {b: [x, y], a: 1}\n"
    first = parse_world(block).content_hash()
    assert first == parse_world(block).content_hash()
    assert first == parse_world(flow).content_hash()
    assert len(first) == 16 and int(first, 16) >= 0


def test_content_hash_changes_with_the_content() -> None:
    changed = TINY.replace("Look a thing up.", "Look a thing up, carefully.")
    assert parse_world(TINY).content_hash() != parse_world(changed).content_hash()
