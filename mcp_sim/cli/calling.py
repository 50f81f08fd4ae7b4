"""``mcp-sim call``: one tool call, its observation on stdout and where it came from on stderr.
The world model is launched only if the call needs it (a fixture, a replayed answer or an
injected fault answer without one)."""

from __future__ import annotations

import sys
from contextlib import AsyncExitStack
from dataclasses import replace

import anyio

from mcp_sim.cli import wiring
from mcp_sim.cli.config import CallConfig
from mcp_sim.cli.console import say
from mcp_sim.simulator.core import CallResult, UnknownTool

SESSION = "cli"


def run(config: CallConfig) -> int:
    code: int = anyio.run(_call, config)
    return code


async def _call(config: CallConfig) -> int:
    world = wiring.load(config.world)
    config = replace(config, simulation=await wiring.with_served_window(config.simulation))
    async with AsyncExitStack() as stack:
        simulator = wiring.open_simulator(
            stack,
            world,
            config.simulation,
            journal=config.journal,
            perturbations=wiring.perturber(config.perturb, world),
            memory=config.world_memory,
        )
        if world.tool(config.tool) is None:
            say(str(UnknownTool(config.tool, world)))
            return 2
        if not simulator.answers_without_model(config.tool, config.arguments, SESSION):
            simulator.model = await stack.enter_async_context(
                wiring.launched_model(config.simulation.model, say)
            )
        result = await simulator.call(SESSION, config.tool, config.arguments)
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
