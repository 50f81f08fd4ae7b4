"""The episode API and the MCP endpoints of a server's worlds and episodes::

      GET    /episodes                  the live episodes (operator only)
      POST   /episodes                  a new one: {"world"?, "id"?, "seed"?, "snapshot"?,
                                        "task"?} → 201 {"id", "world", "mcp_url", "token", ...};
                                        with "count": N, N of them → 201 {"episodes": [...]}
      GET    /episodes/{id}             its summary, with "valid", "simulation" and "usage"
      DELETE /episodes/{id}             end it
      GET    /episodes/{id}/state       its state document and version
      GET    /episodes/{id}/journal     its calls, one JSON object per line
      POST   /episodes/{id}/reset       back to the world's start: {"seed"?}
      POST   /episodes/{id}/snapshot    the snapshot document
      POST   /episodes/{id}/fork        a new episode from its present: {"id"?, "seed"?} → 201
                                        (with "count": N, N of them from one snapshot)
      POST   /episodes/{id}/verify      its verdict: {"task"?} → {"reward", "checks", ...}
      *      /episodes/{id}/mcp         streamable HTTP MCP, every request in this episode
      GET    /worlds/{world}/tasks      the world's verify tasks (operator only)
      GET    /openapi.json              the OpenAPI document of these routes
      *      /worlds/{world}/mcp        a world's shared MCP endpoint (sessions as on /mcp)
      *      /mcp                       the shared endpoint of a server with one world

Request bodies are checked whole (:mod:`mcp_sim.server.episode_requests`): an unknown key is a
400 naming it. Errors are JSON ``{"error": code, "message": ...}``: 404 ``unknown_episode`` or
``unknown_world``, 409 ``episode_exists`` or ``episode_busy`` (another worker holds it), 400
``invalid_snapshot``, ``cannot_verify`` or ``bad_request``, 413 ``too_large``, 429
``capacity`` (the server holds as many episodes as its limits allow), 503
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
from mcp_sim.episodes.limits import EpisodeLimits
from mcp_sim.errors import (
    CapacityReached,
    EpisodeBusy,
    EpisodeStoreError,
    SessionExists,
    SnapshotInvalid,
    UnknownSession,
    UnknownWorld,
    VerifyError,
)
from mcp_sim.runtime.snapshot import Snapshot
from mcp_sim.server.episode_openapi import openapi_document
from mcp_sim.server.episode_requests import (
    CreateBody,
    ForkBody,
    ResetBody,
    VerifyBody,
    parse_body,
)
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
    CapacityReached: _error_reply(429, "capacity"),
    VerifyError: _error_reply(400, "cannot_verify"),
    BodyTooLarge: _error_reply(413, "too_large"),
    EpisodeBusy: _error_reply(409, "episode_busy"),
    EpisodeStoreError: _error_reply(503, "episode_store"),
    ValueError: _error_reply(400, "bad_request"),
}
"""The episode errors as HTTP replies, once, at the boundary (Starlette picks the handler of
the nearest class in an exception's MRO)."""


async def request_object(request: Request, limits: EpisodeLimits | None = None) -> dict[str, Any]:
    """The JSON object of the request's body; with ``limits``, a body that may hold more
    values than a snapshot may is refused before it is parsed."""
    raw = await request.body()
    if limits is not None:
        limits.check_snapshot(raw)
    if not raw.strip():
        return {}
    try:
        data = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
        raise ValueError("the request body is not JSON") from None
    if not isinstance(data, dict):
        raise ValueError("the request body must be a JSON object")
    return data


def _nth_seed(seed: int | None, i: int) -> int | None:
    """The seed of a batch's ``i``-th episode: ``seed + i`` (so they diverge, reproducibly)."""
    return None if seed is None else seed + i


class EpisodeEndpoints:
    """One endpoint per operation of the episode API, on one hub."""

    def __init__(self, hub: EpisodeHub, *, openenv: bool = False) -> None:
        self.hub = hub
        self.openenv = openenv
        """Whether OpenEnv's routes are served beside these (the OpenAPI document says so)."""

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
            Route("/worlds/{world}/tasks", self.tasks, methods=["GET"]),
            Route("/openapi.json", self.openapi, methods=["GET"]),
        ]

    def _made(self, request: Request, episode: EpisodeEntry) -> dict[str, Any]:
        return {
            **self.hub.summary(episode),
            "mcp_url": f"{request.base_url}episodes/{episode.id}/mcp",
            "token": episode.token,
        }

    def _created(self, request: Request, episode: EpisodeEntry) -> Response:
        return JSONResponse(self._made(request, episode), status_code=201)

    def _batch(self, request: Request, episodes: list[EpisodeEntry]) -> Response:
        made = [self._made(request, episode) for episode in episodes]
        return JSONResponse({"episodes": made}, status_code=201)

    async def listing(self, request: Request) -> Response:
        return JSONResponse({"episodes": self.hub.listing(), "worlds": list(self.hub.simulators)})

    async def create(self, request: Request) -> Response:
        body = parse_body(
            CreateBody, await request_object(request, self.hub.limits), "POST /episodes"
        )
        snapshot = Snapshot.parse(body.snapshot) if body.snapshot is not None else None
        if body.count is not None and body.id is not None:
            raise ValueError("POST /episodes: 'id' names one episode; leave it out with 'count'")
        made = [
            await self.hub.create(
                body.world, body.id, seed=_nth_seed(body.seed, i), snapshot=snapshot, task=body.task
            )
            for i in range(body.count or 1)
        ]
        return self._created(request, made[0]) if body.count is None else self._batch(request, made)

    async def get(self, request: Request) -> Response:
        return JSONResponse(self.hub.detail(await self.hub.find(request.path_params["id"])))

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
        body = parse_body(ResetBody, await request_object(request), "POST /episodes/{id}/reset")
        return JSONResponse(await self.hub.reset(request.path_params["id"], seed=body.seed))

    async def snapshot(self, request: Request) -> Response:
        taken = await self.hub.snapshot(request.path_params["id"])
        return Response(taken.model_dump_json(), media_type="application/json")

    async def fork(self, request: Request) -> Response:
        where = "POST /episodes/{id}/fork"
        body = parse_body(ForkBody, await request_object(request), where)
        if body.count is not None and body.id is not None:
            raise ValueError(f"{where}: 'id' names one fork; leave it out with 'count'")
        forks = [(body.id, _nth_seed(body.seed, i)) for i in range(body.count or 1)]
        made = await self.hub.fork_group(request.path_params["id"], forks)
        return self._created(request, made[0]) if body.count is None else self._batch(request, made)

    async def verify(self, request: Request) -> Response:
        body = parse_body(VerifyBody, await request_object(request), "POST /episodes/{id}/verify")
        episode_id = request.path_params["id"]
        verdict = await self.hub.verify(episode_id, body.task)
        return JSONResponse({"episode": episode_id, **verdict.as_dict()})

    async def tasks(self, request: Request) -> Response:
        """A world's verify tasks: what ``POST /episodes {"task"}`` may name."""
        name = request.path_params["world"]
        world = self.hub.simulator(name).world
        tasks = [
            {"name": task, "description": spec.description, "checks": len(spec.checks)}
            for task, spec in world.verify.items()
        ]
        return JSONResponse({"world": name, "tasks": tasks})

    async def openapi(self, request: Request) -> Response:
        url = str(request.base_url).rstrip("/")
        return JSONResponse(openapi_document(url, openenv=self.openenv))


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
