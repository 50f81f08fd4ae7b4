"""The workbench's page and its API, served beside the episode API (which the page uses for
episodes: create, reset, snapshot, fork, verify, state)::

      GET  /ui                               the page (and its script and style sheet)
      GET  /ui/api/overview                  the worlds, their tools (input schemas, as
                                             advertised), tasks, and the files' problems
      POST /ui/api/check                     every file read again: problems, changed or not
      POST /ui/api/reload                    serve the files as they are now (202; the server
                                             closes and starts again: episodes in memory end)
      POST /ui/api/episodes/{id}/calls       {"tool", "arguments"} → NDJSON: progress lines
                                             while the model works, then the call's trace
      GET  /ui/api/episodes/{id}/calls       the episode's calls (its journal, a fork's
                                             starting with its parent's)
      GET  /ui/api/episodes/{id}/calls/{n}   call n's trace: what the model was shown and
                                             answered, the state diff (the journal record only
                                             for a call made before the workbench kept traces)

The page and its two files carry no data and are open to every request that passes the Host
checks; the API is behind the same access rules as the episode API (the operator's token when
the server has one, which the page takes from its URL's ``#token=`` fragment)."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from importlib import resources
from typing import Any

from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.background import BackgroundTask
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp

from mcp_sim.api.worlds import Worlds
from mcp_sim.errors import UnknownSession
from mcp_sim.server.episode_routes import ERROR_REPLIES, request_object
from mcp_sim.server.guards import DEFAULT_MAX_BODY_BYTES, BodyLimit, HostGuard
from mcp_sim.server.tools import advertised_annotations
from mcp_sim.spec.world import World
from mcp_sim.ui.call_stream import CallStream
from mcp_sim.ui.call_traces import TraceBook, record_view
from mcp_sim.ui.world_files import WorldFiles

PAGE_FILES = {
    "/ui": ("workbench.html", "text/html; charset=utf-8"),
    "/ui/workbench.js": ("workbench.js", "text/javascript; charset=utf-8"),
    "/ui/workbench.css": ("workbench.css", "text/css; charset=utf-8"),
}
PUBLIC_PATHS = frozenset(PAGE_FILES)
"""The paths open without a token: the page's own files, which hold no data."""


class CannotReload(ValueError):
    """The files cannot be served anew now (a 409: the request was fine, the moment not)."""


CONTENT_SECURITY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
    "img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
"""Only the page's own script runs, and it reaches only this server: what a world or the
model says is shown as text, never run."""


def _tool_view(world: World) -> list[dict[str, Any]]:
    tools = []
    for tool in world.tools:
        annotations = advertised_annotations(tool, world.domain)
        tools.append(
            {
                "name": tool.name,
                "description": tool.description,
                "input_schema": tool.input_schema,
                "effect": tool.effect,
                "annotations": annotations.model_dump(by_alias=True, exclude_none=True)
                if annotations
                else None,
            }
        )
    return tools


