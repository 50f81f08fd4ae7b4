"""``mcp-sim serve`` and ``mcp-sim call``: the commands that answer tool calls with a simulated
world. Their flags are declared with their configuration (:mod:`mcp_sim.cli.serve_config`,
:mod:`mcp_sim.cli.config`); the work is in
:mod:`mcp_sim.cli.serving` and :mod:`mcp_sim.cli.calling`, imported when the command runs."""

from __future__ import annotations

from mcp_sim.cli import example_worlds
from mcp_sim.cli.arguments import NoOptions
from mcp_sim.cli.command import Command, HelpExample, Subcommands, add_command
from mcp_sim.cli.config import CallConfig
from mcp_sim.cli.serve_config import ServeConfig


def serve(config: ServeConfig) -> int:
    from mcp_sim.cli import serving  # the server stack, loaded for this command only

    return serving.run(config)


def call(config: CallConfig) -> int:
    from mcp_sim.cli import calling  # the simulator, loaded for this command only

    return calling.run(config)


def examples(config: NoOptions) -> int:
    return example_worlds.list_examples()


def register(subcommands: Subcommands) -> None:
    """Add ``serve``, ``call`` and ``examples``."""
    _add_serve(subcommands)
    _add_call(subcommands)
    add_command(
        subcommands,
        "examples",
        Command(NoOptions, examples),
        help="list the example worlds shipped with mcp-sim (serve one with --example NAME)",
        description="List the example worlds shipped with mcp-sim: each one's name, title and "
        "tools, and the folder they are in. Every command that reads a world file takes "
        "--example NAME in its place.",
        examples=[
            HelpExample("mcp-sim examples", "list them"),
            HelpExample("mcp-sim serve --example shop", "serve one of them on stdio"),
        ],
    )


def _add_serve(subcommands: Subcommands) -> None:
    served = add_command(
        subcommands,
        "serve",
        Command(ServeConfig, serve),
        help="serve worlds over MCP (stdio by default), with episodes over HTTP",
        description="Serve worlds over MCP, every tool call answered by the world model: one "
        "world on stdio (the default, as an MCP host starts it), or any number over streamable "
        "HTTP with --http, where harnesses also start, fork and score episodes (/episodes).",
        examples=[
            HelpExample("mcp-sim serve --example bookstore", "the bookstore example on stdio"),
            HelpExample(
                "mcp-sim serve worlds/ --http 127.0.0.1:8765 --journal calls.jsonl",
                "every world of a folder over HTTP, each call appended to a journal",
            ),
        ],
    )
    served.set_defaults(address_flag="--http")  # named when the address is taken


def _add_call(subcommands: Subcommands) -> None:
    add_command(
        subcommands,
        "call",
        Command(CallConfig, call),
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
        intermixed=True,
    )
