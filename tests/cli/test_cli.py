"""The ``mcp-sim`` command. The checks a user relies on (exit codes, ``FILE:LINE:COL`` lines,
no tracebacks) run it as a real subprocess; the rest call ``main()`` in-process for speed."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from mcp_sim.api.assembly import Resolved
from mcp_sim.cli.main import main
from mcp_sim.cli.parser import build_parser
from mcp_sim.cli.settings_flags import read_settings
from mcp_sim.journal import read_journal
from mcp_sim.models.base import Sampling
from mcp_sim.settings import PromptSettings
from mcp_sim.settings.model import EMBEDDED_MAX_TOKENS
from mcp_sim.spec.world import World, world_json_schema
from tests.conftest import BOOKSTORE, ROOT, WorldWriter
from tests.processes import run_cli

DEAD_MODEL = ["--model-url", "http://127.0.0.1:9/v1", "--timeout", "5", "--retries", "0"]
PROBLEM_LINE = re.compile(
    r"^(?P<file>[^:]+):(?P<line>\d+):(?P<column>\d+): (?P<path>[A-Za-z_][\w.\[\]]*): (?P<message>\S.*)$"
)

VALID = """\
world: tiny
title: Tiny world
tools:
  - name: lookup
    description: Look a thing up.
    input_schema: {type: object, properties: {key: {type: string}}, required: [key]}
"""

BROKEN = """\
world: tiny
title: Tiny world
colour: blue
tools:
  - name: look up
    description: Look a thing up.
    input_schema: {type: object, properties: {key: {type: strng}}}
