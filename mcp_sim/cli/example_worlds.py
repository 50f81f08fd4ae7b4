"""``--example NAME``, one of the examples of :mod:`mcp_sim.spec.world_files`, in place of a
world file.

Every command that reads a world file takes ``--example NAME`` instead of it: the two are
declared here once, as one field of a command's configuration (:func:`world_file`,
:func:`world_files`), so that they read and fail alike.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp_sim.cli.arguments import Parser, declare
from mcp_sim.cli.console import UsageError
from mcp_sim.spec.world_files import example_names, example_path, world_files_in

NO_WORLD = "give a world file, or --example NAME (`mcp-sim examples` lists them)"


def example_name(value: str) -> str:
    """The name of an example world, for argparse's ``type=``: an unknown one is refused
    while parsing, with the list of the known ones."""
    known = example_names()
    if value not in known:
        raise argparse.ArgumentTypeError(
            f"no example world {value!r} (examples: {', '.join(known)})"
        )
    return value


EXAMPLE_HELP = (
    "an example world shipped with mcp-sim instead of a world file (see `mcp-sim examples`), "
    "e.g. bookstore"
)


@dataclass(frozen=True)
class WorldFile:
    """The one world a command reads: a world file or ``--example NAME``, not both; with
    ``optional``, neither (None)."""

    help: str
    flag: str | None
    parse: Callable[[str], Any] | None
    missing: str
    optional: bool

    def add(self, parser: Parser, name: str, default: Any) -> None:
        given: dict[str, Any] = {"type": self.parse, "help": self.help}
        if self.flag is None:
            parser.add_argument(name, nargs="?", **given)
        else:
            parser.add_argument(self.flag, dest=name, metavar="WORLD", **given)
        parser.add_argument("--example", type=example_name, metavar="NAME", help=EXAMPLE_HELP)

    def read(self, args: argparse.Namespace, name: str) -> Path | None:
        world, example = getattr(args, name), args.example
        if world is not None and example is not None:
            raise UsageError("--example", "give a world file or --example NAME, not both")
        if example is not None:
            return example_path(example)
        if world is None and not self.optional:
            raise UsageError(self.flag or name, self.missing)
        return None if world is None else Path(world)


def world_file(
    help: str = "world spec (YAML); or give --example NAME",
    *,
    flag: str | None = None,
    parse: Callable[[str], Any] | None = None,
    missing: str = NO_WORLD,
    optional: bool = False,
) -> Any:
    """A world file given by its place (or by ``flag``, e.g. ``--world``), or ``--example``."""
    return declare(WorldFile(help, flag, parse, missing, optional))


@dataclass(frozen=True)
class WorldFiles:
    """World files by their place and any number of ``--example NAME``, at least one in all;
    with ``open_folders``, a folder stands for the world files directly in it (sorted)."""

    help: str
    example_help: str
    metavar: str | None
    open_folders: bool

    def add(self, parser: Parser, name: str, default: Any) -> None:
        parser.add_argument(name, nargs="*", metavar=self.metavar, help=self.help)
        parser.add_argument(
            "--example", action="append", type=example_name, metavar="NAME", help=self.example_help
        )

    def read(self, args: argparse.Namespace, name: str) -> tuple[Path, ...]:
        label = self.metavar or name
        found: list[Path] = []
        for path in map(Path, getattr(args, name)):
            # A suite's folder (its manifest beside worlds/) is served as one, lazily.
            if not (self.open_folders and path.is_dir()) or (path / "manifest.json").is_file():
                found.append(path)
                continue
            inside = world_files_in(path)
            if not inside:
                raise UsageError(label, f"the folder {path} holds no world files (*.yaml)")
            found += inside
        found += [example_path(e) for e in args.example or ()]
        if not found:
            raise UsageError(label, NO_WORLD)
        return tuple(found)


def world_files(
    help: str, example_help: str, *, metavar: str | None = None, open_folders: bool = True
) -> Any:
    """World files and example worlds, together (see :class:`WorldFiles`)."""
    return declare(WorldFiles(help, example_help, metavar, open_folders))
