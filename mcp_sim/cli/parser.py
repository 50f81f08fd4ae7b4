"""The ``mcp-sim`` argument parser: every command and its flags, each command family declared
in its own module. Building it imports none of the machinery the commands run, so that
``mcp-sim --version`` and ``--help`` answer at once."""

from __future__ import annotations

from mcp_sim import __version__
from mcp_sim.cli import (
    engine_commands,
    fidelity_commands,
    harness_command,
    serve_commands,
    suite_commands,
    verify_command,
    workbench_command,
    world_commands,
)
from mcp_sim.cli.command import CliParser, HelpExample, HelpFormatter


def build_parser() -> CliParser:
    parser = CliParser(
        prog="mcp-sim",
        description="An MCP server whose tools are imaginary: every call is answered by a "
        "language world model. `mcp-sim COMMAND --help` says what a command does, with "
        "examples.",
        examples=[
            HelpExample("mcp-sim serve --example bookstore", "serve an example world on stdio"),
            HelpExample(
                """mcp-sim call --example bookstore search_books --args '{"query": "glass"}'""",
                "make one call in it and print the observation",
            ),
        ],
        formatter_class=HelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"mcp-sim {__version__}")
    subcommands = parser.add_subparsers(required=True, metavar="COMMAND")
    serve_commands.register(subcommands)
    world_commands.register(subcommands)
    fidelity_commands.register(subcommands)
    verify_command.register(subcommands)
    engine_commands.register(subcommands)
    harness_command.register(subcommands)
    workbench_command.register(subcommands)
    suite_commands.register(subcommands)
    return parser
