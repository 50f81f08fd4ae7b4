"""``mcp-sim serve`` and ``mcp-sim call``: the commands that answer tool calls with a simulated
world. Their flags and typed configuration live here; the work is in
:mod:`mcp_sim.cli.serving` and :mod:`mcp_sim.cli.calling`, imported when the command runs."""

from __future__ import annotations

import argparse

from mcp_sim.cli import example_worlds
from mcp_sim.cli.command import Command, Subcommands, add_command
from mcp_sim.cli.config import CallConfig
from mcp_sim.cli.serve_config import ServeConfig
from mcp_sim.cli.settings_flags import SIMULATION, add_settings, group_names
from mcp_sim.settings import values
from mcp_sim.settings.combined import SETTINGS

CALL_SETTINGS = (*SIMULATION, *group_names("records"))


def serve(config: ServeConfig) -> int:
    from mcp_sim.cli import serving  # the server stack, loaded for this command only

    return serving.run(config)


def call(config: CallConfig) -> int:
    from mcp_sim.cli import calling  # the simulator, loaded for this command only

    return calling.run(config)


def examples(args: argparse.Namespace) -> int:
    return example_worlds.list_examples()


def register(subcommands: Subcommands) -> None:
    """Add ``serve``, ``call`` and ``examples``."""
    _add_serve(subcommands)
    _add_call(subcommands)
    add_command(
        subcommands,
        "examples",
        Command(lambda args: args, examples),
        help="list the example worlds shipped with mcp-sim (serve one with --example NAME)",
    )


def _add_serve(subcommands: Subcommands) -> None:
    p = add_command(
        subcommands,
        "serve",
        Command(ServeConfig.from_args, serve),
        help="serve worlds over MCP (stdio by default), with episodes over HTTP",
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
    add_settings(p, SETTINGS)


def _add_call(subcommands: Subcommands) -> None:
    p = add_command(
        subcommands,
        "call",
        Command(CallConfig.from_args, call),
        help="make one tool call and print the observation",
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
    add_settings(p, CALL_SETTINGS)
