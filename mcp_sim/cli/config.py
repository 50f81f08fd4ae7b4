"""The typed configuration of the commands that call, read and write worlds and journals, each
flag declared once, as a field (see :mod:`mcp_sim.cli.arguments`): the parsers are generated
from these classes and the configurations read back from the parsed flags.

The options several commands share (the world model, sampling, state and prompt,
perturbations, journal and cache) are :class:`~mcp_sim.settings.Settings`, one field here.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcp_sim.cli.arguments import (
    CommandConfig,
    option,
    options_of,
    positional,
    settings_of,
    world_file,
    world_files,
)
from mcp_sim.cli.console import UsageError
from mcp_sim.cli.settings_flags import REBUILDING, SIMULATION, group_names
from mcp_sim.settings import values
from mcp_sim.settings.combined import Settings

if TYPE_CHECKING:
    from mcp_sim.fidelity.trajectory_export import ExportFormat
    from mcp_sim.journal import Source
    from mcp_sim.spec.world import Domain

DOMAINS = ("mcp", "search", "terminal", "swe", "web", "os", "android")
"""The world domains (``mcp_sim.spec.world.Domain``; a test keeps the two equal): listed here
so that parsing does not import the spec models."""

SOURCES = ("real", "model", "fixture", "validation", "replay")
"""How a journaled call was answered (``mcp_sim.journal.Source``), for ``export --source``."""

CALL_SETTINGS = (*SIMULATION, *group_names("records"))


class CallConfig(CommandConfig):
    world: Path = world_file(missing="give a world file and a tool, or --example NAME and a tool")
    tool: str = positional(help="tool name")
    args: dict[str, Any] | None = option(
        parse=values.json_object,
        metavar="JSON",
        help="arguments as a JSON object (default {})",
        default=None,
    )
    show_reasoning: bool = option(help="print the model's reasoning", default=False)
    settings: Settings = settings_of(CALL_SETTINGS)


# --- world files -----------------------------------------------------------------------------


class ValidateConfig(CommandConfig):
    files: tuple[Path, ...] = world_files(
        "world specs (YAML) to check",
        "also check this example world (repeatable)",
        metavar="FILE",
        open_folders=False,
    )


class SchemaConfig(CommandConfig):
    output: Path | None = option(
        "-o", parse=values.output_file, help="write it to this file instead", default=None
    )


class PerturbationsConfig(CommandConfig):
    # Without a world, the built-in profiles alone are listed.
    world: Path | None = world_file("world spec (YAML) with its own profiles", optional=True)
    json: bool = option(help="print the profiles as JSON", default=False)


class ReportConfig(CommandConfig):
    journal: str = positional(help="journal file (JSONL) written by --journal")
    json: bool = option(help="print the report as JSON", default=False)


class NewWorldConfig(CommandConfig):
    settings: Settings = settings_of(REBUILDING)
    description: str = positional(
        parse=values.text, help='what the world is, e.g. "a ferry booking API"'
    )
    domain: Domain = option(choices=DOMAINS, help="default: mcp", default="mcp")
    output: Path = option("-o", parse=values.output_file, help="the world file to write")
    force: bool = option(help="overwrite an existing file", default=False)


class ExportWorldConfig(CommandConfig):
    world: Path = world_file()
    world_memory: Path = option(
        parse=values.existing_file("world memory"), metavar="PATH", help="the memory file"
    )
    output: Path | None = option(
        "-o", parse=values.output_file, help="write it to this file instead of stdout", default=None
    )


# --- real tools: import, record, eval, export ---------------------------------------------------


class UpstreamConfig(CommandConfig):
    """A real MCP server: the command that starts it over stdio, or its streamable HTTP URL."""

    url: str | None = option(
        parse=values.http_url,
        help="streamable HTTP endpoint of the server, e.g. http://host/mcp",
        default=None,
    )
    header: tuple[tuple[str, str], ...] = option(
        parse=values.pair(":", "'Name: value'"),
        metavar="'NAME: VALUE'",
        help="HTTP header for --url (repeatable), e.g. 'Authorization: Bearer ...'",
        default=(),
    )
    env: tuple[tuple[str, str], ...] = option(
        parse=values.pair("=", "KEY=VALUE"),
        metavar="KEY=VALUE",
        help="environment variable for the server command (repeatable; the command also "
        "inherits mcp-sim's environment)",
        default=(),
    )
    server_command: tuple[str, ...] = positional(
        metavar="-- COMMAND ARGS",
        help="the command that starts the server over stdio, after --",
        default=(),
    )

    def require(self) -> None:
        """Refuse neither a command nor a URL, or both."""
        if bool(self.server_command) == bool(self.url):
            raise UsageError(
                "--url", "give the server's command (after --) or its --url: one of the two"
            )


UPSTREAM = "the real MCP server"


class ImportConfig(CommandConfig):
    output: Path = option(
        "-o", parse=values.output_file, metavar="WORLD", help="world file to write"
    )
    openapi: Path | None = option(
        parse=values.existing_file("OpenAPI document"),
        metavar="FILE",
        help="import this OpenAPI 3 document (YAML/JSON)",
        default=None,
    )
    world: str | None = option(
        parse=values.text,
        metavar="ID",
        help="world id (default: from the server or API)",
        default=None,
    )
    upstream: UpstreamConfig = options_of(UpstreamConfig, UPSTREAM)

    def check(self) -> None:
        if self.openapi is None:
            self.upstream.require()
        elif self.upstream.server_command or self.upstream.url:
            raise UsageError("--openapi", "give --openapi, --url or a command, not several")


class RecordConfig(CommandConfig):
    journal: Path = option(parse=values.output_file, metavar="PATH", help="append real calls here")
    http: tuple[str, int] | None = option(
        parse=values.host_port,
        metavar="HOST:PORT",
        help="serve streamable HTTP at http://HOST:PORT/mcp instead of stdio",
        default=None,
    )
    world_out: Path | None = option(
        parse=values.output_file,
        metavar="WORLD",
        help="also write the imported world here",
        default=None,
    )
    journal_timing: bool = option(help="record real latencies", default=False)
    upstream: UpstreamConfig = options_of(UpstreamConfig, UPSTREAM)

    def check(self) -> None:
        self.upstream.require()


class JudgeEndpoint(CommandConfig):
    """An LLM judge's OpenAI-compatible endpoint (``--judge-url``, ``--judge-model``...)."""

    url: str | None = option(
        parse=values.http_url,
        metavar="URL",
        help="OpenAI-compatible base URL of the judge",
        default=None,
    )
    model: str | None = option(
        parse=values.text,
        help="judge model id (default: discovered from /v1/models)",
        default=None,
    )
    api_key: str | None = option(
        parse=values.text,
        env="MCP_SIM_JUDGE_API_KEY",
        help="bearer key of the judge endpoint (env MCP_SIM_JUDGE_API_KEY)",
        default=None,
    )


