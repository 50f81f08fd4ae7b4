"""The workbench served: the worlds that load served over HTTP as ``serve --http`` serves
them, each simulator watched so that every call's trace is kept, and the page under ``/ui``.
A world file that does not load is shown on the page with its problems instead of ending the
server."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Sequence
from pathlib import Path
from urllib.parse import quote

import anyio

from mcp_sim.api.worlds import Worlds
from mcp_sim.errors import SimError
from mcp_sim.server.serving import serve_over_http
from mcp_sim.settings.combined import Settings
from mcp_sim.ui.call_traces import TraceBook
from mcp_sim.ui.workbench_routes import PUBLIC_PATHS, Workbench
from mcp_sim.ui.world_files import WorldFiles


def workbench_settings(settings: Settings, address: tuple[str, int]) -> Settings:
    """``settings`` for a workbench served at ``address``, behind the designer's token or one
    made up: a page on loopback is still reachable by every local user and program, so it is
    never served without one (the page's URL gives it, as Jupyter does)."""
    token = settings.server.auth_token or secrets.token_urlsafe(24)
    server = settings.server.model_copy(update={"http": address, "auth_token": token})
    return settings.model_copy(update={"server": server})


async def serve_workbench(
    paths: Sequence[Path], settings: Settings, say: Callable[[str], None]
) -> bool:
    """Serve the workbench of the world files at ``paths`` as ``settings`` say (see
    :func:`workbench_settings`) until the
    process is told to stop (False) or the page asks for the files to be read again (True).
    The page's URL, with the token, is said once the server listens."""
    files = WorldFiles(paths)
    for broken in files.files:
        for problem in broken.problems:
            say(f"not served: {problem}")
    if not files.worlds:
        # The page needs a world to call; the problems are above, with their lines.
        raise SimError("no world file loads: fix the problems above and start mcp-sim ui again")
    traces = TraceBook()
    opened = Worlds.open(*files.worlds, settings=settings, watch=traces.watcher, say=say)
    async with await opened as worlds:
        reload = anyio.Event()
        workbench = Workbench(worlds, traces, files, reload=reload.set)
        host, port = settings.server.http or ("127.0.0.1", 0)
        shown_host = f"[{host}]" if ":" in host else host
        token = quote(settings.server.auth_token or "", safe="")
        page = f"workbench: http://{shown_host}:{port}/ui#token={token}"
        async with anyio.create_task_group() as tg:
            tg.start_soon(worlds.start_model)
            await serve_over_http(
                worlds,
                settings,
                say=say,
                workbench=workbench.app,
                public_paths=PUBLIC_PATHS,
                stop=reload,
                on_listening=lambda: say(page),
            )
            tg.cancel_scope.cancel()
    return reload.is_set()
