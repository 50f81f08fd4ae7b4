"""``--example NAME`` in place of a world file, on every command that reads one: the same world
as the file, and the same one-line usage errors (exit status 2) when a command is given both,
neither, or an example that is not there."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest

from mcp_sim.cli.main import main
from mcp_sim.cli.parser import build_parser
from mcp_sim.spec.world import World
from mcp_sim.spec.world_files import example_names, example_path
from tests.cli.test_cli import DEAD_MODEL, cli
from tests.scoring.test_scoring import tent_episode

EXAMPLE = example_path("bookstore")
SOME_FILE = str(EXAMPLE)
"""Any file that is there, for flags whose file is only checked to exist while parsing."""


@dataclass(frozen=True)
class WorldCommand:
    """A command that reads a world: its flags before and after the world, and where its
    configuration keeps the world."""

    before: tuple[str, ...]
    after: tuple[str, ...] = ()
    flag: str | None = None
    """``--world`` where the world is given by a flag; None for a positional world."""
    world_of: Callable[[Any], Path] = lambda config: Path(config.world)
    both_allowed: bool = False
    """Serve and validate take files and examples together."""
    none_allowed: bool = False
    """``perturbations`` without a world lists the built-in profiles."""

    def argv(self, *, world: str | None = None, example: str | None = None) -> list[str]:
        given: list[str] = []
        if world is not None:
            given += [self.flag, world] if self.flag is not None else [world]
        if example is not None:
            given += ["--example", example]
        return [*self.before, *given, *self.after]


COMMANDS = {
    "call": WorldCommand(("call",), ("get_book",)),
    "validate": WorldCommand(
        ("validate",), world_of=lambda config: Path(config.files[0]), both_allowed=True
    ),
    "serve": WorldCommand(("serve",), world_of=lambda config: config.worlds[0], both_allowed=True),
    "ui": WorldCommand(("ui",), world_of=lambda config: config.worlds[0], both_allowed=True),
    "verify": WorldCommand(("verify", "--journal", SOME_FILE)),
    "eval": WorldCommand(("eval", "--journal", SOME_FILE), flag="--world"),
    "export": WorldCommand(
        ("export", "--journal", SOME_FILE, "--format", "sft", "-o", "out.jsonl"), flag="--world"
    ),
    "harness trl": WorldCommand(("harness", "trl")),
    "harness inspect": WorldCommand(("harness", "inspect")),
    "perturbations": WorldCommand(
        ("perturbations",), world_of=lambda config: config.world, none_allowed=True
    ),
    "world export": WorldCommand(("world", "export", "--world-memory", SOME_FILE)),
}


def _config(argv: list[str]) -> Any:
    """The command's typed configuration, read from ARGV as ``main`` reads it."""
    args: argparse.Namespace = build_parser().parse_args(argv)
    return args.handler.read(args)


def _usage_error(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    with pytest.raises(SystemExit) as exited:
        main(argv)
    err = capsys.readouterr().err
    assert exited.value.code == 2, argv
    assert len(err.splitlines()) == 1, err
    return err


@pytest.mark.parametrize("name", COMMANDS)
def test_an_example_stands_for_its_world_file(name: str) -> None:
    command = COMMANDS[name]
    from_file = _config(command.argv(world=str(EXAMPLE)))
    from_example = _config(command.argv(example="bookstore"))
    assert command.world_of(from_example) == command.world_of(from_file) == EXAMPLE


@pytest.mark.parametrize("name", [n for n, c in COMMANDS.items() if not c.both_allowed])
def test_a_world_file_and_an_example_together_are_a_usage_error(
    capsys: pytest.CaptureFixture[str], name: str
) -> None:
    command = COMMANDS[name]
    err = _usage_error(capsys, command.argv(world=str(EXAMPLE), example="shop"))
    assert "argument --example: give a world file or --example NAME, not both" in err


@pytest.mark.parametrize("name", [n for n, c in COMMANDS.items() if not c.none_allowed])
def test_neither_a_world_file_nor_an_example_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], name: str
) -> None:
    err = _usage_error(capsys, COMMANDS[name].argv())
    assert "--example NAME" in err


@pytest.mark.parametrize("name", COMMANDS)
def test_an_unknown_example_is_a_usage_error_that_lists_the_examples(
    capsys: pytest.CaptureFixture[str], name: str
) -> None:
    err = _usage_error(capsys, COMMANDS[name].argv(example="atlantis"))
    assert "argument --example: no example world 'atlantis'" in err
    assert f"(examples: {', '.join(example_names())})" in err


def test_call_answers_from_an_example_world(
    capsys: pytest.CaptureFixture[str], bookstore: World
) -> None:
    # A fixture answers this call: no model is needed, and the dead one is never asked.
    args = ("--args", '{"query": "glass"}', *DEAD_MODEL)
    before = cli(capsys, "call", "--example", "bookstore", "search_books", *args)
    after = cli(capsys, "call", "search_books", "--example", "bookstore", *args)
    from_file = cli(capsys, "call", str(EXAMPLE), "search_books", *args)
    assert before.code == after.code == from_file.code == 0
    assert json.loads(before.out) == json.loads(after.out) == bookstore.fixtures[1].result
    assert before.out == from_file.out


def test_call_takes_options_between_its_world_file_and_its_tool(
    capsys: pytest.CaptureFixture[str], bookstore: World
) -> None:
    """The world became optional; a flag after it must still leave the tool its place."""
    run = cli(capsys, "call", str(EXAMPLE), "--args", '{"query": "glass"}', "search_books",
              *DEAD_MODEL)  # fmt: skip
    assert run.code == 0, run.err
    assert json.loads(run.out) == bookstore.fixtures[1].result


def test_call_with_a_world_file_but_no_tool_says_both_are_needed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    err = _usage_error(capsys, ["call", str(EXAMPLE)])
    assert "give a world file and a tool, or --example NAME and a tool" in err


def test_validate_checks_examples_beside_files(capsys: pytest.CaptureFixture[str]) -> None:
    run = cli(capsys, "validate", str(example_path("shop")), "--example", "bookstore")
    assert run.code == 0
    assert run.out.splitlines() == [
        f"{example_path('shop')}: ok (tidewater-orders, 5 tools, domain mcp)",
        f"{EXAMPLE}: ok (paperlane-books, 4 tools, domain mcp)",
    ]


def test_verify_scores_a_journal_of_an_example_world(
    capsys: pytest.CaptureFixture[str], shop: World, tmp_path: Path
) -> None:
    journal = tmp_path / "j.jsonl"
    anyio.run(tent_episode, shop, journal)
    run = cli(capsys, "verify", "--example", "shop", "--journal", str(journal), "--task",
              "tent-for-ola")  # fmt: skip
    assert run.code == 0, run.err
    assert json.loads(run.out)["reward"] == 1.0


def test_harness_shims_of_an_example_world(capsys: pytest.CaptureFixture[str]) -> None:
    trl = cli(capsys, "harness", "trl", "--example", "bookstore")
    assert trl.code == 0 and trl.out == cli(capsys, "harness", "trl", str(EXAMPLE)).out
    inspect = cli(capsys, "harness", "inspect", "--example", "bookstore")
    assert inspect.code == 0
    # The task's docstring tells how to serve the world: by the name it was given.
    assert "    mcp-sim serve --example bookstore --http 127.0.0.1:8765 " in inspect.out
