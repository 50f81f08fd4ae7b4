"""A command's own arguments, declared once, as the fields of its typed configuration (a
:class:`~mcp_sim.cli.command.CommandConfig`):

    output: Path | None = option("-o", parse=values.output_file, help="write it here")

The field's name is the flag's (``--output``) or the positional's, and its default argparse's:
None unless given (``required=True`` for a flag that must be), ``False`` for a switch, ``()`` for
a repeatable flag (read as a tuple). A command's arguments are generated from its fields
(:func:`add_arguments`) and read back from the parsed flags (:func:`read_fields`).

The settings several commands share are one field too (:func:`settings_of`), as are a group of
options kept in a configuration of their own (:func:`options_of`) and the world file or
``--example NAME`` a command reads (:mod:`mcp_sim.cli.example_worlds`).

Plain dataclasses rather than pydantic models (as the settings are): a configuration names types
that parsing must not import (a world's domain, an export format), so the annotations are never
evaluated and each declaration sits in its field's default.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass
from typing import Any, Protocol

from mcp_sim.cli.settings_flags import add_settings, read_settings

DECLARATION = "cli"
"""The key of a field's metadata that holds its declaration."""

Parser = argparse._ActionsContainer
"""A parser or a group of its arguments (argparse has no public name for the two)."""


class Declaration(Protocol):
    """How a field is given on the command line (``add``) and read back (``read``)."""

    def add(self, parser: Parser, name: str, default: Any) -> None: ...

    def read(self, args: argparse.Namespace, name: str) -> Any: ...


def declared(config: type) -> Iterator[tuple[str, Declaration, Any]]:
    """Each field of ``config``: its name, its declaration and its default."""
    for field in dataclasses.fields(config):
        yield field.name, field.metadata[DECLARATION], field.default


def add_arguments(parser: Parser, config: type, prefix: str = "") -> None:
    """The arguments of ``config``'s fields, in their order, named ``prefix`` + the field's."""
    for name, declaration, default in declared(config):
        declaration.add(parser, prefix + name, default)


def read_fields(config: type, args: argparse.Namespace, prefix: str = "") -> dict[str, Any]:
    """The values of ``config``'s fields, as parsed into ``args``."""
    return {name: d.read(args, prefix + name) for name, d, _ in declared(config)}


def declare(declaration: Declaration, default: Any = dataclasses.MISSING) -> Any:
    """A field of a command's configuration, given on the command line as ``declaration``
    says (the field's default is ``default``; without one, it must be given)."""
    field: Any = dataclasses.field(default=default, metadata={DECLARATION: declaration})
    return field


@dataclass(frozen=True)
class Option:
    """A flag (or, ``positional``, an argument) of one value, a switch or a repeatable flag."""

    help: str | None
    metavar: str | None = None
    parse: Callable[[str], Any] | None = None
    short: str | None = None
    choices: Collection[str] | None = None
    positional: bool = False
    env: str | None = None
    """A variable whose value stands for the flag when it is not given."""

    def add(self, parser: Parser, name: str, default: Any) -> None:
        given: dict[str, Any] = {"help": self.help, "metavar": self.metavar}
        if default is not False:
            given |= {"type": self.parse, "choices": self.choices}
        if self.positional:
            nargs = "*" if default == () else "?" if default is None else None
            parser.add_argument(name, nargs=nargs, **given)
            return
        flags = [f for f in (self.short, "--" + name.replace("_", "-")) if f]
        if default is False:
            del given["metavar"]
            parser.add_argument(*flags, dest=name, action="store_true", **given)
        elif default == ():
            parser.add_argument(*flags, dest=name, action="append", default=[], **given)
        else:
            required = default is dataclasses.MISSING
            default = None if required else default
            parser.add_argument(*flags, dest=name, required=required, default=default, **given)

    def read(self, args: argparse.Namespace, name: str) -> Any:
        value = getattr(args, name)
        if value is None and self.env is not None:
            return os.environ.get(self.env) or None
        return tuple(value) if isinstance(value, list) else value


def option(
    short: str | None = None,
    *,
    help: str | None = None,
    metavar: str | None = None,
    parse: Callable[[str], Any] | None = None,
    choices: Collection[str] | None = None,
    env: str | None = None,
    required: bool = False,
    default: Any = None,
) -> Any:
    """A flag: ``--NAME VALUE`` (or ``short``), None when not given (as in argparse), a switch
    if ``default`` is False and repeatable if it is ``()``."""
    declared = Option(help, metavar, parse, short, choices, env=env)
    return declare(declared, dataclasses.MISSING if required else default)


def positional(
    *,
    help: str | None = None,
    metavar: str | None = None,
    parse: Callable[[str], Any] | None = None,
    default: Any = dataclasses.MISSING,
) -> Any:
    """An argument given by its place: optional if ``default`` is None, any number if ``()``."""
    return declare(Option(help, metavar, parse, positional=True), default)


@dataclass(frozen=True)
class SettingsOf:
    """The shared settings ``names`` (see :mod:`mcp_sim.cli.settings_flags`)."""

    names: Collection[str]

    def add(self, parser: Parser, name: str, default: Any) -> None:
        if not isinstance(parser, argparse.ArgumentParser):
            raise TypeError("settings make argument groups of their own: declare them at the top")
        add_settings(parser, self.names)

    def read(self, args: argparse.Namespace, name: str) -> Any:
        return read_settings(args)


def settings_of(names: Collection[str]) -> Any:
    """The settings ``names`` (flat names), read from the flags, environment and config file."""
    return declare(SettingsOf(names))


@dataclass(frozen=True)
class OptionsOf:
    """The fields of another configuration, under a title in the help."""

    config: type[Any]
    title: str
    prefix: str

    def add(self, parser: Parser, name: str, default: Any) -> None:
        section = parser.add_argument_group(self.title) if self.title else parser
        add_arguments(section, self.config, self.prefix)

    def read(self, args: argparse.Namespace, name: str) -> Any:
        return self.config(**read_fields(self.config, args, self.prefix))


def options_of(config: type[Any], title: str, *, prefix: str = "") -> Any:
    """The options of ``config`` (its flags named ``prefix`` + its fields'), under ``title``."""
    return declare(OptionsOf(config, title, prefix))
