"""The typed configuration of the commands that work with real tools (``import``, ``record``,
``eval``, ``export``), each flag declared once, as a field (see :mod:`mcp_sim.cli.arguments`),
and each command's help beside its flags."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from mcp_sim.cli.arguments import option, options_of, positional, settings_of
from mcp_sim.cli.command import CommandConfig, HelpExample
from mcp_sim.cli.console import UsageError
from mcp_sim.cli.example_worlds import world_file
from mcp_sim.cli.settings_flags import REBUILDING
from mcp_sim.settings import values
from mcp_sim.settings.combined import Settings

if TYPE_CHECKING:
    from mcp_sim.authoring.mcp_import import Upstream
    from mcp_sim.fidelity.trajectory_export import ExportFormat
    from mcp_sim.journal import Source
    from mcp_sim.models.openai import EndpointSettings

SOURCES = ("real", "model", "fixture", "validation", "replay")
"""How a journaled call was answered (``mcp_sim.journal.Source``), for ``export --source``."""

FILESYSTEM_SERVER = "npx -y @modelcontextprotocol/server-filesystem /tmp"
"""A real MCP server the examples start over stdio."""


class UpstreamConfig(CommandConfig):
    """A real MCP server: the command that starts it over stdio, or its streamable HTTP URL."""

    url: str | None = option(
        parse=values.http_url, help="streamable HTTP endpoint of the server, e.g. http://host/mcp"
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

    def upstream(self) -> Upstream:
        """The server to connect to."""
        from mcp_sim.authoring.mcp_import import Upstream  # the MCP client, when connecting

        return Upstream(
            command=list(self.server_command),
            url=self.url,
            env=dict(self.env),
            headers=dict(self.header),
        )

    def require(self) -> None:
        """Refuse neither a command nor a URL, or both."""
        if bool(self.server_command) == bool(self.url):
            raise UsageError(
                "--url", "give the server's command (after --) or its --url: one of the two"
            )


UPSTREAM = "the real MCP server"


class ImportConfig(CommandConfig):
    """Write a world file with the tools of a real MCP server (started with -- COMMAND, or
    reached at --url) or of an OpenAPI 3 document, their names, descriptions and schemas kept as
    they are, to fill in with a state and fixtures."""

    summary = (
        "write a world with the tools of a real MCP server (-- COMMAND, or --url) or of an "
        "OpenAPI 3 document (--openapi)"
    )
    examples = (
        HelpExample(f"mcp-sim import -o fs.yaml -- {FILESYSTEM_SERVER}", "a server over stdio"),
        HelpExample(
            "mcp-sim import --openapi examples/petstore.openapi.yaml -o petstore.yaml",
            "an OpenAPI document",
        ),
    )

    output: Path = option(
        "-o", parse=values.output_file, metavar="WORLD", help="world file to write", required=True
    )
    openapi: Path | None = option(
        parse=values.existing_file("OpenAPI document"),
        metavar="FILE",
        help="import this OpenAPI 3 document (YAML/JSON)",
    )
    world: str | None = option(
        parse=values.text, metavar="ID", help="world id (default: from the server or API)"
    )
    upstream: UpstreamConfig = options_of(UpstreamConfig, UPSTREAM)

    def check(self) -> None:
        if self.openapi is None:
            self.upstream.require()
        elif self.upstream.server_command or self.upstream.url:
            raise UsageError("--openapi", "give --openapi, --url or a command, not several")


class RecordConfig(CommandConfig):
    """Serve a real MCP server's tools in its place, forwarding every call to it and appending
    the real answers to a journal: the recording eval scores a simulator against and export
    turns into training rows."""

    summary = (
        "serve a real MCP server's tools, forwarding every call and journaling the real answers"
    )
    examples = (
        HelpExample(
            f"mcp-sim record --journal real.jsonl -- {FILESYSTEM_SERVER}",
            "record a server over stdio, for an agent that speaks stdio",
        ),
        HelpExample(
            "mcp-sim record --url https://mcp.example.com/mcp --header 'Authorization: "
            "Bearer TOKEN' --journal real.jsonl --http 127.0.0.1:8766",
            "record a remote server, for an agent that speaks HTTP",
        ),
    )

    journal: Path = option(
        parse=values.output_file, metavar="PATH", help="append real calls here", required=True
    )
    http: tuple[str, int] | None = option(
        parse=values.host_port,
        metavar="HOST:PORT",
        help="serve streamable HTTP at http://HOST:PORT/mcp instead of stdio",
    )
    world_out: Path | None = option(
        parse=values.output_file, metavar="WORLD", help="also write the imported world here"
    )
    journal_timing: bool = option(help="record real latencies", default=False)
    upstream: UpstreamConfig = options_of(UpstreamConfig, UPSTREAM)

    def check(self) -> None:
        self.upstream.require()


class JudgeEndpoint(CommandConfig):
    """An LLM judge's OpenAI-compatible endpoint (``--judge-url``, ``--judge-model``...)."""

    url: str | None = option(
        parse=values.http_url, metavar="URL", help="OpenAI-compatible base URL of the judge"
    )
    model: str | None = option(
        parse=values.text, help="judge model id (default: discovered from /v1/models)"
    )
    api_key: str | None = option(
        parse=values.text,
        env="MCP_SIM_JUDGE_API_KEY",
        help="bearer key of the judge endpoint (env MCP_SIM_JUDGE_API_KEY)",
    )

    def endpoint(self) -> EndpointSettings | None:
        """The judge's endpoint, if ``--judge-url`` names one."""
        from mcp_sim.models.openai import EndpointSettings  # the model client, when judged

        if self.url is None:
            return None
        return EndpointSettings(base_urls=[self.url], api_key=self.api_key, model=self.model)


