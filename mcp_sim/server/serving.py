"""Worlds served as their settings say: one over MCP on stdio, or all of them and their
episodes over streamable HTTP (``mcp-sim serve``, ``mcp-sim ui``, or a Python program that
opened :class:`~mcp_sim.api.worlds.Worlds` itself)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import anyio
from mcp.server.transport_security import TransportSecuritySettings
from starlette.types import ASGIApp

from mcp_sim.api.worlds import Worlds
from mcp_sim.server.control_tools import ControlTools
from mcp_sim.server.hosting import HostingOptions, describe_routes, hosting_app
from mcp_sim.server.http_front import serve_http, transport_security
from mcp_sim.server.http_timeouts import HttpLimits
from mcp_sim.server.mcp_front import build_server, serve_stdio
from mcp_sim.settings.combined import Settings

Say = Callable[[str], None]


async def serve_worlds(worlds: Worlds, settings: Settings, say: Say) -> None:
    """Serve ``worlds`` as ``settings`` say (all over HTTP at the server's address, else the
    one world on stdio) while their world model starts beside them: calls that need the model
    wait for it, pinned ones are answered at once."""
    async with anyio.create_task_group() as tg:
        tg.start_soon(worlds.start_model)
        if settings.server.http is None:
            await serve_over_stdio(worlds, settings, say)
        else:
            await serve_over_http(worlds, settings, say=say)
        tg.cancel_scope.cancel()


async def serve_over_stdio(worlds: Worlds, settings: Settings, say: Say) -> None:
    """Serve the one world of ``worlds`` on stdin and stdout until the client leaves, with the
    control tools if the settings ask for them."""
    settings.check_served(len(worlds.hub.simulators))
    simulator = worlds.simulator()
    world = simulator.world
    control = None
    if settings.episodes.control_tools:
        snapshots = HostingOptions.of(settings).snapshots
        control = ControlTools(worlds.hub, world.world, snapshots)
    server = build_server(
        simulator,
        default_session="stdio",
        control=control,
        operator_resources=settings.episodes.operator_resources,
    )
    say(f"serving {world.world} ({len(world.tools)} tools) on stdio")
    await serve_stdio(server, max_message_bytes=settings.server.max_message_bytes)


async def serve_over_http(
    worlds: Worlds,
    settings: Settings,
    *,
    say: Say,
    workbench: Callable[[TransportSecuritySettings], ASGIApp] | None = None,
    public_paths: frozenset[str] = frozenset(),
    stop: anyio.Event | None = None,
    on_listening: Callable[[], None] | None = None,
) -> None:
    """Serve ``worlds`` over HTTP at the settings' address, with the ``workbench`` app (built
    for the server's Host checks, its ``public_paths`` open without a token) under ``/ui`` if
    given, until the process is told to stop or ``stop`` is set. The served routes are said,
    and ``on_listening`` called, once the address is bound: a taken one raises
    :class:`~mcp_sim.errors.ListenFailed` first."""
    server = settings.server
    if server.http is None:
        raise ValueError("serve_over_http serves over HTTP: the settings name no --http address")
    settings.check_served(len(worlds.hub.simulators))
    host, port = server.http
    options = HostingOptions.of(settings)
    if workbench is not None:
        security = transport_security(host, list(server.allow_host))
        options = replace(options, workbench=workbench(security), public_paths=public_paths)
    app = hosting_app(worlds, options)
    hub = worlds.hub
    named = ", ".join(f"{w} ({len(s.world.tools)} tools)" for w, s in hub.simulators.items())
    if hub.access.loader is not None:
        named = "a suite's worlds, each loaded on its first episode"
    base = f"http://{f'[{host}]' if ':' in host else host}:{port}"
    routes = describe_routes(hub, base, openenv=server.openenv)

    def announce() -> None:
        say(f"serving {named} on {base}/mcp" if hub.default_world else f"serving {named}")
        for line in routes[1:] if hub.default_world else routes:
            say(f"  {line}")
        if on_listening is not None:
            on_listening()

    await serve_http(app, host, port, HttpLimits.of(server), stop=stop, on_listening=announce)
