"""The HTTP app of a server of worlds and episodes: each world's MCP endpoint, each episode's,
the episode API and the metrics, behind the access rules of
:class:`mcp_sim.server.guards.AccessGuard`.

Every world gets its own MCP server and transport (one session manager each); an episode's
endpoint is its world's transport with the episode marked on each request, so the same world
code answers shared sessions and episodes alike.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.routing import BaseRoute, Route, Router, WebSocketRoute
from starlette.types import ASGIApp, Lifespan

from mcp_sim.api.worlds import Worlds
from mcp_sim.episodes.hub import EpisodeHub
from mcp_sim.episodes.limits import EpisodeLimits
from mcp_sim.server.control_tools import ControlTools
from mcp_sim.server.episode_routes import ERROR_REPLIES, EpisodeEndpoints, EpisodeMcp, WorldMcp
from mcp_sim.server.event_store import PerSessionEventsManager
from mcp_sim.server.guards import DEFAULT_MAX_BODY_BYTES, AccessGuard, BodyLimit, HostGuard
from mcp_sim.server.http_front import running, session_manager, transport_security
from mcp_sim.server.http_messages import MessageCheck
from mcp_sim.server.jsonrpc_check import MAX_MESSAGE_BYTES
from mcp_sim.server.lazy_endpoints import LazyWorldEndpoints
from mcp_sim.server.mcp_front import build_server
from mcp_sim.server.metrics_routes import MetricsEndpoints
from mcp_sim.server.openenv_routes import (
    DEFAULT_MAX_SOCKETS,
    DEFAULT_SOCKET_IDLE_SECONDS,
    OPENENV_PATHS,
    OPENENV_SOCKET,
    OpenEnvEndpoints,
    SocketLimits,
)
from mcp_sim.server.shared_events import ResumeElsewhere, SharedEvents
from mcp_sim.server.snapshot_files import SnapshotFolder
from mcp_sim.settings.combined import Settings
from mcp_sim.simulator.core import Simulator


@dataclass(frozen=True)
class HostingOptions:
    """How the worlds are served over HTTP."""

    host: str = "127.0.0.1"
    auth_token: str | None = None
    """The operator's token; without it every route is open (loopback development)."""
    session_idle_timeout: float | None = 1800.0
    allowed_hosts: tuple[str, ...] = ()
    json_response: bool = False
    control_tools: bool = False
    operator_resources: bool = False
    """Serve the world spec and session resources on the shared endpoints (never on an
    episode's)."""
    snapshots: SnapshotFolder | None = None
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    """The largest request body of the episode API (a snapshot)."""
    max_message_bytes: int = MAX_MESSAGE_BYTES
    """The largest message to an MCP endpoint."""
    openenv: bool = False
    """Serve OpenEnv's endpoints too (:mod:`mcp_sim.server.openenv_routes`)."""
    max_websockets: int = DEFAULT_MAX_SOCKETS
    """OpenEnv WebSockets open at once, at most."""
    websocket_idle_timeout: float = DEFAULT_SOCKET_IDLE_SECONDS
    """Seconds an OpenEnv WebSocket may send nothing before it is closed."""
    workbench: ASGIApp | None = None
    """The designer's page and its API under ``/ui`` (``mcp-sim ui``)."""
    public_paths: frozenset[str] = frozenset()
    """Paths any request may GET, token or not (the workbench's page files, which hold no
    data)."""

    @classmethod
    def of(cls, settings: Settings) -> HostingOptions:
        """The options ``settings`` give: its server's access rules and its episodes'."""
        server, episodes = settings.server, settings.episodes
        return cls(
            host=server.http[0] if server.http else cls.host,
            auth_token=server.auth_token,
            session_idle_timeout=episodes.session_idle_timeout,
            allowed_hosts=tuple(server.allow_host),
            json_response=server.json_response,
            control_tools=episodes.control_tools,
            operator_resources=episodes.operator_resources,
            snapshots=_snapshot_folder(settings),
            max_body_bytes=server.max_body_bytes,
            openenv=server.openenv,
            max_websockets=server.max_websockets,
            websocket_idle_timeout=server.websocket_idle_timeout,
            max_message_bytes=server.max_message_bytes,
        )


API_PATHS = (
    "/episodes",
    "/episodes/{path:path}",
    "/worlds/{world}/tasks",
    "/openapi.json",
    "/control/{path:path}",
    "/metrics",
)
"""The paths the episode API and the metrics answer (each passed to them whole)."""


def _snapshot_folder(settings: Settings) -> SnapshotFolder | None:
    episodes = settings.episodes
    if episodes.snapshot_dir is None:
        return None
    limits = EpisodeLimits(max_snapshot_values=episodes.max_snapshot_values)
    return SnapshotFolder(episodes.snapshot_dir, limits=limits)


