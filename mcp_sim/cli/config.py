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
    option,
    options_of,
    positional,
    settings_of,
    world_file,
    world_files,
)
from mcp_sim.cli.command import CommandConfig, HelpExample
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

FILESYSTEM_SERVER = "npx -y @modelcontextprotocol/server-filesystem /tmp"
"""A real MCP server the examples start over stdio."""

CALL_SETTINGS = (*SIMULATION, *group_names("records"))


class CallConfig(CommandConfig):
    """Make one tool call in a world and print its observation on stdout, as a served world
    would answer it; where the answer came from (fixture, model) goes to stderr. The world model
    is started only if the call needs it."""

    summary = "make one tool call and print the observation"
    examples = (
        HelpExample(
            """mcp-sim call --example bookstore search_books --args '{"query": "glass"}'""",
            "a call the world's fixture answers, no model needed",
        ),
        HelpExample(
            """mcp-sim call worlds/bookstore.yaml get_book --args '{"book_id": "b3"}' """
            "--model-url http://127.0.0.1:8000/v1",
            "a call the world model answers, at a model server of yours",
        ),
    )

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
    """Check world specs as serve would load them, and print one line per file that is ok, or
    one FILE:LINE:COL line per problem; the exit status is 1 if any file has problems."""

    summary = "check world specs; report FILE:LINE:COL problems"
    examples = (
        HelpExample("mcp-sim validate worlds/*.yaml", "every world of a folder"),
        HelpExample(
            "mcp-sim validate my_world.yaml --example bookstore",
            "a world of yours, and an example world beside it",
        ),
    )

    files: tuple[Path, ...] = world_files(
        "world specs (YAML) to check",
        "also check this example world (repeatable)",
        metavar="FILE",
        open_folders=False,
    )


class SchemaConfig(CommandConfig):
    """Print the JSON Schema of world specs, for an editor to check and complete world files as
    they are typed (point its YAML language server at the file)."""

    summary = "print the JSON Schema of world specs"
    examples = (
        HelpExample("mcp-sim schema -o schemas/world.schema.json", "write it to a file"),
        HelpExample("mcp-sim schema | head -20", "look at its start"),
    )

    output: Path | None = option(
        "-o", parse=values.output_file, help="write it to this file instead", default=None
    )


class PerturbationsConfig(CommandConfig):
    """List the perturbation profiles --perturb can name: the built-in ones and those a world
    file declares, each with its rules (faults, latency, rate limits, stale or paginated
    answers)."""

    summary = "list the perturbation profiles (built in, and a world's own)"
    examples = (
        HelpExample("mcp-sim perturbations", "the built-in profiles"),
        HelpExample("mcp-sim perturbations --example shop --json", "and the shop's, as JSON"),
    )

    # Without a world, the built-in profiles alone are listed.
    world: Path | None = world_file("world spec (YAML) with its own profiles", optional=True)
    json: bool = option(help="print the profiles as JSON", default=False)


class ReportConfig(CommandConfig):
    """Summarize a journal written by --journal: per tool, the calls, the faults that were
    injected and what the agent did next (retried, changed its arguments, moved on or stopped)."""

    summary = "summarize a journal: injected faults and how the agent reacted, per tool"
    examples = (
        HelpExample("mcp-sim report calls.jsonl", "a table"),
        HelpExample("mcp-sim report calls.jsonl --json", "the same as JSON, for a script"),
    )

    journal: str = positional(help="journal file (JSONL) written by --journal")
    json: bool = option(help="print the report as JSON", default=False)


class NewWorldConfig(CommandConfig):
    """Draft a world spec from a sentence with the world model: tools with their schemas, a
    starting state and fixtures, validated like any world file before it is written."""

    summary = "draft a world spec with the world model"
    examples = (
        HelpExample('mcp-sim world new "a ferry booking API" -o ferry.yaml', "an MCP world"),
        HelpExample(
            'mcp-sim world new "a Linux box whose nginx will not start" --domain os '
            "-o nginx.yaml --model-url http://127.0.0.1:8000/v1",
            "an os world, drafted by a larger model of yours",
        ),
    )

    settings: Settings = settings_of(REBUILDING)
    description: str = positional(
        parse=values.text, help='what the world is, e.g. "a ferry booking API"'
    )
    domain: Domain = option(choices=DOMAINS, help="default: mcp", default="mcp")
    output: Path = option("-o", parse=values.output_file, help="the world file to write")
    force: bool = option(help="overwrite an existing file", default=False)


class ExportWorldConfig(CommandConfig):
    """Write a world file back with what its world memory (serve --world-memory) learnt: shown
    pages as starting pages, learnt facts in the canon, answered queries as fixtures, so that
    serving it starts from everything explorers saw."""

    summary = "write a world file with the pages and facts its memory learnt"
    examples = (
        HelpExample(
            "mcp-sim world export --example web --world-memory web.db -o grown.yaml",
            "the web example, grown",
        ),
        HelpExample(
            "mcp-sim world export worlds/search.yaml --world-memory search.db",
            "a world of yours, printed on stdout",
        ),
    )

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
