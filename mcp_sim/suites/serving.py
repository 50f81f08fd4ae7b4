"""A suite served from one process: its worlds (by the manifest) loaded on their first
episode and unloaded when idle, episodes opened by world and task across all of them."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AsyncExitStack

from mcp_sim.api.assembly import assemble_lazily
from mcp_sim.api.worlds import Worlds
from mcp_sim.models.base import WorldModel
from mcp_sim.settings.combined import Settings
from mcp_sim.suites.layout import SuiteLayout
from mcp_sim.suites.manifest import read_manifest


async def open_suite(
    layout: SuiteLayout,
    settings: Settings | None = None,
    *,
    model: WorldModel | None = None,
    say: Callable[[str], None] = lambda message: None,
) -> Worlds:
    """The suite's worlds, none loaded yet; ``hub.create(world, task=...)`` loads one, and
    ``hub.unload_idle()`` unloads those without a live episode. Close it when done."""
    files = {w["id"]: layout.root / w["file"] for w in read_manifest(layout)["worlds"]}
    stack = AsyncExitStack()
    try:
        system = await assemble_lazily(stack, files, settings or Settings(), model=model, say=say)
    except BaseException:
        await stack.aclose()
        raise
    return Worlds(system.hub, model=system.model, resources=stack)
