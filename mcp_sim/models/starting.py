"""A world model that is still starting (the embedded engine loads for ~50 s).

The MCP server answers ``initialize`` and ``tools/list`` at once, so hosts such as Claude
Desktop do not time out; calls made before the engine is up wait for it, reporting progress,
and fail with a clear error if it could not start.
"""

from __future__ import annotations

import anyio

from mcp_sim.errors import ModelUnavailable
from mcp_sim.models.base import Completion, CompletionRequest, ProgressCallback, WorldModel


class StartingModel:
    """Stands in for a world model until :meth:`ready` or :meth:`failed` is called."""

    def __init__(self, what: str = "the embedded world model") -> None:
        self._what = what
        self._model: WorldModel | None = None
        self._failure: str | None = None
        self._settled = anyio.Event()
        self.status = "starting"

    def ready(self, model: WorldModel) -> None:
        self._model = model
        self.status = "ready"
        self._settled.set()

    def failed(self, reason: str) -> None:
        self._failure = reason
        self.status = "failed"
        self._settled.set()

    def loading(self, status: str) -> None:
        """Record what the engine is doing, to tell callers who are waiting for it."""
        if not self._settled.is_set():
            self.status = status

    async def complete(
        self, request: CompletionRequest, progress: ProgressCallback | None = None
    ) -> Completion:
        while not self._settled.is_set():
            if progress is not None:
                await progress(0, f"waiting for {self._what}: {self.status}")
            with anyio.move_on_after(2):
                await self._settled.wait()
        if self._model is None:
            raise ModelUnavailable(f"{self._what} could not start: {self._failure}")
        return await self._model.complete(request, progress)

    async def aclose(self) -> None:
        if self._model is not None:
            await self._model.aclose()
