"""How a subcommand is declared: its typed configuration, whose fields declare its flags (see
:mod:`mcp_sim.cli.arguments`) and whose docstring and examples are its help; the parser class
every command uses; and the record that ties a configuration to the command's handler."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, NoReturn, Self, TypeAlias, TypeVar, dataclass_transform

from mcp_sim.cli.arguments import (
    add_arguments,
    option,
    options_of,
    positional,
    read_fields,
    settings_of,
)
from mcp_sim.cli.example_worlds import world_file, world_files
from mcp_sim.cli.settings_flags import read_settings


@dataclass(frozen=True)
class HelpExample:
    """One use of a command for its ``--help``: the command line as typed (starting with
    ``mcp-sim``) and what it does."""

    command: str
    does: str


@dataclass_transform(
    frozen_default=True,
    kw_only_default=True,
    field_specifiers=(option, positional, settings_of, options_of, world_file, world_files),
)
class CommandConfig:
    """The typed configuration of a command, a frozen dataclass (its fields given by keyword)
    whose fields declare the command's flags; a command's work sees named, typed values and
    never the argparse namespace. Its docstring is what the command's ``--help`` starts with
    (what it does, in a sentence or two) and ``examples`` what it ends with."""

    summary: ClassVar[str] = ""
    """The command's line in the list of commands."""
    examples: ClassVar[Sequence[HelpExample]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        dataclass(frozen=True, kw_only=True)(cls)

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> Self:
        """The configuration the parsed flags give, checked as a whole. ``--print-config``
        prints the settings first and ends the command, whatever else is missing."""
        if getattr(args, "print_config", False):
            read_settings(args)
        config = cls(**read_fields(cls, args))
        config.check()
        return config

    def check(self) -> None:
        """Refuse flags that parse one by one but cannot go together (or a value that can
        only be checked once the others are known) with a
        :class:`~mcp_sim.cli.console.UsageError`; none by default."""


class NoOptions(CommandConfig):
    """A command that takes no options."""


Config = TypeVar("Config", bound=CommandConfig)


@dataclass(frozen=True)
class Command(Generic[Config]):
    """A subcommand's two halves: its configuration, read from the parsed flags, and ``run``,
    which does the work and returns the exit status."""

    config: type[Config]
    run: Callable[[Config], int]

    def read(self, args: argparse.Namespace) -> Config:
        return self.config.from_args(args)

    def __call__(self, args: argparse.Namespace) -> int:
        return self.run(self.read(args))


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
    subcommands: Subcommands, name: str, command: Command[Any], *, intermixed: bool = False
) -> CliParser:
    """A subcommand's parser, with the arguments and the help its configuration declares,
    dispatching to ``command`` (see :class:`CliParser` for ``intermixed``)."""
    config = command.config
    parser: CliParser = subcommands.add_parser(
        name,
        help=config.summary,
        description=" ".join((config.__doc__ or "").split()),
        examples=config.examples,
        formatter_class=HelpFormatter,
        intermixed=intermixed,
    )
    add_arguments(parser, config)
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
