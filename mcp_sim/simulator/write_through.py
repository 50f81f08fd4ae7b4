"""The seam where a simulator's calls are made durable: what the pipeline asks of whoever keeps
its sessions outside the process (the episode store, :mod:`mcp_sim.episodes.durable`).

A call first *holds* its session (an episode's lease in the store, and its record loaded when
this process does not have it current), then runs as usual, and once it is recorded hands its
journal record and history turn over to be *committed*, inside the session's lock, so calls are
written in the order they ran. Without a write-through (stdio, the ``memory`` store) nothing of
this happens and a call costs what it always did.
"""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from typing import Protocol

from mcp_sim.journal import JournalRecord
from mcp_sim.runtime.session import Session, Turn


class WriteThrough(Protocol):
    def holding(self, session_id: str) -> AbstractAsyncContextManager[None]:
        """Hold ``session_id`` for one call: no other process runs a call on it meanwhile, and
        the process's copy of it is current when the block starts."""
        ...

    async def committed(self, session: Session, record: JournalRecord, turn: Turn | None) -> None:
        """Keep a recorded call (``turn``: what it added to the history, if anything). Raises
        :class:`mcp_sim.errors.EpisodeStoreError` when it cannot be kept."""
        ...
