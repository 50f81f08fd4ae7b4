"""``mcp-sim serve``: worlds over MCP, one on stdio or several over streamable HTTP with their
episodes, while the world model starts beside them (calls that need the model wait for it;
pinned ones are answered at once). The system is built by :mod:`mcp_sim.api.assembly`, as
for every other command and the Python API."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import anyio
import anyio.abc
from mcp.server.transport_security import TransportSecuritySettings
from starlette.types import ASGIApp

from mcp_sim.api.worlds import Worlds
from mcp_sim.cli.console import say
from mcp_sim.cli.serve_config import ServeConfig
from mcp_sim.server.control_tools import ControlTools
from mcp_sim.server.hosting import HostingOptions, describe_routes, hosting_app
from mcp_sim.server.http_front import serve_http, transport_security
from mcp_sim.server.http_timeouts import HttpLimits
from mcp_sim.server.mcp_front import build_server, serve_stdio
from mcp_sim.server.snapshot_files import SnapshotFolder
from mcp_sim.ui.workbench_routes import PUBLIC_PATHS


def run(config: ServeConfig) -> int:
    anyio.run(_serve, config)
    return 0


async def _serve(config: ServeConfig) -> None:
    opened = Worlds.open(*config.worlds, settings=config.settings, say=say)
    async with await opened as worlds, anyio.create_task_group() as tg:
        tg.start_soon(worlds.start_model)
        if config.http is None:
            await _serve_stdio(config, worlds)
        else:
            await serve_worlds(config, worlds)
        tg.cancel_scope.cancel()


async def _serve_stdio(config: ServeConfig, worlds: Worlds) -> None:
    episodes = config.settings.episodes
    simulator = worlds.simulator()
    snapshots = SnapshotFolder(episodes.snapshot_dir) if episodes.snapshot_dir else None
    control = (
        ControlTools(worlds.hub, simulator.world.world, snapshots)
        if episodes.control_tools
        else None
    )
    server = build_server(simulator, default_session="stdio", control=control)
    world = simulator.world
    say(f"serving {world.world} ({len(world.tools)} tools) on stdio")
    await serve_stdio(server, max_message_bytes=config.settings.server.max_message_bytes)


async def serve_worlds(
    config: ServeConfig,
    worlds: Worlds,
    *,
    workbench: Callable[[TransportSecuritySettings], ASGIApp] | None = None,
    stop: anyio.Event | None = None,
    on_listening: Callable[[], None] | None = None,
) -> None:
    """Serve ``worlds`` over HTTP as ``config`` says, with the ``workbench`` app (built for
    the server's Host checks) under ``/ui`` if given, until the process is told to stop or
    ``stop`` is set. The served routes are listed, and ``on_listening`` called, once the
    address is bound: a taken one raises :class:`~mcp_sim.errors.ListenFailed` first."""
    server, episodes = config.settings.server, config.settings.episodes
    if server.http is None:
        raise ValueError("serve_worlds serves over HTTP: the settings name no --http address")
    host, port = server.http
    options = HostingOptions(
        host=host,
        auth_token=server.auth_token,
        session_idle_timeout=episodes.session_idle_timeout,
        allowed_hosts=tuple(server.allow_host),
        json_response=server.json_response,
        control_tools=episodes.control_tools,
        snapshots=SnapshotFolder(episodes.snapshot_dir) if episodes.snapshot_dir else None,
        max_body_bytes=server.max_body_bytes,
        openenv=server.openenv,
        max_message_bytes=server.max_message_bytes,
    )
    if workbench is not None:
        security = transport_security(host, list(server.allow_host))
        options = replace(options, workbench=workbench(security), public_paths=PUBLIC_PATHS)
    app = hosting_app(worlds, options)
    hub = worlds.hub
    named = ", ".join(f"{w} ({len(s.world.tools)} tools)" for w, s in hub.simulators.items())
    base = f"http://{f'[{host}]' if ':' in host else host}:{port}"
    routes = describe_routes(hub, base, openenv=server.openenv)

    def announce() -> None:
        say(f"serving {named} on {base}/mcp" if hub.default_world else f"serving {named}")
        for line in routes[1:] if hub.default_world else routes:
            say(f"  {line}")
        if on_listening is not None:
            on_listening()

    limits = HttpLimits(
        header_timeout=server.header_timeout,
        body_timeout=server.body_timeout,
        max_header_bytes=server.max_header_bytes,
    )
    await serve_http(app, host, port, limits, stop=stop, on_listening=announce)
