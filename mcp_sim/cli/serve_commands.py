"""``mcp-sim serve`` and ``mcp-sim call``: the commands that answer tool calls with a simulated
world, and ``mcp-sim examples``. Their flags are declared in :mod:`mcp_sim.cli.serve_config`;
the server stack (:mod:`mcp_sim.server.serving`) and the simulator are imported when the
command runs.

``call`` prints the observation on stdout and where it came from on stderr. The world model is
launched only if the call needs it (not for a fixture, a replayed answer or an injected fault
answer without one): the builder's model starts when first asked."""

from __future__ import annotations

import sys

from mcp_sim.cli.command import Command, HelpExample, NoOptions, Subcommands, add_command
from mcp_sim.cli.console import say
from mcp_sim.cli.serve_config import CallConfig, ServeConfig
from mcp_sim.spec.world_files import EXAMPLES_DIR, example_names, example_path


class ExamplesList(NoOptions):
    """List the example worlds shipped with mcp-sim: each one's name, title and tools, and the
    folder they are in. Every command that reads a world file takes --example NAME in its place."""

    summary = "list the example worlds shipped with mcp-sim (serve one with --example NAME)"
    examples = (
        HelpExample("mcp-sim examples", "list them"),
        HelpExample("mcp-sim serve --example shop", "serve one of them on stdio"),
    )


def serve(config: ServeConfig) -> int:
    import anyio

    from mcp_sim.api.worlds import Worlds
    from mcp_sim.server.serving import serve_worlds
    from mcp_sim.suites.layout import SuiteLayout
    from mcp_sim.suites.serving import open_suite

    async def served() -> None:
        if config.suite is not None:
            opened = await open_suite(SuiteLayout(config.suite), config.settings, say=say)
        else:
            opened = await Worlds.open(*config.worlds, settings=config.settings, say=say)
        async with opened as worlds:
            await serve_worlds(worlds, config.settings, say)

    anyio.run(served)
    return 0


def call(config: CallConfig) -> int:
    import anyio

    from mcp_sim.api.worlds import Worlds
    from mcp_sim.simulator.core import UnknownTool

    async def called() -> int:
        async with await Worlds.open(config.world, settings=config.settings, say=say) as worlds:
            simulator = worlds.simulator()
            if simulator.world.tool(config.tool) is None:
                say(str(UnknownTool(config.tool, simulator.world)))
                return 2
            result = await simulator.call("cli", config.tool, config.args or {})
            injected = simulator.journal.records("cli")[-1].perturbations
        if config.show_reasoning and result.reasoning:
            reasoning = result.reasoning.strip()
            print(f"--- reasoning ---\n{reasoning}\n--- observation ---", file=sys.stderr)
        print(result.text)
        say(f"source: {result.source}{', isError' if result.is_error else ''}")
        for record in injected:
            say(f"injected: {record['kind']} (profile {record['profile']}, rule {record['rule']})")
        return 1 if result.is_error else 0

    status: int = anyio.run(called)
    return status


def examples(config: NoOptions) -> int:
    """Each example's name, title and tools, then where the files are."""
    from mcp_sim.spec.loading import load_world

    for name in example_names():
        world = load_world(example_path(name))
        tools = f"{len(world.tools)} tool{'' if len(world.tools) == 1 else 's'}"
        print(f"{name:<10} {world.title} ({tools}, domain {world.domain})")
    print(f"\nfiles in {EXAMPLES_DIR}; serve one with `mcp-sim serve --example NAME`")
    return 0


def register(subcommands: Subcommands) -> None:
    """Add ``serve``, ``call`` and ``examples``."""
    served = add_command(subcommands, "serve", Command(ServeConfig, serve))
    served.set_defaults(address_flag="--http")  # named when the address is taken
    add_command(subcommands, "call", Command(CallConfig, call), intermixed=True)
    add_command(subcommands, "examples", Command(ExamplesList, examples))
