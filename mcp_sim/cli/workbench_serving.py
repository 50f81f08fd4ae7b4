"""``mcp-sim ui``: the worlds that load served over HTTP as ``serve --http`` serves them, each
simulator watched so that every call's trace is kept, and the workbench page under ``/ui``. A
world file that does not load is shown on the page with its problems instead of ending the
command."""

from __future__ import annotations

from urllib.parse import quote

import anyio

from mcp_sim.api.worlds import Worlds
from mcp_sim.cli import serving
from mcp_sim.cli.console import say
from mcp_sim.cli.serve_config import ServeConfig
from mcp_sim.errors import SimError
from mcp_sim.ui.call_traces import TraceBook
from mcp_sim.ui.workbench_routes import Workbench
from mcp_sim.ui.world_files import WorldFiles


def run(config: ServeConfig) -> int:
    # The page's Reload serves the files anew: the server closes (and with it the model it
    # launched, if any) and starts again on the same address, with the same token.
    while anyio.run(_serve, config):
        say("workbench: reloading the world files")
    return 0


async def _serve(config: ServeConfig) -> bool:
    """Serve the workbench until the process is told to stop (False) or the page asks for
    the files to be read again (True)."""
    files = WorldFiles(config.worlds)
    for broken in files.files:
        for problem in broken.problems:
            say(f"not served: {problem}")
    if not files.worlds:
        # The page needs a world to call; the problems are above, with their lines.
        raise SimError("no world file loads: fix the problems above and start mcp-sim ui again")
    traces = TraceBook()
    opened = Worlds.open(*files.worlds, settings=config.settings, watch=traces.watcher, say=say)
    async with await opened as worlds:
        reload = anyio.Event()
        workbench = Workbench(worlds, traces, files, reload=reload.set)
        host, port = config.http or ("127.0.0.1", 0)
        shown_host = f"[{host}]" if ":" in host else host
        token = quote(config.settings.server.auth_token or "", safe="")
        page = f"workbench: http://{shown_host}:{port}/ui#token={token}"
        async with anyio.create_task_group() as tg:
            tg.start_soon(worlds.start_model)
            await serving.serve_worlds(
                config,
                worlds,
                workbench=workbench.app,
                stop=reload,
                on_listening=lambda: say(page),
            )
            tg.cancel_scope.cancel()
    return reload.is_set()
