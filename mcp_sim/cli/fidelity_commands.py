"""The commands that work with real tools: ``import``, ``record``, ``eval`` and ``export``.
Their flags and typed configuration live here; the work is in :mod:`mcp_sim.cli.fidelity_runs`,
imported when one of them runs."""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING

from mcp_sim.cli.command import Command, HelpExample, Subcommands, add_command
from mcp_sim.cli.config import EvalConfig, ExportConfig, ImportConfig, RecordConfig
from mcp_sim.cli.example_worlds import add_example_option
from mcp_sim.cli.settings_flags import REBUILDING, add_settings
from mcp_sim.settings import values

if TYPE_CHECKING:
    pass

ANY_SOURCE = ("real", "model", "fixture", "validation", "replay")

FILESYSTEM_SERVER = "npx -y @modelcontextprotocol/server-filesystem /tmp"
"""A real MCP server the examples start over stdio."""

EVAL_DESCRIPTION = (
    "Replay a journal of real calls (written by record) teacher-forced: the simulator answers "
    "each call with the real history before it, and each answer is scored against the real "
    "one, per tool, in a JSON and an HTML report."
)
EVAL_EXAMPLES = [
    HelpExample("mcp-sim eval --journal real.jsonl --world fs.yaml", "score the embedded model"),
    HelpExample(
        "mcp-sim eval --journal real.jsonl --world fs.yaml --max-calls 50 "
        "--model-url http://127.0.0.1:8000/v1 --judge-url http://127.0.0.1:8001/v1",
        "score a model of yours on the first 50 calls, with an LLM judge",
    ),
]


def import_world(config: ImportConfig) -> int:
    from mcp_sim.cli import fidelity_runs  # the MCP client and importers, for this command only

    return fidelity_runs.import_world(config)


def record(config: RecordConfig) -> int:
    from mcp_sim.cli import fidelity_runs

    return fidelity_runs.record_real_calls(config)


def evaluate(config: EvalConfig) -> int:
    from mcp_sim.cli import fidelity_runs

    return fidelity_runs.evaluate_journal(config)


def export(config: ExportConfig) -> int:
    from mcp_sim.cli import fidelity_runs

    return fidelity_runs.export_journal(config)


def register(subcommands: Subcommands) -> None:
    _add_import(subcommands)
    _add_record(subcommands)
    _add_eval(subcommands)
    _add_export(subcommands)


def _add_upstream_options(parser: argparse.ArgumentParser) -> None:
    g = parser.add_argument_group("the real MCP server")
    g.add_argument(
        "--url",
        type=values.http_url,
        help="streamable HTTP endpoint of the server, e.g. http://host/mcp",
    )
    g.add_argument(
        "--header",
        action="append",
        default=[],
        type=values.pair(":", "'Name: value'"),
        metavar="'NAME: VALUE'",
        help="HTTP header for --url (repeatable), e.g. 'Authorization: Bearer ...'",
    )
    g.add_argument(
        "--env",
        action="append",
        default=[],
        type=values.pair("=", "KEY=VALUE"),
        metavar="KEY=VALUE",
        help="environment variable for the server command (repeatable; the command also "
        "inherits mcp-sim's environment)",
    )
    g.add_argument(
        "server_command",
        nargs="*",
        metavar="-- COMMAND ARGS",
        help="the command that starts the server over stdio, after --",
    )


def _add_import(subcommands: Subcommands) -> None:
    p = add_command(
        subcommands,
        "import",
        Command(ImportConfig.from_args, import_world),
        help="write a world with the tools of a real MCP server (-- COMMAND, or --url) or of "
        "an OpenAPI 3 document (--openapi)",
        description="Write a world file with the tools of a real MCP server (started with -- "
        "COMMAND, or reached at --url) or of an OpenAPI 3 document, their names, descriptions "
        "and schemas kept as they are, to fill in with a state and fixtures.",
        examples=[
            HelpExample(f"mcp-sim import -o fs.yaml -- {FILESYSTEM_SERVER}", "a server over stdio"),
            HelpExample(
                "mcp-sim import --openapi examples/petstore.openapi.yaml -o petstore.yaml",
                "an OpenAPI document",
            ),
        ],
    )
    p.add_argument(
        "-o",
        "--output",
        type=values.output_file,
        required=True,
        metavar="WORLD",
        help="world file to write",
    )
    p.add_argument(
        "--openapi",
        type=values.existing_file("OpenAPI document"),
        metavar="FILE",
        help="import this OpenAPI 3 document (YAML/JSON)",
    )
    p.add_argument(
        "--world",
        type=values.text,
        metavar="ID",
        help="world id (default: from the server or API)",
    )
    _add_upstream_options(p)


