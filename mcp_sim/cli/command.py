"""How a subcommand is declared: the parser class every command uses, and the record that ties
a command's typed configuration (whose fields declare its flags, see
:mod:`mcp_sim.cli.arguments`) to its handler."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, NoReturn, TypeAlias, TypeVar

from mcp_sim.cli.arguments import CommandConfig, add_arguments

Config = TypeVar("Config", bound=CommandConfig)


@dataclass(frozen=True)
class Command(Generic[Config]):
    """A subcommand's two halves: its typed, frozen configuration, read from the parsed flags,
    and ``run``, which does the work and returns the exit status."""

    config: type[Config]
    run: Callable[[Config], int]

    def read(self, args: argparse.Namespace) -> Config:
        return self.config.from_args(args)

    def __call__(self, args: argparse.Namespace) -> int:
        return self.run(self.read(args))


@dataclass(frozen=True)
class HelpExample:
    """One use of a command for its ``--help``: the command line as typed (starting with
    ``mcp-sim``) and what it does."""

    command: str
    does: str


def examples_epilog(examples: Sequence[HelpExample]) -> str:
    """The examples block that ends a command's help, each command under what it does."""
    blocks = [f"  # {example.does}\n  {example.command}" for example in examples]
    return "examples:\n" + "\n\n".join(blocks)


class CliParser(argparse.ArgumentParser):
    """An argument parser whose errors are one line on stderr and exit status 2: a bad value
    names its flag and says what was expected, without the usage block argparse prints.

    ``intermixed`` parses the options first and the positionals after, from wherever they
    stand. A command whose optional positional comes before a required one (``call [WORLD]
    TOOL``) needs it: otherwise Python 3.11's argparse lets the first positional alone take the
    tool's place when an option follows it (``call WORLD --args JSON TOOL``)."""

    def __init__(
        self,
        *args: Any,
        intermixed: bool = False,
        examples: Sequence[HelpExample] = (),
        **kwargs: Any,
    ) -> None:
        if examples:
            kwargs["epilog"] = examples_epilog(examples)
        super().__init__(*args, **kwargs)
        self.intermixed = intermixed
        self.help_examples = tuple(examples)
        self._in_intermixed = False

    def parse_known_args(
        self, args: Iterable[str] | None = None, namespace: Any = None
    ) -> tuple[Any, list[str]]:
        # parse_known_intermixed_args calls this method for each of its two passes.
        if not self.intermixed or self._in_intermixed:
            return super().parse_known_args(args, namespace)
        self._in_intermixed = True
        try:
            return self.parse_known_intermixed_args(None if args is None else list(args), namespace)
        finally:
            self._in_intermixed = False

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


Subcommands: TypeAlias = "argparse._SubParsersAction[CliParser]"
"""What ``add_subparsers`` returns: argparse has no public name for it."""


class HelpFormatter(argparse.HelpFormatter):
    """argparse's help, wider (flag names and their help side by side up to 32 columns). A
    description or epilog of several lines (the examples) is printed as written; one of a
    single line is wrapped to the terminal."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog, max_help_position=32)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if "\n" not in text:
            return super()._fill_text(text, width, indent)
        return "".join(indent + line for line in text.splitlines(keepends=True))


def add_command(
    subcommands: Subcommands,
    name: str,
    command: Command[Any],
    *,
    help: str,
    description: str,
    examples: Sequence[HelpExample],
    intermixed: bool = False,
) -> CliParser:
    """A subcommand's parser, its arguments those its configuration declares, dispatching to
    ``command``: its ``--help`` starts with ``description`` (what it does, in a sentence or
    two; ``help`` is its line in the list of commands) and ends with ``examples`` (see
    :class:`CliParser` for ``intermixed``)."""
    parser: CliParser = subcommands.add_parser(
        name,
        help=help,
        description=description,
        examples=examples,
        formatter_class=HelpFormatter,
        intermixed=intermixed,
    )
    add_arguments(parser, command.config)
    # The parser goes along so that a UsageError found later is reported as its error.
    parser.set_defaults(handler=command, command_parser=parser)
    return parser


def add_group(
    subcommands: Subcommands,
    name: str,
    *,
    help: str,
    metavar: str,
    description: str,
    examples: Sequence[HelpExample],
) -> Subcommands:
    """A command made of subcommands (``world new``, ``engine install``), its help begun and
    ended as :func:`add_command`'s."""
    parser = subcommands.add_parser(
        name,
        help=help,
        description=description,
        examples=examples,
        formatter_class=HelpFormatter,
    )
    actions: Subcommands = parser.add_subparsers(required=True, metavar=metavar)
    return actions
