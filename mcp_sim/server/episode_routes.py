"""The episode API and the MCP endpoints of a server's worlds and episodes::

      GET    /episodes                  the live episodes (operator only)
      POST   /episodes                  a new one: {"world"?, "id"?, "seed"?, "snapshot"?,
                                        "task"?} → 201 {"id", "world", "mcp_url", "token", ...}
      GET    /episodes/{id}             its summary
      DELETE /episodes/{id}             end it
      GET    /episodes/{id}/state       its state document and version
      GET    /episodes/{id}/journal     its calls, one JSON object per line
      POST   /episodes/{id}/reset       back to the world's start: {"seed"?}
      POST   /episodes/{id}/snapshot    the snapshot document
      POST   /episodes/{id}/fork        a new episode from its present: {"id"?, "seed"?} → 201
      POST   /episodes/{id}/verify      its verdict: {"task"?} → {"reward", "checks", ...}
      *      /episodes/{id}/mcp         streamable HTTP MCP, every request in this episode
      *      /worlds/{world}/mcp        a world's shared MCP endpoint (sessions as on /mcp)
      *      /mcp                       the shared endpoint of a server with one world

Errors are JSON ``{"error": code, "message": ...}``: 404 ``unknown_episode`` or
``unknown_world``, 409 ``episode_exists`` or ``episode_busy`` (another worker holds it), 400
``invalid_snapshot``, ``cannot_verify`` or ``bad_request``, 413 ``too_large``, 503
``episode_store`` (the durable store cannot be reached). Who may reach which route is decided in front of these
(:class:`mcp_sim.server.guards.AccessGuard`).
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from mcp_sim.episodes.entry import EpisodeEntry
from mcp_sim.episodes.hub import EpisodeHub
from mcp_sim.errors import (
    EpisodeBusy,
    EpisodeStoreError,
    SessionExists,
    SnapshotInvalid,
    UnknownSession,
    UnknownWorld,
    VerifyError,
)
from mcp_sim.runtime.snapshot import Snapshot
from mcp_sim.server.guards import BodyTooLarge, episode_token
from mcp_sim.server.request_meta import EPISODE_SCOPE_KEY

ErrorReply = Callable[[Request, Exception], Awaitable[Response]]


def _error_reply(status: int, code: str) -> ErrorReply:
    async def reply(request: Request, exc: Exception) -> Response:
        return JSONResponse({"error": code, "message": str(exc)}, status_code=status)

    return reply


ERROR_REPLIES: Mapping[type[Exception], ErrorReply] = {
    UnknownSession: _error_reply(404, "unknown_episode"),
    UnknownWorld: _error_reply(404, "unknown_world"),
    SessionExists: _error_reply(409, "episode_exists"),
    SnapshotInvalid: _error_reply(400, "invalid_snapshot"),
    VerifyError: _error_reply(400, "cannot_verify"),
    BodyTooLarge: _error_reply(413, "too_large"),
    EpisodeBusy: _error_reply(409, "episode_busy"),
    EpisodeStoreError: _error_reply(503, "episode_store"),
    ValueError: _error_reply(400, "bad_request"),
}
"""The episode errors as HTTP replies, once, at the boundary (Starlette picks the handler of
the nearest class in an exception's MRO)."""


async def request_object(request: Request) -> dict[str, Any]:
    raw = await request.body()
    if not raw.strip():
        return {}
    try:
        data = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
        raise ValueError("the request body is not JSON") from None
    if not isinstance(data, dict):
        raise ValueError("the request body must be a JSON object")
    return data


def _optional(data: dict[str, Any], key: str, kind: type) -> Any:
    value = data.get(key)
    if value is not None and (not isinstance(value, kind) or isinstance(value, bool)):
        raise ValueError(f"{key!r} must be a {kind.__name__}")
    return value


class EpisodeEndpoints:
    """One endpoint per operation of the episode API, on one hub."""

    def __init__(self, hub: EpisodeHub) -> None:
        self.hub = hub

    def routes(self) -> list[Route]:
        one = "/episodes/{id}"
        return [
            Route("/episodes", self.listing, methods=["GET"]),
            Route("/episodes", self.create, methods=["POST"]),
            Route(one, self.get, methods=["GET"]),
            Route(one, self.delete, methods=["DELETE"]),
            Route(one + "/state", self.state, methods=["GET"]),
            Route(one + "/journal", self.journal, methods=["GET"]),
            Route(one + "/reset", self.reset, methods=["POST"]),
            Route(one + "/snapshot", self.snapshot, methods=["POST"]),
            Route(one + "/fork", self.fork, methods=["POST"]),
            Route(one + "/verify", self.verify, methods=["POST"]),
        ]

    def _created(self, request: Request, episode: EpisodeEntry) -> Response:
        reply = {
            **self.hub.summary(episode),
            "mcp_url": f"{request.base_url}episodes/{episode.id}/mcp",
            "token": episode.token,
        }
        return JSONResponse(reply, status_code=201)

    async def listing(self, request: Request) -> Response:
        return JSONResponse({"episodes": self.hub.listing(), "worlds": list(self.hub.simulators)})

    async def create(self, request: Request) -> Response:
        data = await request_object(request)
        raw_snapshot = data.get("snapshot")
        if raw_snapshot is not None and not isinstance(raw_snapshot, dict):
            raise ValueError("'snapshot' must be a snapshot object")
        episode = await self.hub.create(
            _optional(data, "world", str),
            _optional(data, "id", str),
            seed=_optional(data, "seed", int),
            snapshot=Snapshot.parse(raw_snapshot) if raw_snapshot is not None else None,
            task=_optional(data, "task", str),
        )
        return self._created(request, episode)

    async def get(self, request: Request) -> Response:
        return JSONResponse(self.hub.summary(await self.hub.find(request.path_params["id"])))

    async def delete(self, request: Request) -> Response:
        await self.hub.delete(request.path_params["id"])
        return Response(status_code=204)

    async def state(self, request: Request) -> Response:
        return JSONResponse(await self.hub.state(request.path_params["id"]))

    async def journal(self, request: Request) -> Response:
        episode = await self.hub.find(request.path_params["id"])
        records = self.hub.journal(episode.id)
        text = "".join(r.to_json() + "\n" for r in records)
        return Response(text, media_type="application/x-ndjson")

    async def reset(self, request: Request) -> Response:
        data = await request_object(request)
        seed = _optional(data, "seed", int)
        return JSONResponse(await self.hub.reset(request.path_params["id"], seed=seed))

    async def snapshot(self, request: Request) -> Response:
        taken = await self.hub.snapshot(request.path_params["id"])
        return Response(taken.model_dump_json(), media_type="application/json")

    async def fork(self, request: Request) -> Response:
        data = await request_object(request)
        forked = await self.hub.fork(
            request.path_params["id"], _optional(data, "id", str), seed=_optional(data, "seed", int)
        )
        return self._created(request, forked)

    async def verify(self, request: Request) -> Response:
        data = await request_object(request)
        episode_id = request.path_params["id"]
        verdict = await self.hub.verify(episode_id, _optional(data, "task", str))
        return JSONResponse({"episode": episode_id, **verdict.as_dict()})


async def _refuse(send: Send, status: int, code: str, message: str) -> None:
    body = json.dumps({"error": code, "message": message}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json")],
        }
    )
    await send({"type": "http.response.body", "body": body})


