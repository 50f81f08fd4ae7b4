"""Progress of a streamed answer, reported to the caller as tokens arrive."""

from __future__ import annotations

import math

import anyio

from mcp_sim.models.base import ProgressCallback


class StreamProgress:
    """Throttles progress reports and keeps them strictly increasing across retries."""

    def __init__(self, callback: ProgressCallback | None, interval: float, every: int) -> None:
        self._callback = callback
        self._interval = interval
        self._every = every
        self._base = 0
        self._seen = 0
        self._reported = 0
        self._last = -math.inf

    def new_attempt(self) -> None:
        # A retry regenerates from scratch; counting on from the old total keeps the
        # reported numbers increasing, which MCP progress notifications require.
        self._base = self._seen

    async def update(self, tokens: int, message: str, *, force: bool = False) -> None:
        """Report ``tokens`` of this attempt when due: the first time, after ``every`` more
        tokens or ``interval`` seconds, or when forced."""
        total = self._base + tokens
        self._seen = max(self._seen, total)
        if self._callback is None or total <= self._reported:
            return
        now = anyio.current_time()
        due = (
            force
            or self._reported == 0
            or total - self._reported >= self._every
            or now - self._last >= self._interval
        )
        if due:
            self._reported = total
            self._last = now
            await self._callback(total, message)
