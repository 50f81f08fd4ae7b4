"""Streamable HTTP: the SDK's transport as mcp-sim configures it, the app of one MCP server,
and serving an app with uvicorn."""

from __future__ import annotations

import contextlib
import socket
from collections.abc import AsyncIterator, Callable
from typing import Any

import anyio
import uvicorn
from mcp.server import Server
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.routing import Route, Router
from starlette.types import ASGIApp, Lifespan

from mcp_sim.server.event_store import (
    RETRY_MILLISECONDS,
    BoundedEventStore,
    PerSessionEventsManager,
)
from mcp_sim.server.guards import AccessGuard
from mcp_sim.server.http_messages import MessageCheck
from mcp_sim.server.http_timeouts import HeaderLimit, HttpLimits, timed_protocol
from mcp_sim.server.jsonrpc_check import MAX_MESSAGE_BYTES
from mcp_sim.server.listening import listening_sockets
from mcp_sim.server.shared_events import SharedEvents


def _has_port(host: str) -> bool:
    return host.rpartition("]")[2].count(":") == 1 if host.startswith("[") else ":" in host


def transport_security(host: str, allowed_hosts: list[str] | None) -> TransportSecuritySettings:
    """DNS-rebinding protection for a server bound to ``host``: requests must name a local
    host, ``host`` itself or one of ``allowed_hosts`` (with any port), and so must their
    Origin if they have one."""
    names = ["127.0.0.1", "localhost", "[::1]"]
    if host not in ("127.0.0.1", "localhost", "::1", "0.0.0.0", "::"):
        names.append(f"[{host}]" if ":" in host else host)
    names += allowed_hosts or []
    # The SDK matches "name:*" only when the Host header carries a port; clients on the default
    # port (behind a reverse proxy, say) send the bare name, so allow both forms.
    hosts = [h for name in names for h in ((name,) if _has_port(name) else (name, f"{name}:*"))]
    origins = [f"{scheme}://{h}" for h in hosts for scheme in ("http", "https")]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=origins
    )


def session_manager(
    server: Server[Any],
    security: TransportSecuritySettings,
    *,
    session_idle_timeout: float | None = 1800.0,
    json_response: bool = False,
    max_message_bytes: int = MAX_MESSAGE_BYTES,
    shared_events: SharedEvents | None = None,
) -> StreamableHTTPSessionManager:
    """The SDK's streamable HTTP transport for ``server``, as mcp-sim serves it. With
    ``json_response`` each POST is answered with one JSON body instead of an event stream:
    no progress notifications, and about half the server's CPU per call, for harnesses that
    run many sessions and do not need progress. With ``shared_events`` the streams' events
    are kept in the episode store, where any worker can replay them."""
    options: dict[str, Any] = {
        "json_response": json_response,
        "security_settings": security,
        "max_request_body_size": max_message_bytes,
        "session_idle_timeout": session_idle_timeout,
    }
    if json_response:  # JSON bodies cannot be resumed
        return StreamableHTTPSessionManager(server, **options)
    # Event streams can be resumed after a dropped connection, each session's its own.
    events = shared_events.scoped if shared_events is not None else BoundedEventStore().scoped
    return PerSessionEventsManager(
        server, events=events, retry_interval=RETRY_MILLISECONDS, **options
    )


def running(managers: list[StreamableHTTPSessionManager]) -> Lifespan[Any]:
    """A lifespan that runs every session manager for as long as the app is served."""

    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[None]:
        async with contextlib.AsyncExitStack() as stack:
            for manager in managers:
                await stack.enter_async_context(manager.run())
            yield

    return lifespan