class JudgeConfig(JudgeEndpoint):
    max_tokens: int = option(
        parse=values.integer(minimum=1), help="judge completion limit (32768)", default=32768
    )
    structured: bool = option(
        help="ask the judge for schema-constrained JSON scores (small judges, guided decoding)",
        default=False,
    )


class EvalConfig(CommandConfig):
    """Replay a journal of real calls (written by record) teacher-forced: the simulator answers
    each call with the real history before it, and each answer is scored against the real one,
    per tool, in a JSON and an HTML report."""

    summary = "replay a recorded journal teacher-forced and measure how close the simulator comes"
    examples = (
        HelpExample(
            "mcp-sim eval --journal real.jsonl --world fs.yaml", "score the embedded model"
        ),
        HelpExample(
            "mcp-sim eval --journal real.jsonl --world fs.yaml --max-calls 50 "
            "--model-url http://127.0.0.1:8000/v1 --judge-url http://127.0.0.1:8001/v1",
            "score a model of yours on the first 50 calls, with an LLM judge",
        ),
    )

    settings: Settings = settings_of(REBUILDING)
    journal: Path = option(
        parse=values.existing_file("journal"),
        metavar="REAL",
        help="the recorded journal",
        required=True,
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
    )
    html: Path | None = option(
        parse=values.output_file,
        metavar="PATH",
        help="write the HTML report (default REAL.eval.html)",
    )
    predictions: Path | None = option(
        parse=values.output_file,
        metavar="PATH",
        help="journal the simulator's predictions to this file",
    )
    session: tuple[str, ...] = option(
        parse=values.text, help="evaluate only this recorded session", default=()
    )
    max_calls: int | None = option(
        parse=values.integer(minimum=1), metavar="N", help="evaluate the first N calls only"
    )
    judge: JudgeConfig = options_of(JudgeConfig, "LLM judge (optional)", prefix="judge_")


class ExportConfig(CommandConfig):
    """Turn a journal into training rows: AgentWorldBench-style records, or chat SFT rows whose
    prompt is the one the world model is shown for the call and whose answer is the journal's."""

    summary = "turn a journal into AgentWorldBench-style or chat-format SFT JSONL"
    examples = (
        HelpExample(
            "mcp-sim export --journal real.jsonl --world fs.yaml --format sft --source real "
            "-o sft.jsonl",
            "the real answers of a recording, as SFT rows",
        ),
        HelpExample(
            "mcp-sim export --journal calls.jsonl --example bookstore --format agentworld "
            "-o bench.jsonl",
            "a served world's calls, AgentWorldBench-style",
        ),
    )

    # The settings are the ones the journal was served with: the prompts are rebuilt with the
    # same budgets and defaults (the embedded model's without --model-url).
    settings: Settings = settings_of(REBUILDING)
    journal: Path = option(parse=values.existing_file("journal"), metavar="PATH", required=True)
    world: Path = world_file(
        "the world of the journal (or --example NAME)",
        flag="--world",
        parse=values.existing_file("world"),
    )
    format: ExportFormat = option(choices=("agentworld", "sft"), required=True)
    output: Path = option(
        "-o", parse=values.output_file, metavar="PATH", help="JSONL file to write", required=True
    )
    source: tuple[Source, ...] = option(
        choices=SOURCES,
        help="export only calls answered this way (repeatable; e.g. real)",
        default=(),
    )
