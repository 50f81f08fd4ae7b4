"""One live world per session: its state, its history, and the order of its calls.

A session starts as a private copy of the world's starting state. Its calls run one at a time
(``lock``), so an observation always sees every earlier one; different sessions run
concurrently. ``SessionStore`` hands sessions out by id and forgets idle ones.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import anyio

from mcp_sim.perturb import PerturbState
from mcp_sim.spec import World


@dataclass(frozen=True)
class Turn:
    """One answered call, as it enters the session's history."""

    tool: str
    arguments: dict[str, Any]
    observation: str
    is_error: bool


@dataclass
class Session:
    id: str
    world: World
    state: dict[str, Any]
    history: list[Turn] = field(default_factory=list)
    steps: int = 0
    """Calls answered so far, including validation errors (the journal's step counter)."""
    last_used: float = field(default_factory=time.monotonic)
    lock: anyio.Lock = field(default_factory=anyio.Lock)
    perturbation: PerturbState | None = None
    """Seeded perturbation decisions and counts, started by the first call (mcp_sim.perturb)."""

    @classmethod
    def start(cls, session_id: str, world: World) -> Session:
        return cls(id=session_id, world=world, state=copy.deepcopy(world.state))


class SessionStore:
    """Sessions by id, created on first use and dropped after ``idle_timeout`` seconds unused."""

    def __init__(
        self,
        world: World,
        idle_timeout: float | None = 1800.0,
        clock: Callable[[], float] = time.monotonic,
        on_expire: Callable[[str], None] | None = None,
    ) -> None:
        self.world = world
        self.idle_timeout = idle_timeout
        self._clock = clock
        self._on_expire = on_expire
        self._sessions: dict[str, Session] = {}

    def get(self, session_id: str) -> Session:
        """The session named ``session_id``, started fresh if it is new or has expired."""
        self.expire_idle()
        session = self._sessions.get(session_id)
        if session is None:
            session = Session.start(session_id, self.world)
            self._sessions[session_id] = session
        self.touch(session)
        return session

    def touch(self, session: Session) -> None:
        """Mark ``session`` as used now (by this store's clock, which decides expiry)."""
        session.last_used = self._clock()

    def expire_idle(self) -> list[str]:
        """Drop sessions idle for longer than the timeout (never one with a call in flight)."""
        if self.idle_timeout is None:
            return []
        cutoff = self._clock() - self.idle_timeout
        expired = [
            sid for sid, s in self._sessions.items() if s.last_used < cutoff and not s.lock.locked()
        ]
        for sid in expired:
            del self._sessions[sid]
            if self._on_expire is not None:
                self._on_expire(sid)
        return expired

    def __contains__(self, session_id: object) -> bool:
        return session_id in self._sessions

    def __len__(self) -> int:
        return len(self._sessions)
