"""A world that validates can be served: its JSON Schemas, regexes and id patterns are checked
for what the server does with them, and refused at their place when it could not."""

from __future__ import annotations

import pytest

from mcp_sim.errors import SpecError, SpecProblem
from mcp_sim.simulator.core import Simulator
from mcp_sim.spec.loading import parse_world
from mcp_sim.spec.regexes import compile_regex
from tests.scripted_model import ScriptedModel

HEAD = """\
world: w
title: W
state:
  orders: [{id: ord_00001}]
entities:
  order: {collection: /orders}
tools:
  - name: t
    description: d
    input_schema:
      type: object
"""
FIXTURE = "fixtures:\n  - when: {tool: t, arguments: {key: k}}\n    result: {ok: true}\n"


def refusal(text: str) -> SpecProblem:
    with pytest.raises(SpecError) as caught:
        parse_world(text, "w.yaml")
    return caught.value.problems[0]


def at(text: str, needle: str) -> tuple[int, int]:
    offset = text.index(needle)
    return text.count("\n", 0, offset) + 1, offset - (text.rfind("\n", 0, offset) + 1) + 1


def schema_world(lines: str, fixture: bool = True) -> str:
    """HEAD with ``lines`` (indented YAML) added to t's input_schema, and a fixture of t."""
    return (
        HEAD
        + "".join(f"      {line}\n" for line in lines.splitlines())
        + (FIXTURE if fixture else "")
    )


@pytest.mark.parametrize(
    ("lines", "needle", "message"),
    [
        (
            "properties:\n  key: {$ref: '#/$defs/nope'}",
            "$ref",
            "$ref '#/$defs/nope' points at nothing",
        ),
        (
            "properties:\n  key: {$ref: 'https://example.com/s.json'}",
            "$ref",
            "mcp-sim fetches no schemas",
        ),
        (
            "$ref: '#/properties/key'\nproperties:\n  key: {$ref: '#'}",
            "$ref: '#'}",
            "references lead back",
        ),
        ("$schema: 5", "$schema", "$schema must be a string"),
        (
            "$schema: 'http://json-schema.org/draft-03/schema#'\nproperties:\n  key: {type: string, required: true}",
            "required: true",
            "Draft 2020-12 (the dialect the server validates with)",
        ),
        (
            "properties:\n  key: {type: string, pattern: 'a{9999999999}'}",
            "pattern",
            "not a usable regular",
        ),
        ("properties:\n  key: {type: string, pattern: '(a+)+$'}", "pattern", "exponential time"),
        ("patternProperties:\n  '(': {type: string}", "'('", "not a regular expression"),
    ],
)
def test_an_input_schema_the_server_could_not_use_is_refused_at_its_place(
    lines: str, needle: str, message: str
) -> None:
    text = schema_world(lines)
    problem = refusal(text)
    assert (problem.line, problem.column) == at(text, needle), problem
    assert problem.path.startswith("tools[0].input_schema")
    assert message in problem.message


def test_a_bad_pattern_in_the_state_schema_is_refused_at_the_pattern() -> None:
    text = HEAD + "state_schema:\n  properties:\n    orders: {pattern: 'x{2,1}'}\n"
    problem = refusal(text)
    assert (problem.line, problem.column, problem.path) == (
        *at(text, "pattern"),
        "state_schema.properties.orders.pattern",
    )


async def test_references_inside_the_schema_and_to_the_meta_schema_load_and_serve() -> None:
    text = schema_world(
        "$defs:\n  key: {type: string, pattern: '^k'}\n  node:\n    type: object\n"
        "    properties: {next: {$ref: '#/$defs/node'}}\n"
        "properties:\n  key: {$ref: '#/$defs/key'}\n  tree: {$ref: '#/$defs/node'}\n"
        "  meta: {$ref: 'https://json-schema.org/draft/2020-12/schema'}"
    )
    world = parse_world(text)
    simulator = Simulator(world, ScriptedModel())
    assert (await simulator.call("s", "t", {"key": "k"})).source == "fixture"
    refused = await simulator.call("s", "t", {"key": "x", "tree": {"next": {"next": 1}}})
    assert refused.is_error and refused.source == "validation"


def test_a_draft_07_schema_that_is_valid_2020_12_loads() -> None:
    text = schema_world(
        "$schema: 'http://json-schema.org/draft-07/schema#'\n"
        "definitions:\n  key: {type: string}\nproperties:\n  key: {$ref: '#/definitions/key'}"
    )
    assert parse_world(text).fixtures


@pytest.mark.parametrize(
    ("pattern", "message"),
    [
        ("a{9999999999}", "not a usable regular expression"),
        ("(" * 1000 + "a" + ")" * 1000, "nests groups more than 32 deep"),
        ("(x+x+)+y", "exponential time"),
        ("x" * 5000, "at most 4,000"),
        ("[", "not a regular expression"),
        # Fine alone, but the auditor looks for it inside a group, where flags cannot start.
        ("(?i)ord_[0-9]+", "global flags not at the start"),
    ],
)
def test_an_id_pattern_that_is_not_a_safe_regex_is_refused(pattern: str, message: str) -> None:
    text = HEAD.replace(
        "{collection: /orders}", f"{{collection: /orders, id_pattern: '{pattern}'}}"
    )
    problem = refusal(text)
    assert problem.path == "entities.order.id_pattern"
    assert message in problem.message


@pytest.mark.parametrize(
    ("pattern", "message"),
    [
        ("ord_{n:0999999999d}", "pads numbers to 999,999,999 digits (at most 32)"),
        ("ord_{n:0" + "9" * 200 + "d}", "at most 100"),
        ("ord_{n!r}", "exactly one {n} field"),
    ],
)
def test_an_ids_pattern_the_server_could_not_format_is_refused(pattern: str, message: str) -> None:
    problem = refusal(HEAD + f"ids: {{order: '{pattern}'}}\n")
    assert problem.path == "ids.order"
    assert message in problem.message


@pytest.mark.parametrize(
    "regex", [r"^ord_\d{5}$", r"(?:[A-Z0-9][A-Z0-9\-]*\.)+[A-Z]{2,}", r"(\d+,)+"]
)
def test_ordinary_regexes_compile(regex: str) -> None:
    assert compile_regex(regex).pattern == regex
