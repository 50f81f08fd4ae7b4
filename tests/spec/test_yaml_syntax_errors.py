"""A YAML syntax error is reported where the author has to look: a quote, ``[`` or ``{`` left
open where it opened (with where the parser gave up), a tab or a badly indented line where it
is; the same with libyaml's parser and the pure-Python one."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcp_sim.cli.main import main
from mcp_sim.errors import SpecError, SpecProblem
from mcp_sim.spec.yaml_reading import ReadingLimits, read_yaml

PARSERS = pytest.mark.parametrize("fast", [True, False], ids=["libyaml", "python"])

LATER_LINES = "domain: mcp\ntools:\n  - name: a\n    description: b\n"


def problem_of(text: str, *, fast: bool) -> SpecProblem:
    with pytest.raises(SpecError) as refused:
        read_yaml(text, "w.yaml", ReadingLimits(), fast=fast)
    [problem] = refused.value.problems
    assert problem.message.startswith("YAML syntax error: ")
    return problem


@PARSERS
@pytest.mark.parametrize("quote", ['"', "'"], ids=["double", "single"])
def test_an_unclosed_quote_is_reported_where_it_opened(fast: bool, quote: str) -> None:
    problem = problem_of(f"world: x\ntitle: {quote}abc\n{LATER_LINES}", fast=fast)
    assert (problem.line, problem.column) == (2, 8)
    assert problem.message.endswith(
        "unclosed quoted string (opened here; the parser reached the end of the file at 7:1)"
    )
    assert str(problem).startswith("w.yaml:2:8: YAML syntax error: unclosed quoted string")


@PARSERS
def test_a_quote_open_at_the_end_of_a_file_without_a_last_line_break(fast: bool) -> None:
    problem = problem_of('world: x\ntitle: "abc', fast=fast)
    assert (problem.line, problem.column) == (2, 8)
    assert "reached the end of the file at 2:12" in problem.message


@PARSERS
def test_a_quote_open_until_a_document_marker(fast: bool) -> None:
    problem = problem_of('world: x\ntitle: "abc\n---\nb: 1\n', fast=fast)
    assert (problem.line, problem.column) == (2, 8)
    assert "the parser reached '---' at 3:1" in problem.message


@PARSERS
@pytest.mark.parametrize(("opening", "closing"), [("[", "]"), ("{", "}")])
def test_an_unclosed_flow_collection_is_reported_where_it_opened(
    fast: bool, opening: str, closing: str
) -> None:
    items = "a, b" if opening == "[" else "a: 1, b: 2"
    problem = problem_of(f"world: x\ntools: {opening}{items}\n{LATER_LINES}", fast=fast)
    assert (problem.line, problem.column) == (2, 8)
    assert problem.message.endswith(
        f"unclosed '{opening}' (opened here; the parser expected ',' or '{closing}' at 3:7)"
    )


@PARSERS
def test_a_flow_collection_open_at_the_end_of_the_file(fast: bool) -> None:
    problem = problem_of("world: x\ntools: [{a: 1}, {b: 2}\n", fast=fast)
    assert (problem.line, problem.column) == (2, 8)
    assert "unclosed '[' (opened here; the parser reached the end of the file at 3:1)" in (
        problem.message
    )


@PARSERS
def test_a_key_without_its_colon_is_reported_on_its_line(fast: bool) -> None:
    problem = problem_of("world: x\ntitle abc\ndomain: mcp\n", fast=fast)
    assert (problem.line, problem.column) == (2, 1)
    assert "a key without its ':'" in problem.message


@PARSERS
def test_a_line_indented_deeper_than_its_key_is_reported_at_its_colon(fast: bool) -> None:
    problem = problem_of("world: x\n  title: abc\ndomain: mcp\n", fast=fast)
    assert (problem.line, problem.column) == (2, 8)
    assert "indented deeper than the key above it" in problem.message


@PARSERS
def test_a_badly_indented_line_is_reported_there_with_where_its_block_began(fast: bool) -> None:
    text = "world: x\ntools:\n  - name: a\n   description: b\n"
    problem = problem_of(text, fast=fast)
    assert (problem.line, problem.column) == (4, 4)
    assert "does not fit the block collection begun at 3:3 (check its indentation" in (
        problem.message
    )


@PARSERS
def test_a_tab_that_indents_is_reported_where_it_is(fast: bool) -> None:
    problem = problem_of("world: x\ntools:\n\t- name: a\n", fast=fast)
    assert (problem.line, problem.column) == (3, 1)
    assert "a tab character, where YAML allows only spaces" in problem.message


@PARSERS
def test_an_error_inside_a_string_stays_where_it_is(fast: bool) -> None:
    problem = problem_of('world: x\ntitle: "a\\qb"\n', fast=fast)
    # The escape is the problem, not the quote (the parsers count its column apart).
    assert problem.line == 2 and problem.column in (10, 11)
    assert "escape character" in problem.message and "begun at 2:8" in problem.message


def test_validate_prints_the_line_where_the_quote_opened(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    world = tmp_path / "w.yaml"
    world.write_text(f'world: x\ntitle: "abc\n{LATER_LINES}', encoding="utf-8")
    assert main(["validate", str(world)]) == 1
    assert capsys.readouterr().out == (
        f"{world}:2:8: YAML syntax error: unclosed quoted string (opened here; the parser "
        "reached the end of the file at 7:1)\n"
    )
