"""mcp-sim as an ASGI application, for servers that import one by name rather than run a
command (``uvicorn mcp_sim.asgi:app``, gunicorn's uvicorn workers, an OpenEnv deployment):
the same HTTP routes as ``mcp-sim serve --http``, configured only by the environment.

    MCP_SIM_WORLDS=worlds/shop.yaml,worlds/    world files or folders of them, comma-separated
    MCP_SIM_EXAMPLE=bookstore                  or shipped examples, comma-separated
    MCP_SIM_CONFIG=mcp-sim.toml                 a settings file, and MCP_SIM_<SETTING> over it

The address is the ASGI server's (``--host``/``--port``); every other setting is read as
``serve`` reads it (``docs/settings.md``), and a bad one fails the server's start-up with the
variable or file key at fault. The worlds open, and the world model starts, in the app's
lifespan: a server that sends no lifespan events (``--lifespan off``) cannot serve it.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Mapping
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path

import anyio
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from mcp_sim.api.worlds import Worlds
from mcp_sim.errors import SettingsError
from mcp_sim.server.hosting import HostingOptions, hosting_app
from mcp_sim.settings.combined import SETTINGS, Settings
from mcp_sim.settings.sources import gather
from mcp_sim.spec.world_files import example_names, example_path, world_files_in

WORLDS_ENV = "MCP_SIM_WORLDS"
EXAMPLE_ENV = "MCP_SIM_EXAMPLE"


def world_paths(environ: Mapping[str, str]) -> list[Path]:
    """The world files ``MCP_SIM_WORLDS`` and ``MCP_SIM_EXAMPLE`` name, folders expanded."""
    paths: list[Path] = []
    for item in _listed(environ.get(WORLDS_ENV, "")):
        path = Path(item)
        if path.is_dir():
            paths += world_files_in(path)
        elif path.is_file():
            paths.append(path)
        else:
            raise SettingsError(WORLDS_ENV, f"no world file or folder at {item}")
    for name in _listed(environ.get(EXAMPLE_ENV, "")):
        if name not in example_names():
            known = ", ".join(example_names())
            raise SettingsError(EXAMPLE_ENV, f"no example named {name!r} (examples: {known})")
        paths.append(example_path(name))
    if not paths:
        raise SettingsError(
            WORLDS_ENV, f"name the worlds to serve in {WORLDS_ENV} or {EXAMPLE_ENV}"
        )
    return paths


def environment_settings() -> Settings:
    """Every setting from ``$MCP_SIM_CONFIG`` and the ``MCP_SIM_*`` variables."""
    return gather(list(SETTINGS), {}).settings()


class EnvironmentApp:
    """The served worlds' app, built at start-up from the environment."""

    def __init__(self, environ: Mapping[str, str] | None = None) -> None:
        self._environ = os.environ if environ is None else environ
        self._app: ASGIApp | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if self._app is None:
            raise RuntimeError("mcp_sim.asgi:app serves only after its lifespan has started")
        await self._app(scope, receive, send)

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        await receive()  # lifespan.startup
        started = False
        try:
            async with AsyncExitStack() as stack:
                settings = environment_settings()
                paths = world_paths(self._environ)
                worlds = await stack.enter_async_context(
                    await Worlds.open(*paths, settings=settings)
                )
                app = hosting_app(worlds, HostingOptions.of(settings))
                await stack.enter_async_context(_lifespan_of(app))
                async with anyio.create_task_group() as tasks:
                    tasks.start_soon(worlds.start_model)
                    self._app, started = app, True
                    await send({"type": "lifespan.startup.complete"})
                    await receive()  # lifespan.shutdown
                    tasks.cancel_scope.cancel()
        except Exception as exc:  # the server reports it and stops
            failed = "lifespan.shutdown.failed" if started else "lifespan.startup.failed"
            await send({"type": failed, "message": str(exc)})
            return
        finally:
            self._app = None
        await send({"type": "lifespan.shutdown.complete"})


@asynccontextmanager
async def _lifespan_of(app: ASGIApp) -> AsyncIterator[None]:
    """Run ``app``'s own lifespan (its session managers) from start-up to shutdown."""
    to_app, app_reads = anyio.create_memory_object_stream[Message](2)
    app_writes, from_app = anyio.create_memory_object_stream[Message](2)

    async def receive() -> Message:
        return await app_reads.receive()

    async def send(message: Message) -> None:
        await app_writes.send(message)

    scope: Scope = {"type": "lifespan", "asgi": {"version": "3.0"}, "state": {}}

    async def run() -> None:
        await app(scope, receive, send)

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(run)
        await to_app.send({"type": "lifespan.startup"})
        _expect(await from_app.receive(), "lifespan.startup.complete")
        try:
            yield
        finally:
            await to_app.send({"type": "lifespan.shutdown"})
            _expect(await from_app.receive(), "lifespan.shutdown.complete")


def _expect(message: Message, wanted: str) -> None:
    if message["type"] != wanted:
        raise RuntimeError(f"the served app's lifespan: {message.get('message', message['type'])}")


def _listed(text: str) -> list[str]:
    return [item.strip() for item in text.split(",") if item.strip()]


app = EnvironmentApp()
"""``uvicorn mcp_sim.asgi:app``."""