def http_app(
    server: Server[Any],
    *,
    host: str = "127.0.0.1",
    auth_token: str | None = None,
    session_idle_timeout: float | None = 1800.0,
    allowed_hosts: list[str] | None = None,
    json_response: bool = False,
    max_message_bytes: int = MAX_MESSAGE_BYTES,
) -> ASGIApp:
    """One MCP server's streamable HTTP app (path ``/mcp``), DNS-rebinding protection always
    on, behind ``auth_token`` if given. (A server of worlds and episodes is
    :func:`mcp_sim.server.hosting.hosting_app`.)"""
    security = transport_security(host, allowed_hosts)
    manager = session_manager(
        server,
        security,
        session_idle_timeout=session_idle_timeout,
        json_response=json_response,
        max_message_bytes=max_message_bytes,
    )
    endpoint = MessageCheck(StreamableHTTPASGIApp(manager), max_message_bytes)
    router = Router(routes=[Route("/mcp", endpoint)], lifespan=running([manager]))
    return AccessGuard(router, auth_token, _no_episodes)


async def _no_episodes(token: str) -> None:
    """A server without episodes: no token but the operator's opens anything."""
    return None


def http_server(
    app: ASGIApp,
    host: str,
    port: int,
    limits: HttpLimits | None = None,
    *,
    graceful_seconds: int | None = None,
    on_listening: Callable[[], None] | None = None,
) -> uvicorn.Server:
    """uvicorn serving ``app``, clients held to ``limits`` (see
    :mod:`mcp_sim.server.http_timeouts`); once told to stop, it waits ``graceful_seconds`` at
    most for the requests in flight (without it, for as long as they last). ``on_listening``
    is called once it accepts connections."""
    limits = limits or HttpLimits()
    config = uvicorn.Config(
        HeaderLimit(app, limits.max_header_bytes),
        host=host,
        port=port,
        log_level="warning",
        lifespan="on",
        http=timed_protocol(limits),
        timeout_keep_alive=limits.keep_alive_timeout,
        h11_max_incomplete_event_size=limits.max_header_bytes,
        timeout_graceful_shutdown=graceful_seconds,
    )
    return _AnnouncingServer(config, on_listening)


class _AnnouncingServer(uvicorn.Server):
    """uvicorn's server, calling ``on_listening`` when its start-up is done (uvicorn has no
    hook of its own for it)."""

    def __init__(self, config: uvicorn.Config, on_listening: Callable[[], None] | None) -> None:
        super().__init__(config)
        self.on_listening = on_listening

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.started and self.on_listening is not None:
            self.on_listening()


STOP_GRACE_SECONDS = 5
"""How long a server told to stop (``serve_http``'s ``stop``) waits for the requests in
flight: an MCP client's event stream would otherwise hold it forever."""


async def serve_http(
    app: ASGIApp,
    host: str,
    port: int,
    limits: HttpLimits | None = None,
    *,
    stop: anyio.Event | None = None,
    on_listening: Callable[[], None] | None = None,
) -> None:
    """Serve ``app`` until the process is told to stop, or until ``stop`` is set: the server
    then closes as on Ctrl-C (its lifespan ends, its port is free) and this returns.

    The address is bound first: one that cannot be (taken, say) raises
    :class:`~mcp_sim.errors.ListenFailed` before anything else happens, and ``on_listening``
    is called once the server accepts connections, the moment to say that it serves."""
    raise_open_file_limit()
    sockets = listening_sockets(host, port)
    grace = None if stop is None else STOP_GRACE_SECONDS
    server = http_server(app, host, port, limits, graceful_seconds=grace, on_listening=on_listening)

    async def stop_when_told(stop: anyio.Event) -> None:
        await stop.wait()
        server.should_exit = True

    try:
        if stop is None:
            await server.serve(sockets)
            return
        async with anyio.create_task_group() as tg:
            tg.start_soon(stop_when_told, stop)
            await server.serve(sockets)
            tg.cancel_scope.cancel()
    finally:
        for sock in sockets:
            sock.close()


def raise_open_file_limit() -> None:
    """Raise this process's soft limit on open files to its hard limit. Every HTTP session
    keeps a connection open and every call in flight opens one more to the model, so a
    thousand sessions pass the usual soft limit of 1024, and the next client is refused."""
    try:
        import resource
    except ImportError:  # not on Windows, whose limit is far higher anyway
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        target = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 20)
        # A container may forbid it; serving then goes on within the old limit.
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
