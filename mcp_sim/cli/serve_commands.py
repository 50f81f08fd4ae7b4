"""``mcp-sim serve`` and ``mcp-sim call``: the commands that answer tool calls with a simulated
world. Their flags and typed configuration live here; the work is in
:mod:`mcp_sim.cli.serving` and :mod:`mcp_sim.cli.calling`, imported when the command runs."""

from __future__ import annotations

import argparse
import os

from mcp_sim.cli import example_worlds, values
from mcp_sim.cli.command import CliParser, Command, HelpExample, Subcommands, add_command
from mcp_sim.cli.config import CallConfig
from mcp_sim.cli.serve_config import ServeConfig


def serve(config: ServeConfig) -> int:
    from mcp_sim.cli import serving  # the server stack, loaded for this command only

    return serving.run(config)


def call(config: CallConfig) -> int:
    from mcp_sim.cli import calling  # the simulator, loaded for this command only

    return calling.run(config)


def examples(args: argparse.Namespace) -> int:
    return example_worlds.list_examples()


def register(subcommands: Subcommands, parents: list[CliParser]) -> None:
    """Add ``serve``, ``call`` and ``examples``; ``parents`` carry the model and perturbation
    flags."""
    _add_serve(subcommands, parents)
    _add_call(subcommands, parents)
    add_command(
        subcommands,
        "examples",
        Command(lambda args: args, examples),
        help="list the example worlds shipped with mcp-sim (serve one with --example NAME)",
        description="List the example worlds shipped with mcp-sim: each one's name, title and "
        "tools, and the folder they are in. Every command that reads a world file takes "
        "--example NAME in its place.",
        examples=[
            HelpExample("mcp-sim examples", "list them"),
            HelpExample("mcp-sim serve --example shop", "serve one of them on stdio"),
        ],
    )


SERVE_DESCRIPTION = (
    "Serve worlds over MCP, every tool call answered by the world model: one world on stdio "
    "(the default, as an MCP host starts it), or any number over streamable HTTP with --http, "
    "where harnesses also start, fork and score episodes (/episodes)."
)
SERVE_EXAMPLES = [
    HelpExample("mcp-sim serve --example bookstore", "the bookstore example on stdio"),
    HelpExample(
        "mcp-sim serve worlds/ --http 127.0.0.1:8765 --journal calls.jsonl",
        "every world of a folder over HTTP, each call appended to a journal",
    ),
]


def _add_serve(subcommands: Subcommands, parents: list[CliParser]) -> None:
    p = add_command(
        subcommands,
        "serve",
        Command(ServeConfig.from_args, serve),
        help="serve worlds over MCP (stdio by default), with episodes over HTTP",
        description=SERVE_DESCRIPTION,
        examples=SERVE_EXAMPLES,
        parents=parents,
    )
    p.add_argument(
        "world",
        nargs="*",
        help="world spec (YAML), or a folder of them; several worlds need --http",
    )
    example_worlds.add_example_option(
        p,
        several=True,
        help="serve an example world shipped with mcp-sim (see `mcp-sim examples`), e.g. bookstore",
    )
    _add_http_flags(p)
    p.set_defaults(address_flag="--http")  # named when the address is taken
    _add_episode_store_flags(p)
    _add_limit_flags(p)
    p.add_argument(
        "--journal",
        type=values.output_file,
        metavar="PATH",
        help="append every call to this JSONL file",
    )
    p.add_argument(
        "--replay",
        type=values.existing_file("journal"),
        metavar="JOURNAL",
        help="answer calls from this journal (e.g. one written by `mcp-sim record`), matched "
        "by session, position, tool and arguments; other calls go to the model",
    )
    p.add_argument(
        "--world-memory",
        type=values.output_file,
        metavar="PATH",
        help="keep the pages, results and facts the world's web has shown in this SQLite file, "
        "across sessions, restarts and servers sharing it",
    )
    p.add_argument(
        "--control-tools",
        action="store_true",
        help="also offer snapshot/fork/reset as MCP tools (sim_*); hidden by default so an "
        "agent under test never sees them (over HTTP the /episodes API is always there)",
    )
    p.add_argument(
        "--snapshot-dir",
        type=values.existing_folder("snapshot folder"),
        metavar="DIR",
        help="with --control-tools: the one folder where sim_snapshot and sim_create_session "
        "save and load snapshot files, by plain file name",
    )


def add_access_flags(p: CliParser, *, token_help: str) -> None:
    """Who may reach an HTTP server: the operator's token and the Host headers accepted."""
    p.add_argument(
        "--auth-token",
        type=values.text,
        default=os.environ.get("MCP_SIM_AUTH_TOKEN") or None,
        help=token_help,
    )
    p.add_argument(
        "--allow-host",
        action="append",
        type=values.text,
        default=[],
        metavar="HOST",
        help="extra Host header to accept over HTTP (DNS-rebinding protection stays on)",
    )


