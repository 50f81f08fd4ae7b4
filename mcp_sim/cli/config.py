"""The typed configuration of every command: frozen dataclasses read once from the parsed
flags (``from_args``), so that a command's work sees named, typed values and never the
argparse namespace.

The options several commands share (the world model, sampling, state and prompt,
perturbations, journal and cache) are :class:`~mcp_sim.settings.Settings`, read by
:func:`~mcp_sim.cli.settings_flags.read_settings`; a command's configuration holds them beside
its own.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcp_sim.cli.console import UsageError
from mcp_sim.cli.example_worlds import NO_WORLD, example_path, world_or_example
from mcp_sim.cli.settings_flags import read_settings
from mcp_sim.settings.combined import Settings

if TYPE_CHECKING:
    from mcp_sim.fidelity.trajectory_export import ExportFormat
    from mcp_sim.journal import Source
    from mcp_sim.spec.world import Domain


# --- serve, call -----------------------------------------------------------------------------


@dataclass(frozen=True)
class CallConfig:
    world: Path
    tool: str
    arguments: dict[str, Any]
    settings: Settings
    show_reasoning: bool = False

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> CallConfig:
        settings = read_settings(args)
        world = world_or_example(
            args.world,
            args.example,
            missing="give a world file and a tool, or --example NAME and a tool",
        )
        return cls(
            world=world,
            tool=args.tool,
            arguments=args.args if args.args is not None else {},
            settings=settings,
            show_reasoning=args.show_reasoning,
        )


# --- world files -----------------------------------------------------------------------------


@dataclass(frozen=True)
class ValidateConfig:
    files: tuple[str, ...]

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> ValidateConfig:
        files = (*args.files, *(str(example_path(name)) for name in args.example))
        if not files:
            raise UsageError("FILE", NO_WORLD)
        return cls(files)


@dataclass(frozen=True)
class SchemaConfig:
    output: Path | None = None

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> SchemaConfig:
        return cls(args.output)


@dataclass(frozen=True)
class ListingConfig:
    """``perturbations [WORLD]`` and ``report JOURNAL``: a file to read, and JSON or a table."""

    path: str | None
    as_json: bool = False

    @classmethod
    def of_world(cls, args: argparse.Namespace) -> ListingConfig:
        # Without a world, the built-in profiles alone are listed.
        if args.world is None and args.example is None:
            return cls(None, args.json)
        return cls(str(world_or_example(args.world, args.example)), args.json)

    @classmethod
    def of_journal(cls, args: argparse.Namespace) -> ListingConfig:
        return cls(args.journal, args.json)


@dataclass(frozen=True)
class NewWorldConfig:
    description: str
    domain: Domain
    output: Path
    force: bool
    settings: Settings

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> NewWorldConfig:
        settings = read_settings(args)
        return cls(args.description, args.domain, args.output, args.force, settings)


@dataclass(frozen=True)
class ExportWorldConfig:
    world: Path
    world_memory: Path
    output: Path | None = None

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> ExportWorldConfig:
        return cls(world_or_example(args.world, args.example), args.world_memory, args.output)


# --- real tools: import, record, eval, export ---------------------------------------------------


@dataclass(frozen=True)
class UpstreamConfig:
    """A real MCP server: the command that starts it over stdio, or its streamable HTTP URL."""

    command: tuple[str, ...] = ()
    url: str | None = None
    env: tuple[tuple[str, str], ...] = ()
    headers: tuple[tuple[str, str], ...] = ()

    @classmethod
    def from_args(cls, args: argparse.Namespace, *, required: bool = True) -> UpstreamConfig:
        found = cls(tuple(args.server_command), args.url, tuple(args.env), tuple(args.header))
        if required and bool(found.command) == bool(found.url):
            raise UsageError(
                "--url", "give the server's command (after --) or its --url: one of the two"
            )
        return found


@dataclass(frozen=True)
class ImportConfig:
    output: Path
    upstream: UpstreamConfig
    openapi: Path | None = None
    world: str | None = None

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> ImportConfig:
        if args.openapi and (args.server_command or args.url):
            raise UsageError("--openapi", "give --openapi, --url or a command, not several")
        upstream = UpstreamConfig.from_args(args, required=not args.openapi)
        return cls(args.output, upstream, args.openapi, args.world)


@dataclass(frozen=True)
class RecordConfig:
    journal: Path
    upstream: UpstreamConfig
    http: tuple[str, int] | None = None
    world_out: Path | None = None
    journal_timing: bool = False

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> RecordConfig:
        upstream = UpstreamConfig.from_args(args)
        return cls(args.journal, upstream, args.http, args.world_out, args.journal_timing)


@dataclass(frozen=True)
class JudgeConfig:
    url: str | None = None
    model: str | None = None
    api_key: str | None = None
    max_tokens: int = 32768
    structured: bool = False

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> JudgeConfig:
        return cls(
            args.judge_url,
            args.judge_model,
            args.judge_api_key,
            args.judge_max_tokens,
            args.judge_structured,
        )


@dataclass(frozen=True)
class EvalConfig:
    journal: Path
    world: Path
    settings: Settings
    """The simulator's; its journal (``--predictions``) gets the predictions."""
    judge: JudgeConfig
    json: Path | None = None
    html: Path | None = None
    sessions: tuple[str, ...] = ()
    max_calls: int | None = None

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> EvalConfig:
        settings = read_settings(args)
        if args.predictions is not None:
            records = settings.records.model_copy(update={"journal": args.predictions})
            settings = settings.model_copy(update={"records": records})
        return cls(
            journal=args.journal,
            world=world_or_example(args.world, args.example, flag="--world"),
            settings=settings,
            judge=JudgeConfig.from_args(args),
            json=args.json,
            html=args.html,
            sessions=tuple(args.session),
            max_calls=args.max_calls,
        )


@dataclass(frozen=True)
class ExportConfig:
    journal: Path
    world: Path
    format: ExportFormat
    output: Path
    sources: tuple[Source, ...] = ()
    settings: Settings = field(default_factory=Settings)
    """The settings ``serve`` ran with: the prompts are rebuilt as it built them."""

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> ExportConfig:
        settings = read_settings(args)
        world = world_or_example(args.world, args.example, flag="--world")
        return cls(args.journal, world, args.format, args.output, (*args.source,), settings)


# --- engine ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class EngineConfig:
    """The engine commands take no options."""

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> EngineConfig:
        return cls()
