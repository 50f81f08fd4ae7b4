"""What a server keeps per episode besides its session: who may reach it and what it is for."""

from __future__ import annotations

from dataclasses import dataclass

from mcp_sim.journal import JournalRecord


@dataclass(frozen=True, slots=True)
class Episode:
    """What the hub keeps per episode besides its session: who may reach it and what it is for."""

    id: str
    world: str
    token: str
    task: str | None = None
    parent: str | None = None
    """The episode this one was forked from."""
    inherited: tuple[JournalRecord, ...] = ()
    """The parent's calls up to the fork, which the fork's verdict counts as its own."""
