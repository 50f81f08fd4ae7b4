"""Snapshot, fork and reset: the control surface for harnesses (RL group rollouts,
counterfactual tests).

The same operations are offered twice:

- as an HTTP API next to ``/mcp``, behind the same bearer token and Host checks::

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

- as MCP tools (``sim_*``), only when the server runs with ``--control-tools``, so an agent
  under test never sees them. There a snapshot can also be saved to and loaded from a file on
  the server, which is the point of running the tools on a local (stdio) server.

Every operation on a session waits for its call in flight, so a snapshot never catches a call
halfway.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route, Router

from mcp_sim.errors import SessionExists, SnapshotInvalid, UnknownSession
from mcp_sim.runtime.session import Session, SessionStore, Snapshot
from mcp_sim.runtime.side_channel import virtual_now
from mcp_sim.simulator.core import Simulator
from mcp_sim.simulator.metrics import PROMETHEUS_CONTENT_TYPE


def summary(session: Session) -> dict[str, Any]:
    """What the control API says about a session."""
    return {
        "id": session.id,
        "version": session.version,
        "steps": session.steps,
        "seed": session.seed,
        "next_time": virtual_now(session.world, session.steps + 1),
        "consistency": session.consistency.as_dict(),
    }


class Control:
    """The control operations on one simulator's sessions."""

    def __init__(self, simulator: Simulator) -> None:
        self.simulator = simulator

    @property
    def _sessions(self) -> SessionStore:
        return self.simulator.sessions

    def _find(self, session_id: str) -> Session:
        session = self._sessions.find(session_id)
        if session is None:
            raise UnknownSession(f"no live session {session_id!r}; list them at /control/sessions")
        return session

    def list(self) -> list[dict[str, Any]]:
        return [summary(s) for s in self._sessions]

    def get(self, session_id: str) -> dict[str, Any]:
        return summary(self._find(session_id))

    async def create(
        self,
        session_id: str | None = None,
        *,
        seed: int | None = None,
        snapshot: Snapshot | None = None,
    ) -> dict[str, Any]:
        """A new session at the world's start, or continuing from ``snapshot``."""
        new_id = session_id or secrets.token_hex(8)
        if new_id in self._sessions:
            raise SessionExists(f"session {new_id!r} already exists; reset it or pick another id")
        world = self.simulator.world
        if snapshot is not None:
            session = Session.restore(new_id, world, snapshot, seed=seed)
        else:
            session = Session.start(new_id, world, seed=seed, base_seed=self._sessions.base_seed)
        self.simulator.journal.forget(new_id)
        return summary(self._sessions.put(session))

    async def delete(self, session_id: str) -> None:
        session = self._find(session_id)
        async with session.lock:
            self._sessions.drop(session_id)
            self.simulator.journal.forget(session_id)

    async def state(self, session_id: str) -> dict[str, Any]:
        session = self._find(session_id)
        async with session.lock:
            return {"id": session.id, "version": session.version, "state": session.state}

    async def reset(self, session_id: str, *, seed: int | None = None) -> dict[str, Any]:
        """Back to the world's starting state, history and clock; the same seed unless a new
        one is given, so a reset session replays like a new one."""
        session = self._find(session_id)
        async with session.lock:
            fresh = Session.start(
                session_id, self.simulator.world, seed=seed if seed is not None else session.seed
            )
            session.become(fresh)
            self.simulator.journal.forget(session_id)
            return summary(session)

    async def snapshot(self, session_id: str) -> Snapshot:
        session = self._find(session_id)
        async with session.lock:
            return session.snapshot()

    async def fork(
        self, session_id: str, new_id: str | None = None, *, seed: int | None = None
    ) -> dict[str, Any]:
        """A new, independent session continuing from ``session_id``'s present. Without ``seed``
        the fork keeps its parent's randomness (for counterfactual tests: same dice, another
        action); give each fork a seed to let them diverge (group rollouts)."""
        return await self.create(new_id, seed=seed, snapshot=await self.snapshot(session_id))

    def journal(self, session_id: str) -> str:
        self._find(session_id)
        return "".join(r.to_json() + "\n" for r in self.simulator.journal.records(session_id))

    def metrics(self) -> dict[str, Any]:
        """The server's metrics (see :mod:`mcp_sim.simulator.metrics`)."""
        return self.simulator.metrics.report(self._sessions)

    def prometheus(self) -> str:
        return self.simulator.metrics.prometheus(self._sessions)