class JudgeConfig(JudgeEndpoint):
    max_tokens: int = option(
        parse=values.integer(minimum=1), help="judge completion limit (32768)", default=32768
    )
    structured: bool = option(
        help="ask the judge for schema-constrained JSON scores (small judges, guided decoding)",
        default=False,
    )


class EvalConfig(CommandConfig):
    settings: Settings = settings_of(REBUILDING)
    journal: Path = option(
        parse=values.existing_file("journal"), metavar="REAL", help="the recorded journal"
    )
    world: Path = world_file(
        "the world to simulate it in (or --example NAME)",
        flag="--world",
        parse=values.existing_file("world"),
    )
    json: Path | None = option(
        parse=values.output_file,
        metavar="PATH",
        help="write the report as JSON (default REAL.eval.json)",
        default=None,
    )
    html: Path | None = option(
        parse=values.output_file,
        metavar="PATH",
        help="write the HTML report (default REAL.eval.html)",
        default=None,
    )
    predictions: Path | None = option(
        parse=values.output_file,
        metavar="PATH",
        help="journal the simulator's predictions to this file",
        default=None,
    )
    session: tuple[str, ...] = option(
        parse=values.text, help="evaluate only this recorded session", default=()
    )
    max_calls: int | None = option(
        parse=values.integer(minimum=1),
        metavar="N",
        help="evaluate the first N calls only",
        default=None,
    )
    judge: JudgeConfig = options_of(JudgeConfig, "LLM judge (optional)", prefix="judge_")

    @property
    def simulation(self) -> Settings:
        """The simulator's settings: its journal (``--predictions``) gets the predictions."""
        if self.predictions is None:
            return self.settings
        records = self.settings.records.model_copy(update={"journal": self.predictions})
        return self.settings.model_copy(update={"records": records})


class ExportConfig(CommandConfig):
    # The settings are the ones the journal was served with: the prompts are rebuilt with the
    # same budgets and defaults (the embedded model's without --model-url).
    settings: Settings = settings_of(REBUILDING)
    journal: Path = option(parse=values.existing_file("journal"), metavar="PATH")
    world: Path = world_file(
        "the world of the journal (or --example NAME)",
        flag="--world",
        parse=values.existing_file("world"),
    )
    format: ExportFormat = option(choices=("agentworld", "sft"))
    output: Path = option(
        "-o", parse=values.output_file, metavar="PATH", help="JSONL file to write"
    )
    source: tuple[Source, ...] = option(
        choices=SOURCES,
        help="export only calls answered this way (repeatable; e.g. real)",
        default=(),
    )
