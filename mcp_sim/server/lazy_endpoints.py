"""The MCP endpoints of a hub whose worlds load on first use (a suite's): a world's session
manager is built and started when a request first reaches the world, inside the server's
lifespan, and stopped when the world is unloaded idle, so a process holds only the worlds its
live episodes use."""

from __future__ import annotations

import contextlib
import functools
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from typing import Any

import anyio
from anyio.abc import TaskGroup, TaskStatus
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from starlette.types import ASGIApp, Receive, Scope, Send

from mcp_sim.episodes.hub import EpisodeHub
from mcp_sim.simulator.core import Simulator

MakeEndpoint = Callable[[str, Simulator], tuple[StreamableHTTPSessionManager, ASGIApp]]
"""A world's session manager and the endpoint that hands requests to it."""
UNLOAD_EVERY_SECONDS = 60.0


class LazyWorldEndpoints(Mapping[str, ASGIApp]):
    """World id → its MCP endpoint, for every world the hub has or can load (iterating gives
    the loaded ones)."""

    def __init__(self, hub: EpisodeHub, make: MakeEndpoint) -> None:
        self.hub = hub
        self.make = make
        self._running: dict[str, tuple[Simulator, ASGIApp, anyio.CancelScope]] = {}
        self._group: TaskGroup | None = None
        self._lock = anyio.Lock()

    def __getitem__(self, world: str) -> ASGIApp:
        loader = self.hub.access.loader
        if world not in self.hub.simulators and (loader is None or not loader.known(world)):
            raise KeyError(world)
        return functools.partial(self._serve, world)

    def __iter__(self) -> Iterator[str]:
        return iter(list(self.hub.simulators))

    def __len__(self) -> int:
        return len(self.hub.simulators)

    async def _serve(self, world: str, scope: Scope, receive: Receive, send: Send) -> None:
        endpoint = await self._started(world)
        await endpoint(scope, receive, send)

    async def _started(self, world: str) -> ASGIApp:
        async with self._lock:
            simulator = self.hub.simulator(world)
            running = self._running.get(world)
            if running is not None and running[0] is simulator:
                return running[1]
            if running is not None:  # the hub unloaded the world and loaded it again since
                running[2].cancel()
            if self._group is None:
                raise RuntimeError("the app's lifespan has not started")
            manager, endpoint = self.make(world, simulator)
            cancel = await self._group.start(_run, manager)
            self._running[world] = (simulator, endpoint, cancel)
            return endpoint

    def unload_idle(self) -> list[str]:
        """Unload the hub's idle worlds and stop their managers; their ids."""
        unloaded = self.hub.unload_idle()
        for world in unloaded:
            running = self._running.pop(world, None)
            if running is not None:
                running[2].cancel()
        return unloaded

    @contextlib.asynccontextmanager
    async def lifespan(self, app: Any, every: float = UNLOAD_EVERY_SECONDS) -> AsyncIterator[None]:
        async with anyio.create_task_group() as group:
            self._group = group
            group.start_soon(self._unload_periodically, every)
            try:
                yield
            finally:
                group.cancel_scope.cancel()
                self._group = None

    async def _unload_periodically(self, every: float) -> None:
        while True:
            await anyio.sleep(every)
            self.unload_idle()


async def _run(
    manager: StreamableHTTPSessionManager, *, task_status: TaskStatus[anyio.CancelScope]
) -> None:
    with anyio.CancelScope() as scope:
        async with manager.run():
            task_status.started(scope)
            await anyio.sleep_forever()