def hosting_app(worlds: Worlds, options: HostingOptions | None = None) -> ASGIApp:
    """The app serving every world of ``worlds`` and its episodes."""
    options = options or HostingOptions()
    hub = worlds.hub
    security = transport_security(options.host, list(options.allowed_hosts))
    # With a durable store, the streams' events are kept there: a client resumes its stream
    # on whichever worker it reaches (mcp_sim.server.shared_events).
    shared = SharedEvents(hub.durable.store) if hub.durable is not None else None
    endpoint = functools.partial(_world_endpoint, hub, options, security, shared)
    lifespan: Lifespan[Any]
    endpoints: Mapping[str, ASGIApp]
    if hub.access.loader is not None:
        lazy = LazyWorldEndpoints(hub, endpoint)
        endpoints, lifespan = lazy, lazy.lifespan
    else:
        built = {name: endpoint(name, simulator) for name, simulator in hub.simulators.items()}
        endpoints = {name: app for name, (_, app) in built.items()}
        lifespan = running([manager for manager, _ in built.values()])
    api = Starlette(
        routes=EpisodeEndpoints(hub, openenv=options.openenv).routes()
        + MetricsEndpoints(hub).routes(),
        middleware=[
            Middleware(HostGuard, security=security),
            Middleware(BodyLimit, max_bytes=options.max_body_bytes),
        ],
        exception_handlers=ERROR_REPLIES,
    )
    only = hub.default_world
    routes: list[BaseRoute] = [
        Route("/mcp", WorldMcp(endpoints, only=only)),
        Route("/worlds/{world}/mcp", WorldMcp(endpoints)),
        Route("/episodes/{id}/mcp", EpisodeMcp(hub, endpoints)),
    ]
    # A Route to an ASGI app takes every method and leaves the path as it is, so the API
    # answers its own 404s and 405s after the Host check.
    routes += [Route(path, api) for path in API_PATHS]
    if options.openenv:
        sockets = SocketLimits(options.max_websockets, options.websocket_idle_timeout)
        openenv = OpenEnvEndpoints(worlds, sockets).app(security=security)
        routes += [Route(path, openenv) for path in OPENENV_PATHS]
        routes.append(WebSocketRoute(OPENENV_SOCKET, openenv))
    if options.workbench is not None:
        routes += [Route(path, options.workbench) for path in ("/ui", "/ui/{path:path}")]
    router = Router(routes=routes, lifespan=lifespan)
    guarded = functools.partial(AccessGuard, token_opens=hub.token_opens)
    return guarded(router, options.auth_token, hub.token_holder, public=options.public_paths)


def _endpoint(
    manager: StreamableHTTPSessionManager,
    options: HostingOptions,
    shared: SharedEvents | None,
    security: TransportSecuritySettings,
) -> ASGIApp:
    """A world's transport, with the messages posted to it checked first (once the route has
    found the world or episode, so an unknown one is a 404 whatever the body), resuming other
    workers' streams too when its events are shared."""
    endpoint = MessageCheck(manager.handle_request, options.max_message_bytes)
    if shared is not None and isinstance(manager, PerSessionEventsManager):
        return ResumeElsewhere(endpoint, manager, shared, security)
    return endpoint


def describe_routes(hub: EpisodeHub, base_url: str, *, openenv: bool = False) -> list[str]:
    """What a newly started server says it serves, one line each."""
    lines = []
    if hub.default_world:
        lines.append(f"{base_url}/mcp (the shared endpoint of {hub.default_world})")
    else:
        lines += [f"{base_url}/worlds/{name}/mcp" for name in hub.simulators]
    lines.append(f"{base_url}/episodes (POST to start an episode with its own URL and token)")
    if openenv:
        lines.append(f"{base_url}/ws (OpenEnv: reset, step, state; base URL {base_url})")
    return lines


def _world_endpoint(
    hub: EpisodeHub,
    options: HostingOptions,
    security: TransportSecuritySettings,
    shared: SharedEvents | None,
    name: str,
    simulator: Simulator,
) -> tuple[StreamableHTTPSessionManager, ASGIApp]:
    """A world's MCP session manager, and its endpoint (see :func:`_endpoint`)."""
    is_episode = functools.partial(hub.is_episode, name)
    control = None
    if options.control_tools:
        control = ControlTools(hub, name, options.snapshots)
    server = build_server(
        simulator,
        control=control,
        is_episode=is_episode,
        operator_resources=options.operator_resources,
    )
    manager = session_manager(
        server,
        security,
        session_idle_timeout=options.session_idle_timeout,
        json_response=options.json_response,
        max_message_bytes=options.max_message_bytes,
        shared_events=shared,
    )
    return manager, _endpoint(manager, options, shared, security)
