"""The commands that work with real tools: ``import``, ``record``, ``eval`` and ``export``.
Their flags are declared in :mod:`mcp_sim.cli.config`; the work is in
:mod:`mcp_sim.cli.fidelity_runs`, imported when one of them runs."""

from __future__ import annotations

from mcp_sim.cli.command import Command, HelpExample, Subcommands, add_command
from mcp_sim.cli.config import EvalConfig, ExportConfig, ImportConfig, RecordConfig

FILESYSTEM_SERVER = "npx -y @modelcontextprotocol/server-filesystem /tmp"
"""A real MCP server the examples start over stdio."""


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
    _add_import_and_record(subcommands)
    _add_eval_and_export(subcommands)


def _add_import_and_record(subcommands: Subcommands) -> None:
    add_command(
        subcommands,
        "import",
        Command(ImportConfig, import_world),
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
    recording = add_command(
        subcommands,
        "record",
        Command(RecordConfig, record),
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
    recording.set_defaults(address_flag="--http")  # named when the address is taken


def _add_eval_and_export(subcommands: Subcommands) -> None:
    add_command(
        subcommands,
        "eval",
        Command(EvalConfig, evaluate),
        help="replay a recorded journal teacher-forced and measure how close the simulator comes",
        description="Replay a journal of real calls (written by record) teacher-forced: the "
        "simulator answers each call with the real history before it, and each answer is "
        "scored against the real one, per tool, in a JSON and an HTML report.",
        examples=[
            HelpExample(
                "mcp-sim eval --journal real.jsonl --world fs.yaml", "score the embedded model"
            ),
            HelpExample(
                "mcp-sim eval --journal real.jsonl --world fs.yaml --max-calls 50 "
                "--model-url http://127.0.0.1:8000/v1 --judge-url http://127.0.0.1:8001/v1",
                "score a model of yours on the first 50 calls, with an LLM judge",
            ),
        ],
    )
    add_command(
        subcommands,
        "export",
        Command(ExportConfig, export),
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
