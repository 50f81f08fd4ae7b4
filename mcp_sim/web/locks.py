"""Locks by key (a query, a URL), so that calls in flight for the same thing wait for each other
and the world model is asked once."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio


class KeyedLocks:
    """One lock per key, kept only while somebody holds or waits for it, so a long-lived server
    does not keep one per query it ever saw."""

    def __init__(self) -> None:
        self._locks: dict[str, tuple[anyio.Lock, int]] = {}

    def __len__(self) -> int:
        """How many keys are held or waited for now."""
        return len(self._locks)

    @asynccontextmanager
    async def exclusive(self, key: str) -> AsyncIterator[None]:
        """One holder at a time for ``key``."""
        lock, users = self._locks.get(key, (anyio.Lock(), 0))
        self._locks[key] = (lock, users + 1)
        try:
            async with lock:
                yield
        finally:
            lock, users = self._locks[key]
            if users == 1:
                del self._locks[key]
            else:
                self._locks[key] = (lock, users - 1)