class EpisodeMcp:
    """``/episodes/{id}/mcp``: the episode's world's MCP endpoint (``endpoints``: each world's,
    by name), with every request marked as the episode's (see
    :mod:`mcp_sim.server.request_meta`)."""

    def __init__(self, hub: EpisodeHub, endpoints: Mapping[str, ASGIApp]):
        self.hub = hub
        self.endpoints = endpoints

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        episode_id = scope["path_params"]["id"]
        opened = episode_token(scope)
        try:
            # Loaded if this worker has not served it yet; a call brings it up to date itself
            # (under the episode's lease), so a warm copy is not checked here, unless it is of
            # another incarnation than the token's (the id was deleted and made again).
            episode = await self.hub.find(episode_id, current=False)
            if opened is not None and not _same(opened, episode.token):
                episode = await self.hub.find(episode_id)
        except UnknownSession as exc:
            await _refuse(send, 404, "unknown_episode", str(exc))
            return
        except EpisodeStoreError as exc:
            await _refuse(send, 503, "episode_store", str(exc))
            return
        if opened is not None and not _same(opened, episode.token):
            await _refuse(send, 401, "unauthorized", "this token's episode is gone")
            return
        marked = {**scope, EPISODE_SCOPE_KEY: episode.id}
        await self.endpoints[episode.world](marked, receive, send)


def _same(token: str, other: str) -> bool:
    return hmac.compare_digest(token.encode(), other.encode())


class WorldMcp:
    """``/worlds/{world}/mcp`` (and ``/mcp`` with ``only``): a world's shared endpoint
    (``endpoints``: each world's, by name)."""

    def __init__(self, endpoints: Mapping[str, ASGIApp], only: str | None = None) -> None:
        self.endpoints = endpoints
        self.only = only

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        world = self.only or scope.get("path_params", {}).get("world")
        endpoint = self.endpoints.get(world) if world else None
        if endpoint is None:
            names = ", ".join(self.endpoints)
            where = f"no world {world!r} here" if world else "this server hosts several worlds"
            message = f"{where}: use /worlds/{{world}}/mcp (worlds: {names})"
            await _refuse(send, 404, "unknown_world", message)
            return
        await endpoint(scope, receive, send)
