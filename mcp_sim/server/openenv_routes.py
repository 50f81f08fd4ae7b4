"""``serve --openenv``: OpenEnv's HTTP and WebSocket endpoints next to the MCP ones::

      WS   /ws         one environment per connection: reset, step, state, mcp, close
      POST /reset      a stateless reset: a fresh episode, its first observation, ended
      POST /step       a stateless step: one action on a fresh episode, which then ends
      GET  /state      the state of a fresh environment (no episode)
      GET  /health     {"status": "healthy"}
      GET  /metadata   the worlds' name, description and mcp-sim's version
      GET  /schema     the JSON Schemas of actions, observations and state

The HTTP ``/reset`` and ``/step`` are stateless as OpenEnv's own server makes them (a new
environment per request); clients keep an episode over ``/ws``, as ``openenv-core``'s
``EnvClient`` and ``MCPToolClient`` do. OpenEnv's production ``POST /mcp`` is not served:
that path is the world's own MCP endpoint, which MCP clients reach directly.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import anyio
from pydantic import ValidationError
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from mcp_sim import __version__
from mcp_sim.api.worlds import Worlds
from mcp_sim.server.episode_routes import ERROR_REPLIES, request_object
from mcp_sim.server.guards import HostGuard
from mcp_sim.server.openenv_protocol import schemas
from mcp_sim.server.openenv_session import (
    OpenEnvSession,
    answer_message,
    validation_errors,
    ws_error,
)

OPENENV_PATHS = ("/reset", "/step", "/state", "/health", "/metadata", "/schema")
OPENENV_SOCKET = "/ws"


DEFAULT_MAX_SOCKETS = 1000
DEFAULT_SOCKET_IDLE_SECONDS = 300.0


@dataclass(frozen=True)
class SocketLimits:
    """How many OpenEnv sockets may be open at once, and how long one may say nothing."""

    max_open: int = DEFAULT_MAX_SOCKETS
    idle_seconds: float = DEFAULT_SOCKET_IDLE_SECONDS


class OpenEnvEndpoints:
    """OpenEnv's endpoints over one set of worlds."""

    def __init__(self, worlds: Worlds, limits: SocketLimits | None = None) -> None:
        self.worlds = worlds
        self.limits = limits or SocketLimits()
        self.open_sockets = 0

    def app(self, **guard: Any) -> Starlette:
        """The endpoints as one app behind the Host/Origin check (``guard``: its options)."""
        return Starlette(
            routes=[
                Route("/reset", self.reset, methods=["POST"]),
                Route("/step", self.step, methods=["POST"]),
                Route("/state", self.state, methods=["GET"]),
                Route("/health", self.health, methods=["GET"]),
                Route("/metadata", self.metadata, methods=["GET"]),
                Route("/schema", self.schema, methods=["GET"]),
                WebSocketRoute(OPENENV_SOCKET, self.socket),
            ],
            middleware=[Middleware(HostGuard, **guard)],
            exception_handlers=ERROR_REPLIES,
        )

    async def socket(self, websocket: WebSocket) -> None:
        await websocket.accept()
        if self.open_sockets >= self.limits.max_open:
            # As OpenEnv's server says it: an error message, then the socket closes.
            message = f"{self.open_sockets} sockets are open, the limit (--max-websockets)"
            await websocket.send_json(ws_error("CAPACITY_REACHED", message))
            await websocket.close(code=1013)  # try again later
            return
        self.open_sockets += 1
        try:
            await self._serve(websocket)
        finally:
            self.open_sockets -= 1

    async def _serve(self, websocket: WebSocket) -> None:
        session = OpenEnvSession(self.worlds)
        try:
            while True:
                with anyio.move_on_after(self.limits.idle_seconds) as idle:
                    frame = await websocket.receive()
                if idle.cancelled_caught:
                    message = f"nothing sent for {self.limits.idle_seconds:g} s: closed"
                    await websocket.send_json(ws_error("SESSION_ERROR", message))
                    break
                if frame["type"] == "websocket.disconnect":
                    return
                # A binary frame has no "text": answered as OpenEnv answers bad JSON.
                reply = await answer_message(session, frame.get("text"))
                if reply is None:
                    break
                await websocket.send_json(reply)
            await websocket.close()
        except WebSocketDisconnect:
            pass
        finally:
            await session.close()

    async def reset(self, request: Request) -> Response:
        session = OpenEnvSession(self.worlds)
        try:
            return JSONResponse(await session.reset(await request_object(request)))
        finally:
            await session.close()

    async def step(self, request: Request) -> Response:
        body = await request_object(request)
        if not isinstance(body.get("action"), dict):
            raise ValueError("the body needs an 'action' object")
        session = OpenEnvSession(self.worlds)
        try:
            return JSONResponse(await session.step(body["action"]))
        except ValidationError as exc:
            return JSONResponse({"detail": validation_errors(exc)}, status_code=422)
        finally:
            await session.close()

    async def state(self, request: Request) -> Response:
        return JSONResponse(await OpenEnvSession(self.worlds).state())

    async def health(self, request: Request) -> Response:
        return JSONResponse({"status": "healthy"})

    async def metadata(self, request: Request) -> Response:
        worlds = [self.worlds.world(name) for name in self.worlds.names]
        return JSONResponse(
            {
                "name": ", ".join(w.world for w in worlds),
                "description": " | ".join(w.title for w in worlds),
                "readme_content": None,
                "version": __version__,
                "author": None,
                "documentation_url": None,
            }
        )

    async def schema(self, request: Request) -> Response:
        return JSONResponse(schemas())
