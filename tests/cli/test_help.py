"""Every command's ``--help`` starts with what the command does and ends with two examples, and
every example is a command line that parses, so that none of them goes stale as flags change."""

from __future__ import annotations

import argparse
import re
import shlex
from pathlib import Path

import pytest

from mcp_sim.cli.command import CliParser
from mcp_sim.cli.parser import build_parser

SHELL_OPERATORS = {"|", "&&", "||"}
PATH_LIKE = re.compile(r"^[\w./-]+\.(jsonl|json|yaml|db|py)$")
"""An example's argument that names a file: the parse test makes it, for flags that want one
that exists (``--journal``, ``--world-memory``)."""


def command_parsers() -> list[tuple[str, CliParser]]:
    """Every parser of ``mcp-sim``, by the words that select it: ``""`` for the command itself,
    ``"serve"``, ``"engine"``, ``"engine start"``..."""
    found: list[tuple[str, CliParser]] = []
    pending: list[tuple[str, CliParser]] = [("", build_parser())]
    while pending:
        words, parser = pending.pop(0)
        found.append((words, parser))
        for action in parser._actions:
            # argparse has no public way to list a parser's subcommands.
            if isinstance(action, argparse._SubParsersAction):
                pending += [
                    (f"{words} {name}".strip(), sub) for name, sub in action.choices.items()
                ]
    return found


PARSERS = command_parsers()
IDS = [f"mcp-sim {words}".strip() for words, _ in PARSERS]


def example_argv(command: str) -> list[str]:
    """The arguments of an example's ``mcp-sim`` command, up to a shell operator."""
    tokens = shlex.split(command)
    assert tokens[0] == "mcp-sim", command
    argv: list[str] = []
    for token in tokens[1:]:
        if token in SHELL_OPERATORS:
            break
        if token.endswith(";"):
            argv.append(token[:-1])
            break
        argv.append(token)
    return argv


def test_every_command_and_group_is_walked() -> None:
    words = {w for w, _ in PARSERS}
    assert {"serve", "ui", "verify", "engine install", "world export", "harness trl"} <= words
    assert len(PARSERS) > 20


@pytest.mark.parametrize(("words", "parser"), PARSERS, ids=IDS)
def test_help_starts_with_what_the_command_does(words: str, parser: CliParser) -> None:
    assert parser.description, f"mcp-sim {words} has no description"
    sentences = re.findall(r"[.!?](?:\s|$)", parser.description)
    assert parser.description.endswith(".") and 1 <= len(sentences) <= 2, parser.description
    shown = " ".join(parser.format_help().split())
    described = " ".join(parser.description.split())
    # The description comes right after the usage, before the arguments.
    assert described in shown
    assert shown.index(described) < shown.index("options:")


@pytest.mark.parametrize(("words", "parser"), PARSERS, ids=IDS)
def test_help_ends_with_two_examples(words: str, parser: CliParser) -> None:
    shown = parser.format_help()
    before, examples_block = shown.split("\nexamples:\n")
    assert "options:" in before
    commands = [
        line.strip()
        for line in examples_block.splitlines()
        if line.strip() and not line.strip().startswith("#")
    ]
    assert len(commands) == 2, examples_block
    assert all(command.startswith("mcp-sim ") for command in commands), commands
    # Each is said what it does, and printed as written (not wrapped).
    assert examples_block.count("  # ") == 2
    assert commands == [example.command for example in parser.help_examples]
    assert commands[0].startswith(f"mcp-sim {words}".strip())


@pytest.mark.parametrize(("words", "parser"), PARSERS, ids=IDS)
def test_every_example_parses(
    words: str, parser: CliParser, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    for example in parser.help_examples:
        argv = example_argv(example.command)
        for token in argv:
            if PATH_LIKE.match(token):
                (tmp_path / token).parent.mkdir(parents=True, exist_ok=True)
                (tmp_path / token).touch()
        try:
            args = build_parser().parse_args(argv)
        except SystemExit:
            pytest.fail(f"the example does not parse: {example.command}")
        # It runs the command its words name.
        command_parser: CliParser = args.command_parser
        selected = command_parser.prog.split()[1:]
        assert argv[: len(selected)] == selected, example.command
