"""``mcp-sim serve`` and ``mcp-sim call``: the commands that answer tool calls with a simulated
world, and ``mcp-sim examples``. Their flags are declared in :mod:`mcp_sim.cli.serve_config`;
the work is in :mod:`mcp_sim.cli.serving` and :mod:`mcp_sim.cli.calling`, imported when the
command runs."""

from __future__ import annotations

from mcp_sim.cli import example_worlds
from mcp_sim.cli.command import Command, HelpExample, NoOptions, Subcommands, add_command
from mcp_sim.cli.serve_config import CallConfig, ServeConfig


class ExamplesList(NoOptions):
    """List the example worlds shipped with mcp-sim: each one's name, title and tools, and the
    folder they are in. Every command that reads a world file takes --example NAME in its place."""

    summary = "list the example worlds shipped with mcp-sim (serve one with --example NAME)"
    examples = (
        HelpExample("mcp-sim examples", "list them"),
        HelpExample("mcp-sim serve --example shop", "serve one of them on stdio"),
    )


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
    served = add_command(subcommands, "serve", Command(ServeConfig, serve))
    served.set_defaults(address_flag="--http")  # named when the address is taken
    add_command(subcommands, "call", Command(CallConfig, call), intermixed=True)
    add_command(subcommands, "examples", Command(ExamplesList, examples))