# --- HTTP --------------------------------------------------------------------------------------


def _error(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"error": code, "message": message}, status_code=status)


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


Handler = Callable[[Request], Awaitable[Response]]


def _guarded(handler: Handler) -> Handler:
    """Translate the control errors into HTTP statuses, once, at the boundary."""

    async def run(request: Request) -> Response:
        try:
            return await handler(request)
        except UnknownSession as exc:
            return _error(404, "unknown_session", str(exc))
        except SessionExists as exc:
            return _error(409, "session_exists", str(exc))
        except SnapshotInvalid as exc:
            return _error(400, "invalid_snapshot", str(exc))
        except ValueError as exc:
            return _error(400, "bad_request", str(exc))

    return run


def control_routes(control: Control) -> Router:
    """The HTTP control API (paths under ``/control``)."""

    async def list_sessions(request: Request) -> Response:
        return JSONResponse({"sessions": control.list()})

    async def create_session(request: Request) -> Response:
        data = await _body(request)
        raw_snapshot = data.get("snapshot")
        snapshot = Snapshot.parse(raw_snapshot) if isinstance(raw_snapshot, dict) else None
        if raw_snapshot is not None and snapshot is None:
            raise ValueError("'snapshot' must be a snapshot object")
        created = await control.create(
            _optional(data, "id", str), seed=_optional(data, "seed", int), snapshot=snapshot
        )
        return JSONResponse(created, status_code=201)

    async def get_session(request: Request) -> Response:
        return JSONResponse(control.get(request.path_params["id"]))

    async def delete_session(request: Request) -> Response:
        await control.delete(request.path_params["id"])
        return Response(status_code=204)

    async def state(request: Request) -> Response:
        return JSONResponse(await control.state(request.path_params["id"]))

    async def reset(request: Request) -> Response:
        data = await _body(request)
        sid = request.path_params["id"]
        return JSONResponse(await control.reset(sid, seed=_optional(data, "seed", int)))

    async def snapshot(request: Request) -> Response:
        taken = await control.snapshot(request.path_params["id"])
        return Response(taken.model_dump_json(), media_type="application/json")

    async def fork(request: Request) -> Response:
        data = await _body(request)
        forked = await control.fork(
            request.path_params["id"],
            _optional(data, "id", str),
            seed=_optional(data, "seed", int),
        )
        return JSONResponse(forked, status_code=201)

    async def journal(request: Request) -> Response:
        text = control.journal(request.path_params["id"])
        return Response(text, media_type="application/x-ndjson")

    async def metrics(request: Request) -> Response:
        return JSONResponse(control.metrics())

    async def prometheus(request: Request) -> Response:
        return Response(control.prometheus(), headers={"content-type": PROMETHEUS_CONTENT_TYPE})

    base = "/control/sessions"
    return Router(
        routes=[
            Route(base, _guarded(list_sessions), methods=["GET"]),
            Route(base, _guarded(create_session), methods=["POST"]),
            Route(base + "/{id}", _guarded(get_session), methods=["GET"]),
            Route(base + "/{id}", _guarded(delete_session), methods=["DELETE"]),
            Route(base + "/{id}/state", _guarded(state), methods=["GET"]),
            Route(base + "/{id}/reset", _guarded(reset), methods=["POST"]),
            Route(base + "/{id}/snapshot", _guarded(snapshot), methods=["POST"]),
            Route(base + "/{id}/fork", _guarded(fork), methods=["POST"]),
            Route(base + "/{id}/journal", _guarded(journal), methods=["GET"]),
            Route("/control/metrics", metrics, methods=["GET"]),
            Route("/metrics", prometheus, methods=["GET"]),
        ]
    )