def _add_record(subcommands: Subcommands) -> None:
    p = add_command(
        subcommands,
        "record",
        Command(RecordConfig.from_args, record),
        help="serve a real MCP server's tools, forwarding every call and journaling the real "
        "answers",
        description="Serve a real MCP server's tools in its place, forwarding every call to it "
        "and appending the real answers to a journal: the recording eval scores a simulator "
        "against and export turns into training rows.",
        examples=[
            HelpExample(
                f"mcp-sim record --journal real.jsonl -- {FILESYSTEM_SERVER}",
                "record a server over stdio, for an agent that speaks stdio",
            ),
            HelpExample(
                "mcp-sim record --url https://mcp.example.com/mcp --header 'Authorization: "
                "Bearer TOKEN' --journal real.jsonl --http 127.0.0.1:8766",
                "record a remote server, for an agent that speaks HTTP",
            ),
        ],
    )
    p.add_argument(
        "--journal",
        type=values.output_file,
        required=True,
        metavar="PATH",
        help="append real calls here",
    )
    p.add_argument(
        "--http",
        type=values.host_port,
        metavar="HOST:PORT",
        help="serve streamable HTTP at http://HOST:PORT/mcp instead of stdio",
    )
    p.set_defaults(address_flag="--http")  # named when the address is taken
    p.add_argument(
        "--world-out",
        type=values.output_file,
        metavar="WORLD",
        help="also write the imported world here",
    )
    p.add_argument("--journal-timing", action="store_true", help="record real latencies")
    _add_upstream_options(p)


def _add_eval(subcommands: Subcommands) -> None:
    p = add_command(
        subcommands,
        "eval",
        Command(EvalConfig.from_args, evaluate),
        help="replay a recorded journal teacher-forced and measure how close the simulator comes",
        description=EVAL_DESCRIPTION,
        examples=EVAL_EXAMPLES,
    )
    add_settings(p, REBUILDING)
    recorded = values.existing_file("journal")
    p.add_argument(
        "--journal", type=recorded, required=True, metavar="REAL", help="the recorded journal"
    )
    p.add_argument(
        "--world",
        type=values.existing_file("world"),
        metavar="WORLD",
        help="the world to simulate it in (or --example NAME)",
    )
    add_example_option(p)
    p.add_argument(
        "--json",
        type=values.output_file,
        metavar="PATH",
        help="write the report as JSON (default REAL.eval.json)",
    )
    p.add_argument(
        "--html",
        type=values.output_file,
        metavar="PATH",
        help="write the HTML report (default REAL.eval.html)",
    )
    p.add_argument(
        "--predictions",
        type=values.output_file,
        metavar="PATH",
        help="journal the simulator's predictions to this file",
    )
    p.add_argument(
        "--session",
        action="append",
        type=values.text,
        default=[],
        help="evaluate only this recorded session",
    )
    p.add_argument(
        "--max-calls",
        type=values.integer(minimum=1),
        metavar="N",
        help="evaluate the first N calls only",
    )
    _add_judge_options(p)


def _add_judge_options(parser: argparse.ArgumentParser) -> None:
    j = parser.add_argument_group("LLM judge (optional)")
    j.add_argument(
        "--judge-url",
        type=values.http_url,
        metavar="URL",
        help="OpenAI-compatible base URL of the judge",
    )
    j.add_argument(
        "--judge-model",
        type=values.text,
        help="judge model id (default: discovered from /v1/models)",
    )
    j.add_argument(
        "--judge-api-key",
        type=values.text,
        default=os.environ.get("MCP_SIM_JUDGE_API_KEY") or None,
        help="bearer key of the judge endpoint (env MCP_SIM_JUDGE_API_KEY)",
    )
    j.add_argument(
        "--judge-max-tokens",
        type=values.integer(minimum=1),
        default=32768,
        help="judge completion limit (32768)",
    )
    j.add_argument(
        "--judge-structured",
        action="store_true",
        help="ask the judge for schema-constrained JSON scores (small judges, guided decoding)",
    )


def _add_export(subcommands: Subcommands) -> None:
    # The settings are the ones the journal was served with: the prompts are rebuilt with the
    # same budgets and defaults (the embedded model's without --model-url).
    p = add_command(
        subcommands,
        "export",
        Command(ExportConfig.from_args, export),
        help="turn a journal into AgentWorldBench-style or chat-format SFT JSONL",
        description="Turn a journal into training rows: AgentWorldBench-style records, or chat "
        "SFT rows whose prompt is the one the world model is shown for the call and whose "
        "answer is the journal's.",
        examples=[
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
        ],
    )
    add_settings(p, REBUILDING)
    p.add_argument("--journal", type=values.existing_file("journal"), required=True, metavar="PATH")
    p.add_argument(
        "--world",
        type=values.existing_file("world"),
        metavar="WORLD",
        help="the world of the journal (or --example NAME)",
    )
    add_example_option(p)
    p.add_argument("--format", required=True, choices=["agentworld", "sft"])
    p.add_argument(
        "-o",
        "--output",
        type=values.output_file,
        required=True,
        metavar="PATH",
        help="JSONL file to write",
    )
    p.add_argument(
        "--source",
        action="append",
        default=[],
        choices=ANY_SOURCE,
        help="export only calls answered this way (repeatable; e.g. real)",
    )