class Workbench:
    """The page's routes, on the worlds and episodes of one server."""

    def __init__(
        self,
        worlds: Worlds,
        traces: TraceBook,
        files: WorldFiles,
        *,
        reload: Callable[[], None] | None = None,
    ) -> None:
        """``reload``: asks whoever serves the workbench to serve the files anew (after the
        reply to the request that asked is sent)."""
        self.worlds = worlds
        self.traces = traces
        self.files = files
        self.reload = reload
        self.instance = secrets.token_hex(8)
        """Told apart from the workbench served before a reload (the page waits for a new one)."""

    def app(
        self, security: TransportSecuritySettings, max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    ) -> ASGIApp:
        calls = "/ui/api/episodes/{id}/calls"
        routes = [Route(path, self.page_file, methods=["GET"]) for path in PAGE_FILES]
        routes += [
            Route("/ui/api/overview", self.overview, methods=["GET"]),
            Route("/ui/api/check", self.check, methods=["POST"]),
            Route("/ui/api/reload", self.reload_files, methods=["POST"]),
            Route(calls, self.call, methods=["POST"]),
            Route(calls, self.calls, methods=["GET"]),
            Route(calls + "/{step:int}", self.trace, methods=["GET"]),
        ]
        return Starlette(
            routes=routes,
            middleware=[
                Middleware(HostGuard, security=security),
                Middleware(BodyLimit, max_bytes=max_body_bytes),
            ],
            exception_handlers={
                **ERROR_REPLIES,
                CannotReload: _cannot_reload,
                HTTPException: _http_error,
            },
        )

    async def page_file(self, request: Request) -> Response:
        name, media_type = PAGE_FILES[request.url.path]
        text = resources.files("mcp_sim.ui").joinpath(name).read_text(encoding="utf-8")
        headers = {"content-security-policy": CONTENT_SECURITY, "cache-control": "no-store"}
        return Response(text, media_type=media_type, headers=headers)

    async def overview(self, request: Request) -> Response:
        worlds = []
        for name, simulator in self.worlds.hub.simulators.items():
            world = simulator.world
            worlds.append(
                {
                    "id": name,
                    "title": world.title,
                    "description": world.description,
                    "tools": _tool_view(world),
                    "tasks": [
                        {"name": task, "description": spec.description}
                        for task, spec in world.verify.items()
                    ],
                }
            )
        files = [f.as_dict() for f in self.files.files]
        return JSONResponse({"worlds": worlds, "files": files, "instance": self.instance})

    async def check(self, request: Request) -> Response:
        return JSONResponse({"files": self.files.check_again()})

    async def reload_files(self, request: Request) -> Response:
        if self.reload is None:
            raise CannotReload("this workbench is not served by mcp-sim ui: restart it instead")
        now = self.files.check_again()
        if not any(f["world"] for f in now):
            raise CannotReload("no world file loads as it is now: fix one, then reload")
        return JSONResponse(
            {"reloading": True, "files": now},
            status_code=202,
            background=BackgroundTask(self.reload),
        )

    async def call(self, request: Request) -> Response:
        data = await request_object(request)
        tool, arguments = data.get("tool"), data.get("arguments", {})
        if not isinstance(tool, str) or not isinstance(arguments, dict):
            raise ValueError('send {"tool": NAME, "arguments": {...}}')
        episode = await self.worlds.hub.find(request.path_params["id"])
        if self.worlds.hub.simulator(episode.world).world.tool(tool) is None:
            raise ValueError(f"world {episode.world!r} has no tool {tool!r}")
        return CallStream(self.worlds.get(episode.id), tool, arguments, self.traces)

    async def calls(self, request: Request) -> Response:
        episode = await self.worlds.hub.find(request.path_params["id"])
        records = self.worlds.hub.journal(episode.id)
        summary = self.worlds.hub.summary(episode)
        return JSONResponse({"episode": summary, "calls": [record_view(r) for r in records]})

    async def trace(self, request: Request) -> Response:
        hub = self.worlds.hub
        episode = await hub.find(request.path_params["id"])
        step: int = request.path_params["step"]
        records = [r for r in hub.journal(episode.id) if r.step == step]
        if not records:
            raise UnknownSession(f"episode {episode.id!r} has no call {step}")
        # A fork's first calls are its parent's: their traces were kept under the parent.
        owner: str | None = episode.id
        while owner is not None:
            found = self.traces.find(episode.world, owner, step)
            if found is not None and found["tool"] == records[-1].tool:
                return JSONResponse(found)
            try:
                owner = hub.entry(owner).parent
            except UnknownSession:
                owner = None
        return JSONResponse({**record_view(records[-1]), "traced": False})


async def _cannot_reload(request: Request, exc: Exception) -> Response:
    return JSONResponse({"error": "cannot_reload", "message": str(exc)}, status_code=409)


async def _http_error(request: Request, exc: Exception) -> Response:
    """Starlette's own refusals (no such route, wrong method) in the API's JSON shape."""
    assert isinstance(exc, HTTPException)
    code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
    return JSONResponse(
        {"error": code, "message": f"{request.method} {request.url.path}: {exc.detail}"},
        status_code=exc.status_code,
        headers=exc.headers,
    )