# --- MCP tools (--control-tools) ---------------------------------------------------------------

_SESSION = {"type": "string", "description": "Session id (default: this connection's session)"}
_SEED = {"type": "integer", "description": "Seed of the session's RNG"}

CONTROL_TOOLS: dict[str, tuple[str, dict[str, Any]]] = {
    "sim_sessions": ("List the live sessions of this simulated world.", {}),
    "sim_create_session": (
        "Start a new session at the world's starting state, or from a snapshot file.",
        {
            "id": {"type": "string", "description": "Id of the new session (default: random)"},
            "seed": _SEED,
            "snapshot_path": {
                "type": "string",
                "description": "Continue from the snapshot saved in this file on the server",
            },
        },
    ),
    "sim_state": ("The world state of a session and its version.", {"session": _SESSION}),
    "sim_reset": (
        "Reset a session to the world's starting state.",
        {"session": _SESSION, "seed": _SEED},
    ),
    "sim_snapshot": (
        "Snapshot a session; optionally save the snapshot to a file on the server.",
        {
            "session": _SESSION,
            "path": {"type": "string", "description": "File to save the snapshot to"},
        },
    ),
    "sim_fork": (
        "Fork a session: a new, independent session continuing from its present state.",
        {
            "session": _SESSION,
            "id": {"type": "string", "description": "Id of the fork (default: random)"},
            "seed": _SEED,
        },
    ),
    "sim_journal": ("A session's journal, one JSON object per line.", {"session": _SESSION}),
    "sim_metrics": ("The server's metrics: sessions, calls, latency, tokens, errors.", {}),
}
"""The control operations as MCP tools: name → (description, input properties)."""


async def call_control_tool(
    control: Control, name: str, arguments: dict[str, Any], caller: str
) -> Any:
    """Run control tool ``name`` for a request of session ``caller``; returns JSON data (or
    text, for the journal). Raises :class:`SimError` subclasses and ``ValueError``."""
    for key, value in arguments.items():
        if key not in CONTROL_TOOLS[name][1]:
            raise ValueError(f"{name} has no argument {key!r}")
        expected = CONTROL_TOOLS[name][1][key]["type"]
        if (expected == "integer") != (isinstance(value, int) and not isinstance(value, bool)):
            raise ValueError(
                f"{key!r} must be {'an integer' if expected == 'integer' else 'a string'}"
            )
    session = arguments.get("session") or caller
    if session == caller:
        # The caller's own session exists from its first request, whatever that request was.
        control.simulator.sessions.get(caller)
    seed = arguments.get("seed")
    if name == "sim_sessions":
        return {"sessions": control.list()}
    if name == "sim_metrics":
        return control.metrics()
    if name == "sim_create_session":
        path = arguments.get("snapshot_path")
        snapshot = Snapshot.load(Path(path).expanduser()) if path else None
        return await control.create(arguments.get("id"), seed=seed, snapshot=snapshot)
    if name == "sim_state":
        return await control.state(session)
    if name == "sim_reset":
        return await control.reset(session, seed=seed)
    if name == "sim_snapshot":
        taken = await control.snapshot(session)
        data: dict[str, Any] = taken.model_dump(mode="json")
        if arguments.get("path"):
            target = Path(arguments["path"]).expanduser()
            try:
                taken.save(target)
            except OSError as exc:
                raise SnapshotInvalid(f"cannot write {target}: {exc.strerror}") from None
            return {"saved_to": str(target), "version": taken.version}
        return data
    if name == "sim_fork":
        return await control.fork(session, arguments.get("id"), seed=seed)
    return control.journal(session)
