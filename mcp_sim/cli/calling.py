"""``mcp-sim call``: one tool call, its observation on stdout and where it came from on stderr.
The world model is launched only if the call needs it (not for a fixture, a replayed answer
or an injected fault answer without one): the builder's model starts when first asked."""

from __future__ import annotations

import sys

import anyio

from mcp_sim.api.worlds import Worlds
from mcp_sim.cli.console import say
from mcp_sim.cli.serve_config import CallConfig
from mcp_sim.simulator.core import CallResult, UnknownTool

SESSION = "cli"


def run(config: CallConfig) -> int:
    code: int = anyio.run(_call, config)
    return code


async def _call(config: CallConfig) -> int:
    async with await Worlds.open(config.world, settings=config.settings, say=say) as worlds:
        simulator = worlds.simulator()
        if simulator.world.tool(config.tool) is None:
            say(str(UnknownTool(config.tool, simulator.world)))
            return 2
        result = await simulator.call(SESSION, config.tool, config.args or {})
        injected = simulator.journal.records(SESSION)[-1].perturbations
    _print(result, show_reasoning=config.show_reasoning)
    for record in injected:
        say(f"injected: {record['kind']} (profile {record['profile']}, rule {record['rule']})")
    return 1 if result.is_error else 0


def _print(result: CallResult, *, show_reasoning: bool) -> None:
    if show_reasoning and result.reasoning:
        print(
            f"--- reasoning ---\n{result.reasoning.strip()}\n--- observation ---", file=sys.stderr
        )
    print(result.text)
    say(f"source: {result.source}{', isError' if result.is_error else ''}")
