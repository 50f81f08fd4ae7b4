"""The Python API for synchronous callers (TRL's environment classes call their tools and
``reset`` from plain functions): :class:`BlockingWorlds` runs a :class:`~mcp_sim.api.Worlds`
on an event loop of its own, in a daemon thread, and waits for each operation."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

from mcp_sim.api.worlds import ModelSource, Worlds, WorldSource

T = TypeVar("T")

_shared: dict[tuple[str, ...], BlockingWorlds] = {}
_shared_lock = threading.Lock()


class BlockingWorlds:
    """:class:`~mcp_sim.api.Worlds` behind blocking calls: ``run(coroutine)`` runs one of its
    coroutines (or an episode's) on the worlds' own loop and returns its result."""

    def __init__(self, *worlds: WorldSource, model: ModelSource = None, **options: Any) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._loop.run_forever, name="mcp-sim-worlds", daemon=True
        )
        self._thread.start()
        self.worlds: Worlds = self.run(Worlds.open(*worlds, model=model, **options))

    def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Run ``coroutine`` on the worlds' loop and wait for its result (or exception)."""
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result()

    async def wait(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Run ``coroutine`` on the worlds' loop and await its result from the caller's loop
        (TRL's, for an async tool), which goes on with its other tasks meanwhile."""
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coroutine, self._loop))

    def close(self) -> None:
        """Close the worlds and stop their loop."""
        if self._loop.is_closed():
            return
        self.run(self.worlds.aclose())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join()
        self._loop.close()


def shared_worlds(key: str, world: WorldSource, model_url: str | None) -> BlockingWorlds:
    """One :class:`BlockingWorlds` per world (by ``key``) and model URL in this process, shared
    by every environment instance (a trainer makes one per rollout)."""
    shared = (key, model_url or "")
    with _shared_lock:
        if shared not in _shared:
            _shared[shared] = BlockingWorlds(world, model=model_url)
        return _shared[shared]
