"""The HTTP control API, next to ``/mcp`` behind the same bearer token and Host checks::

      GET    /control/sessions                   list live sessions
      POST   /control/sessions                   create one: {"id"?, "seed"?, "snapshot"?}
      GET    /control/sessions/{id}              one session's summary
      DELETE /control/sessions/{id}              drop it
      GET    /control/sessions/{id}/state        its state document and version
      POST   /control/sessions/{id}/reset        back to the world's start: {"seed"?}
      POST   /control/sessions/{id}/snapshot     the snapshot document (save the body to a file)
      POST   /control/sessions/{id}/fork         a new session from it: {"id"?, "seed"?} → id
      GET    /control/sessions/{id}/journal      its journal, one JSON object per line
      GET    /control/metrics                    sessions, calls, latency, tokens, errors (JSON)
      GET    /metrics                            the same in the Prometheus text format

(``/metrics`` sits outside ``/control`` because that is where Prometheus looks by default.)

A snapshot saved from ``.../snapshot`` is loaded by posting it back as ``{"snapshot": ...}``
to ``/control/sessions``. The HTTP API never reads or writes files on the server.

Errors are JSON ``{"error": code, "message": ...}``: 404 ``unknown_session``, 409
``session_exists``, 400 ``invalid_snapshot`` and 400 ``bad_request`` (a body that is not a JSON
object, or a field of the wrong type).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from mcp_sim.errors import SessionExists, SnapshotInvalid, UnknownSession
from mcp_sim.runtime.session import Snapshot
from mcp_sim.server.control import Control
from mcp_sim.server.guards import HostGuard
from mcp_sim.simulator.metrics import PROMETHEUS_CONTENT_TYPE

ErrorReply = Callable[[Request, Exception], Awaitable[Response]]


def _error_reply(status: int, code: str) -> ErrorReply:
    async def reply(request: Request, exc: Exception) -> Response:
        return JSONResponse({"error": code, "message": str(exc)}, status_code=status)

    return reply


ERROR_REPLIES: Mapping[type[Exception], ErrorReply] = {
    UnknownSession: _error_reply(404, "unknown_session"),
    SessionExists: _error_reply(409, "session_exists"),
    SnapshotInvalid: _error_reply(400, "invalid_snapshot"),
    ValueError: _error_reply(400, "bad_request"),
}
"""The control errors as HTTP replies, once, at the boundary (Starlette picks the handler of
the nearest class in an exception's MRO)."""


async def _body(request: Request) -> dict[str, Any]:
    raw = await request.body()
    if not raw.strip():
        return {}
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ValueError(f"the request body is not JSON: {exc.msg}") from None
    if not isinstance(data, dict):
        raise ValueError("the request body must be a JSON object")
    return data


def _optional(data: dict[str, Any], key: str, kind: type) -> Any:
    value = data.get(key)
    if value is not None and (not isinstance(value, kind) or isinstance(value, bool)):
        raise ValueError(f"{key!r} must be a {kind.__name__}")
    return value


class ControlEndpoints:
    """One endpoint per operation of the control API, on one :class:`Control`."""

    def __init__(self, control: Control) -> None:
        self.control = control

    def routes(self) -> list[Route]:
        base = "/control/sessions"
        return [
            Route(base, self.list_sessions, methods=["GET"]),
            Route(base, self.create_session, methods=["POST"]),
            Route(base + "/{id}", self.get_session, methods=["GET"]),
            Route(base + "/{id}", self.delete_session, methods=["DELETE"]),
            Route(base + "/{id}/state", self.state, methods=["GET"]),
            Route(base + "/{id}/reset", self.reset, methods=["POST"]),
            Route(base + "/{id}/snapshot", self.snapshot, methods=["POST"]),
            Route(base + "/{id}/fork", self.fork, methods=["POST"]),
            Route(base + "/{id}/journal", self.journal, methods=["GET"]),
            Route("/control/metrics", self.metrics, methods=["GET"]),
            Route("/metrics", self.prometheus, methods=["GET"]),
        ]

    async def list_sessions(self, request: Request) -> Response:
        return JSONResponse({"sessions": self.control.list()})

    async def create_session(self, request: Request) -> Response:
        data = await _body(request)
        raw_snapshot = data.get("snapshot")
        snapshot = Snapshot.parse(raw_snapshot) if isinstance(raw_snapshot, dict) else None
        if raw_snapshot is not None and snapshot is None:
            raise ValueError("'snapshot' must be a snapshot object")
        created = await self.control.create(
            _optional(data, "id", str), seed=_optional(data, "seed", int), snapshot=snapshot
        )
        return JSONResponse(created, status_code=201)

    async def get_session(self, request: Request) -> Response:
        return JSONResponse(self.control.get(request.path_params["id"]))

    async def delete_session(self, request: Request) -> Response:
        await self.control.delete(request.path_params["id"])
        return Response(status_code=204)

    async def state(self, request: Request) -> Response:
        return JSONResponse(await self.control.state(request.path_params["id"]))

    async def reset(self, request: Request) -> Response:
        data = await _body(request)
        session_id = request.path_params["id"]
        return JSONResponse(await self.control.reset(session_id, seed=_optional(data, "seed", int)))

    async def snapshot(self, request: Request) -> Response:
        taken = await self.control.snapshot(request.path_params["id"])
        return Response(taken.model_dump_json(), media_type="application/json")

    async def fork(self, request: Request) -> Response:
        data = await _body(request)
        forked = await self.control.fork(
            request.path_params["id"],
            _optional(data, "id", str),
            seed=_optional(data, "seed", int),
        )
        return JSONResponse(forked, status_code=201)

    async def journal(self, request: Request) -> Response:
        text = self.control.journal(request.path_params["id"])
        return Response(text, media_type="application/x-ndjson")

    async def metrics(self, request: Request) -> Response:
        return JSONResponse(self.control.metrics())

    async def prometheus(self, request: Request) -> Response:
        text = self.control.prometheus()
        return Response(text, headers={"content-type": PROMETHEUS_CONTENT_TYPE})


def control_routes(control: Control, security: TransportSecuritySettings) -> list[BaseRoute]:
    """Routes that send ``/control``, everything under it and ``/metrics`` to the control API,
    behind the same Host and Origin checks as ``/mcp``."""
    api = Starlette(
        routes=ControlEndpoints(control).routes(),
        middleware=[Middleware(HostGuard, security=security)],
        exception_handlers=ERROR_REPLIES,
    )
    # A Route to an ASGI app takes every method and leaves the path as it is (a Mount would
    # miss "/control" itself), so the API answers its own 404s and 405s after the Host check.
    return [Route(path, api) for path in ("/control", "/control/{path:path}", "/metrics")]