def _add_http_flags(p: CliParser) -> None:
    p.add_argument(
        "--http",
        type=values.host_port,
        metavar="HOST:PORT",
        help="serve streamable HTTP at http://HOST:PORT (/mcp, /worlds/W/mcp, /episodes) "
        "instead of stdio",
    )
    add_access_flags(
        p, token_help="require 'Authorization: Bearer TOKEN' over HTTP (env MCP_SIM_AUTH_TOKEN)"
    )
    p.add_argument(
        "--session-idle-timeout",
        type=values.number(above=0),
        default=1800.0,
        metavar="SECONDS",
        help="forget HTTP sessions and episodes idle this long (default 1800)",
    )
    p.add_argument(
        "--json-response",
        action="store_true",
        help="over HTTP, answer each request with one JSON body instead of an event stream: "
        "no progress notifications, about half the server CPU per call (for many sessions)",
    )


def _add_limit_flags(p: CliParser) -> None:
    """How much a client may send, and how slowly."""
    p.add_argument(
        "--max-body-bytes",
        type=values.integer(minimum=1024),
        default=16 * 1024 * 1024,
        metavar="N",
        help="refuse episode API request bodies over N bytes with 413 (default 16 MiB)",
    )
    p.add_argument(
        "--max-message-bytes",
        type=values.integer(minimum=1024),
        default=4 * 1024 * 1024,
        metavar="N",
        help="refuse MCP messages over N bytes, on stdio and HTTP (default 4 MiB)",
    )
    p.add_argument(
        "--header-timeout",
        type=values.number(above=0),
        default=10.0,
        metavar="SECONDS",
        help="over HTTP, close connections whose request line and headers take longer (default 10)",
    )
    p.add_argument(
        "--body-timeout",
        type=values.number(above=0),
        default=60.0,
        metavar="SECONDS",
        help="over HTTP, close connections whose request body takes longer after its headers "
        "(default 60)",
    )
    p.add_argument(
        "--max-header-bytes",
        type=values.integer(minimum=1024),
        default=16 * 1024,
        metavar="N",
        help="over HTTP, refuse request lines and headers over N bytes with 431 (default 16 KiB)",
    )
    p.add_argument(
        "--openenv",
        action="store_true",
        help="over HTTP, also speak OpenEnv (WebSocket /ws, /reset, /step, /state, /health, "
        "/metadata, /schema): reset starts an episode, a step is a tool call",
    )


def _add_episode_store_flags(p: CliParser) -> None:
    p.add_argument(
        "--episode-store",
        type=values.episode_store,
        default="memory",
        metavar="URL",
        help="keep episodes durably, shared by every worker that names the same store: "
        "memory (default: this process only), sqlite:///PATH (the workers of one machine) or "
        "redis://HOST:PORT/DB (several machines; pip install 'mcp-sim[redis]')",
    )
    p.add_argument(
        "--episode-lease",
        type=values.number(above=0),
        default=15.0,
        metavar="SECONDS",
        help="with a durable --episode-store: how long a worker's hold on an episode lasts "
        "unless renewed (a dead worker's episodes move on after this; default 15)",
    )


def _add_call(subcommands: Subcommands, parents: list[CliParser]) -> None:
    p = add_command(
        subcommands,
        "call",
        Command(CallConfig.from_args, call),
        help="make one tool call and print the observation",
        description="Make one tool call in a world and print its observation on stdout, as a "
        "served world would answer it; where the answer came from (fixture, model) goes to "
        "stderr. The world model is started only if the call needs it.",
        examples=[
            HelpExample(
                """mcp-sim call --example bookstore search_books --args '{"query": "glass"}'""",
                "a call the world's fixture answers, no model needed",
            ),
            HelpExample(
                """mcp-sim call worlds/bookstore.yaml get_book --args '{"book_id": "b3"}' """
                "--model-url http://127.0.0.1:8000/v1",
                "a call the world model answers, at a model server of yours",
            ),
        ],
        parents=parents,
        intermixed=True,
    )
    p.add_argument("world", nargs="?", help="world spec (YAML); or give --example NAME")
    p.add_argument("tool", help="tool name")
    example_worlds.add_example_option(p)
    p.add_argument(
        "--args",
        type=values.json_object,
        metavar="JSON",
        help="arguments as a JSON object (default {})",
    )
    p.add_argument("--show-reasoning", action="store_true", help="print the model's reasoning")
    p.add_argument(
        "--journal",
        type=values.output_file,
        metavar="PATH",
        help="append the call to this JSONL file",
    )
    p.add_argument(
        "--world-memory",
        type=values.output_file,
        metavar="PATH",
        help="the world's memory file (see serve)",
    )