"""
BROKEN_PROBLEMS = [
    (3, 1, "colour"),
    (5, 5, "tools[0].name"),
    (7, 53, "tools[0].input_schema.properties.key.type"),
]


@dataclass
class Run:
    code: int
    out: str
    err: str


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> Run:
    """``main(ARGS)`` in-process."""
    try:
        code = main(list(args))
    except SystemExit as exc:
        code = int(exc.code or 0)
    captured = capsys.readouterr()
    return Run(code, captured.out, captured.err)


def problems(text: str) -> list[tuple[str, int, int, str]]:
    found = []
    for line in text.splitlines():
        match = PROBLEM_LINE.match(line)
        assert match is not None, f"not FILE:LINE:COL: path: message: {line!r}"
        found.append((match["file"], int(match["line"]), int(match["column"]), match["path"]))
    return found


# --- validate --------------------------------------------------------------------------------


def test_validate_accepts_good_files(write_world: WorldWriter) -> None:
    tiny = write_world(VALID)
    run = run_cli("validate", str(BOOKSTORE.relative_to(ROOT)), str(tiny))
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("worlds/bookstore.yaml: ok")
    assert lines[1].startswith(f"{tiny}: ok")


def test_validate_reports_each_problem_as_file_line_col_path_message(
    write_world: WorldWriter,
) -> None:
    broken = write_world(BROKEN, "broken.yaml")
    run = run_cli("validate", str(broken))
    assert run.returncode == 1
    assert problems(run.stdout) == [(str(broken), *where) for where in BROKEN_PROBLEMS]
    assert "Traceback" not in run.stderr


def test_validate_checks_every_file_and_fails_if_any_is_broken(
    capsys: pytest.CaptureFixture[str], write_world: WorldWriter
) -> None:
    broken = write_world(BROKEN, "broken.yaml")
    good = write_world(VALID, "good.yaml")
    run = cli(capsys, "validate", str(broken), str(good))
    assert run.code == 1
    *problem_lines, ok_line = run.out.splitlines()
    assert [p[0] for p in problems("\n".join(problem_lines))] == [str(broken)] * 3
    assert ok_line.startswith(f"{good}: ok")


def test_validate_reports_yaml_syntax_errors_with_their_position(
    capsys: pytest.CaptureFixture[str], write_world: WorldWriter
) -> None:
    broken = write_world("world: tiny\ntitle: [unclosed\n", "syntax.yaml")
    run = cli(capsys, "validate", str(broken))
    assert run.code == 1
    (line,) = run.out.splitlines()
    assert re.match(rf"^{re.escape(str(broken))}:\d+:\d+: \S", line), line


def test_validate_reports_a_missing_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    missing = tmp_path / "absent.yaml"
    run = cli(capsys, "validate", str(missing))
    assert run.code == 1
    assert run.out.startswith(f"{missing}:1:1: ")


# --- schema ----------------------------------------------------------------------------------


def test_schema_prints_the_world_json_schema() -> None:
    run = run_cli("schema")
    assert run.returncode == 0
    assert json.loads(run.stdout) == world_json_schema()


def test_schema_writes_the_file_it_is_given(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    target = tmp_path / "world.schema.json"
    run = cli(capsys, "schema", "-o", str(target))
    assert (run.code, run.out) == (0, "")
    assert json.loads(target.read_text(encoding="utf-8")) == world_json_schema()
    assert target.read_text(encoding="utf-8") == (ROOT / "schemas" / "world.schema.json").read_text(
        encoding="utf-8"
    )


# --- call ------------------------------------------------------------------------------------


def test_call_with_a_fixture_prints_the_observation(bookstore: World) -> None:
    run = run_cli(
        "call", "worlds/bookstore.yaml", "search_books", "--args", '{"query": "glass"}', *DEAD_MODEL
    )
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == bookstore.fixtures[1].result


def test_call_with_bad_args_json_exits_2_with_a_clear_message() -> None:
    run = run_cli(
        "call", "worlds/bookstore.yaml", "search_books", "--args", "{query: glass", *DEAD_MODEL
    )
    assert run.returncode == 2
    assert run.stdout == ""
    assert "--args" in run.stderr and "JSON" in run.stderr
    assert "Traceback" not in run.stderr


def test_call_with_args_that_are_not_an_object_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    run = cli(capsys, "call", str(BOOKSTORE), "search_books", "--args", '["glass"]', *DEAD_MODEL)
    assert run.code == 2
    assert "--args" in run.err


def test_call_of_an_unknown_tool_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    run = cli(capsys, "call", str(BOOKSTORE), "launch_rockets", *DEAD_MODEL)
    assert run.code == 2
    assert run.out == ""
    assert "launch_rockets" in run.err


def test_call_with_invalid_arguments_prints_the_error_and_exits_1(
    capsys: pytest.CaptureFixture[str],
) -> None:
    run = cli(capsys, "call", str(BOOKSTORE), "search_books", "--args", '{"query": 1}', *DEAD_MODEL)
    assert run.code == 1
    assert "query" in run.out


def test_call_that_needs_a_dead_model_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    run = cli(
        capsys, "call", str(BOOKSTORE), "get_book", "--args", '{"book_id": "b1"}', *DEAD_MODEL
    )
    assert run.code == 1
    assert run.out.strip()


def test_call_on_a_broken_world_reports_its_problems(
    capsys: pytest.CaptureFixture[str], write_world: WorldWriter
) -> None:
    broken = write_world(BROKEN, "broken.yaml")
    run = cli(capsys, "call", str(broken), "lookup", *DEAD_MODEL)
    assert run.code == 1
    assert problems(run.err) == [(str(broken), *where) for where in BROKEN_PROBLEMS]


def test_call_appends_to_the_journal(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    journal = tmp_path / "calls.jsonl"
    args = ["call", str(BOOKSTORE), "search_books", "--args", '{"query": "antarctica"}']
    run = cli(capsys, *args, "--journal", str(journal), *DEAD_MODEL)
    assert run.code == 0
    (record,) = read_journal(journal)
    assert (record.tool, record.source, record.step) == ("search_books", "fixture", 1)


def test_call_answered_without_the_model_starts_no_model(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, bookstore: World
) -> None:
    def no_model(*args: object) -> None:
        raise AssertionError("mcp-sim call started a world model it did not need")

    monkeypatch.setattr("mcp_sim.api.model_launch.LaunchingModel.start", no_model)
    pinned = cli(capsys, "call", str(BOOKSTORE), "search_books", "--args", '{"query": "glass"}')
    assert (pinned.code, json.loads(pinned.out)) == (0, bookstore.fixtures[1].result)
    invalid = cli(capsys, "call", str(BOOKSTORE), "search_books", "--args", "{}")
    assert invalid.code == 1
    unknown = cli(capsys, "call", str(BOOKSTORE), "launch_rockets")
    assert unknown.code == 2


def _parsed(*argv: str) -> Resolved:
    args = build_parser().parse_args(["call", str(BOOKSTORE), "get_book", *argv])
    return Resolved.of(read_settings(args))


def test_the_embedded_model_gets_small_model_options_by_default() -> None:
    resolved = _parsed()
    options = resolved.settings.prompt
    assert options.bounds is not None
    assert not options.model_seeds
    assert options.history_budget == 3000
    assert resolved.default_sampling == Sampling(max_tokens=EMBEDDED_MAX_TOKENS)


def test_a_model_url_gets_the_full_model_options_by_default() -> None:
    resolved = _parsed(*DEAD_MODEL)
    options = resolved.settings.prompt
    assert options.bounds is None
    assert options.model_seeds
    assert options.history_budget == PromptSettings().history_budget
    assert resolved.default_sampling is None


def test_small_model_options_can_be_switched_either_way() -> None:
    on = _parsed(*DEAD_MODEL, "--bounded-output", "--no-model-seeds").settings.prompt
    assert on.bounds is not None and not on.model_seeds
    off = _parsed("--no-bounded-output", "--model-seeds", "--history-budget", "900")
    prompt = off.settings.prompt
    assert prompt.bounds is None and prompt.model_seeds and prompt.history_budget == 900
