"""The loader's limits and refusals: what a hostile or careless world file gets instead of a
traceback or a hang, each at its file, line and column (issue 16's examples among them)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcp_sim.errors import SpecError, SpecProblem
from mcp_sim.spec.loading import load_world, parse_world
from mcp_sim.spec.yaml_reading import ReadingLimits, read_yaml
from tests.conftest import WORLDS
from tests.world_mutations import billion_laughs

TOOL = """\
world: w
title: W
tools:
  - name: t
    description: d
    input_schema:
      type: object
      properties:
        key: {type: string}
"""


def refusal(text: str, limits: ReadingLimits | None = None) -> SpecProblem:
    """The first problem of a world that must not load."""
    with pytest.raises(SpecError) as caught:
        parse_world(text, "w.yaml", limits)
    return caught.value.problems[0]


def at(text: str, needle: str) -> tuple[int, int]:
    offset = text.index(needle)
    return text.count("\n", 0, offset) + 1, offset - (text.rfind("\n", 0, offset) + 1) + 1


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("!!int abc", "'abc' is not a valid !!int"),
        ('!!int ""', "'' is not a valid !!int"),
        ("!!bool maybe", "'maybe' is not a valid !!bool"),
        ("!!timestamp 2024-05-01", "!!timestamp values are not allowed"),
        ("!!binary aGVsbG8=", "!!binary values are not allowed"),
        ("!!python/object:os.system x", "!!python/object:os.system values are not allowed"),
        ("!mine x", "!mine values are not allowed"),
        ("1" * 4301, "integer of 4,301 digits"),
        ("0x" + "f" * 4000, "integer of more than 4,000 digits"),
        (".nan", "is not a JSON number"),
        ("-.inf", "is not a JSON number"),
        ("{1: one}", "mapping key '1' is a !!int: keys must be strings"),
        ("{on: x}", "mapping key 'on' is a !!bool"),
    ],
)
def test_values_that_are_not_plain_json_are_refused_at_their_place(
    value: str, message: str
) -> None:
    text = TOOL.replace("title: W", f"title: {value}")
    problem = refusal(text)
    assert (problem.line, problem.column) == at(text, value.lstrip("{"))
    assert problem.path.startswith("title")
    assert message in problem.message


def test_a_hex_integer_is_a_number_and_an_equals_sign_is_text() -> None:
    world = parse_world(TOOL + "state: {mask: 0x1F, op: =}\n")
    assert world.state == {"mask": 31, "op": "="}


def test_merge_keys_still_work_and_are_no_duplicates() -> None:
    text = TOOL + "state:\n  base: &b {a: 1, b: 2}\n  item:\n    <<: *b\n    b: 3\n"
    assert parse_world(text).state["item"] == {"a": 1, "b": 3}


@pytest.mark.parametrize("fast", [True, False], ids=["libyaml", "python"])
def test_nesting_deeper_than_the_limit_is_refused_where_it_goes_too_deep(fast: bool) -> None:
    text = TOOL + "state: {deep: " + "[" * 1000 + "]" * 1000 + "}\n"
    with pytest.raises(SpecError) as caught:
        read_yaml(text, "w.yaml", ReadingLimits(), fast=fast)
    problem = caught.value.problems[0]
    line = text.count("\n")
    assert (problem.line, problem.column) == (line, len("state: {deep: ") + 63)
    assert "nest more than 64 deep" in problem.message


def test_nesting_up_to_the_limit_loads() -> None:
    # The world's mapping and its state are two levels; the lists make the other 62.
    text = TOOL + "state: {deep: " + "[" * 62 + "]" * 62 + "}\n"
    expected: list[object] = []
    for _ in range(61):
        expected = [expected]
    assert parse_world(text).state["deep"] == expected


@pytest.mark.parametrize("depth", [6, 9, 30])
def test_billion_laughs_are_refused_at_the_alias_that_breaks_the_limit(depth: int) -> None:
    problem = refusal(billion_laughs(depth))
    assert "aliases expand to more than 10,000 nodes" in problem.message
    assert problem.line > 3


def test_a_few_aliases_are_fine() -> None:
    text = TOOL + "state:\n  a: &a {x: [1, 2, 3]}\n  b: *a\n  c: *a\n"
    assert parse_world(text).state["c"] == {"x": [1, 2, 3]}


def test_an_alias_inside_the_node_it_names_is_refused() -> None:
    text = TOOL + "state: &s {self: *s}\n"
    problem = refusal(text)
    assert (problem.line, problem.column) == at(text, "*s")
    assert "contains itself" in problem.message


def test_the_size_limit_is_configurable(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    path = tmp_path / "w.yaml"
    path.write_text(TOOL + "description: " + "x" * 2_000_000 + "\n", encoding="utf-8")
    monkeypatch.setenv("MCP_SIM_WORLD_MAX_MB", "1")
    with pytest.raises(SpecError) as caught:
        load_world(path)
    assert "the limit is 1 MB (set MCP_SIM_WORLD_MAX_MB to raise it)" in str(caught.value)
    monkeypatch.setenv("MCP_SIM_WORLD_MAX_MB", "3")
    assert load_world(path).description.startswith("xxx")
    monkeypatch.setenv("MCP_SIM_WORLD_MAX_MB", "lots")
    with pytest.raises(SpecError, match="must be a number of MB"):
        load_world(path)


def test_bytes_that_are_not_utf8_are_reported_where_they_are(tmp_path: Path) -> None:
    path = tmp_path / "w.yaml"
    path.write_bytes(TOOL.encode() + "state: {city: 'Bergen – \xe9".encode() + b"\xff'}\n")
    with pytest.raises(SpecError) as caught:
        load_world(path)
    problem = caught.value.problems[0]
    assert (problem.line, problem.column) == (
        TOOL.count("\n") + 1,
        len("state: {city: 'Bergen – é") + 1,
    )
    assert "not UTF-8 text: byte 0xff" in problem.message


@pytest.mark.parametrize("fast", [True, False], ids=["libyaml", "python"])
@pytest.mark.parametrize("char", ["\x07", "\x1b", "\ufffe"])
def test_a_control_character_is_reported_where_it_is(fast: bool, char: str) -> None:
    text = TOOL + f"state: {{city: 'Ålesund{char}'}}\n"
    with pytest.raises(SpecError) as caught:
        read_yaml(text, "w.yaml", ReadingLimits(), fast=fast)
    problem = caught.value.problems[0]
    assert (problem.line, problem.column) == at(text, char)
    assert f"U+{ord(char):04X}" in problem.message


def test_the_end_of_a_file_without_a_last_line_break_is_inside_the_file() -> None:
    text = TOOL + "state: [1, 2"
    problem = refusal(text)
    # Reported where the '[' opened, with the end of the file where the parser gave up.
    last = text.count("\n") + 1
    assert (problem.line, problem.column) == (last, len("state: ["))
    assert f"reached the end of the file at {last}:{len('state: [1, 2') + 1})" in problem.message


@pytest.mark.parametrize("path", sorted(WORLDS.glob("*.yaml")), ids=lambda p: p.name)
def test_both_parsers_read_the_shipped_worlds_alike(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    _, fast, _ = read_yaml(text, path.name, ReadingLimits(), fast=True)
    _, slow, _ = read_yaml(text, path.name, ReadingLimits(), fast=False)
    assert fast == slow
