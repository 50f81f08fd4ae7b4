"""One call made from the page, answered as it goes: a line of NDJSON each time the model's
answer moves on (at most every ``interval`` seconds), then the call's trace."""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Callable
from typing import Any

from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from mcp_sim.api.episode import Episode
from mcp_sim.errors import SimError
from mcp_sim.models.base import ProgressCallback
from mcp_sim.ui.call_traces import TraceBook

PROGRESS_INTERVAL = 0.1
"""Seconds between two progress lines: a model streams hundreds of token events a call."""


class CallStream(Response):
    """The response to ``POST /ui/api/episodes/{id}/calls``. Lines: ``{"progress": {"tokens",
    "message"}}`` while the call runs, then ``{"result", "trace", "episode"}``, or ``{"error"}``
    when the call cannot be made (an injected protocol error, an unknown perturbation
    profile). A page that goes away does not stop the call: it is the episode's all the same,
    and shows in its calls."""

    media_type = "application/x-ndjson"

    def __init__(
        self,
        episode: Episode,
        tool: str,
        arguments: dict[str, Any],
        traces: TraceBook,
        *,
        interval: float = PROGRESS_INTERVAL,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__()
        # Lines follow as the call goes: no Content-Length (the one of an empty body is set).
        self.raw_headers = [
            (b"content-type", self.media_type.encode()),
            (b"cache-control", b"no-store"),
        ]
        self.episode = episode
        self.tool = tool
        self.arguments = arguments
        self.traces = traces
        self.interval = interval
        self.clock = clock

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        lines = _Lines(send)
        await send({"type": "http.response.start", "status": 200, "headers": self.raw_headers})
        last = -self.interval

        async def progress(tokens: int, message: str) -> None:
            nonlocal last
            now = self.clock()
            if now - last >= self.interval:
                last = now
                await lines.write({"progress": {"tokens": tokens, "message": message}})

        await lines.write(await self._made(progress))
        await lines.end()

    async def _made(self, progress: ProgressCallback) -> dict[str, Any]:
        try:
            result = await self.episode.call(self.tool, self.arguments, progress=progress)
        except SimError as exc:
            return {"error": str(exc)}
        trace = self.traces.find(self.episode.world_id, self.episode.id, result.step)
        return {
            "result": dataclasses.asdict(result),
            "trace": trace,
            "episode": self.episode.summary(),
        }


class _Lines:
    """NDJSON lines to a client that may have gone: once a write fails the rest are dropped."""

    def __init__(self, send: Send) -> None:
        self.send = send
        self.gone = False

    async def write(self, value: dict[str, Any]) -> None:
        line = json.dumps(value, ensure_ascii=False, default=str) + "\n"
        await self._send({"type": "http.response.body", "body": line.encode(), "more_body": True})

    async def end(self) -> None:
        await self._send({"type": "http.response.body", "body": b"", "more_body": False})

    async def _send(self, message: dict[str, Any]) -> None:
        if self.gone:
            return
        try:
            await self.send(message)
        except OSError:
            self.gone = True
