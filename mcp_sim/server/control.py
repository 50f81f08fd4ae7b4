"""Snapshot, fork and reset: the control surface for harnesses (RL group rollouts,
counterfactual tests).

The same operations are offered twice: as an HTTP API next to ``/mcp``, behind the same bearer
token and Host checks (:mod:`mcp_sim.server.control_http`), and as MCP tools (``sim_*``) only
when the server runs with ``--control-tools``, so an agent under test never sees them
(:mod:`mcp_sim.server.control_tools`).

Every operation on a session waits for its call in flight, so a snapshot never catches a call
halfway.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any

from mcp_sim.errors import SessionExists, UnknownSession
from mcp_sim.runtime.session import Session, SessionStore
from mcp_sim.runtime.snapshot import Snapshot
from mcp_sim.runtime.virtual_clock import virtual_now
from mcp_sim.server.request_meta import MAX_SESSION_ID_LENGTH
from mcp_sim.server.snapshot_files import SnapshotFolder
from mcp_sim.simulator.core import Simulator


def summary(session: Session) -> dict[str, Any]:
    """What the control API says about a session."""
    return {
        "id": session.id,
        "version": session.version,
        "steps": session.steps,
        "seed": session.seed,
        "next_time": virtual_now(session.world, session.steps + 1),
        "consistency": session.consistency.as_dict(),
    }


class Control:
    """The control operations on one simulator's sessions."""

    def __init__(
        self,
        simulator: Simulator,
        *,
        hidden: Callable[[str], bool] | None = None,
        snapshots: SnapshotFolder | None = None,
    ) -> None:
        """``hidden``: sessions left out of the listing and out of reach by name (episodes);
        ``snapshots``: the folder snapshot files are saved to and loaded from, if any."""
        self.simulator = simulator
        self.hidden: Callable[[str], bool] = hidden or (lambda _: False)
        self.snapshots = snapshots

    @property
    def _sessions(self) -> SessionStore:
        return self.simulator.sessions

    def _find(self, session_id: str) -> Session:
        session = self._sessions.find(session_id)
        if session is None:
            raise UnknownSession(f"no live session {session_id!r}; list them at /control/sessions")
        return session

    def list(self) -> list[dict[str, Any]]:
        return [summary(s) for s in self._sessions if not self.hidden(s.id)]

    def get(self, session_id: str) -> dict[str, Any]:
        return summary(self._find(session_id))

    async def create(
        self,
        session_id: str | None = None,
        *,
        seed: int | None = None,
        snapshot: Snapshot | None = None,
    ) -> dict[str, Any]:
        """A new session at the world's start, or continuing from ``snapshot``."""
        new_id = session_id or secrets.token_hex(8)
        if len(new_id) > MAX_SESSION_ID_LENGTH:
            raise ValueError(f"a session id is at most {MAX_SESSION_ID_LENGTH} characters")
        if new_id in self._sessions:
            raise SessionExists(f"session {new_id!r} already exists; reset it or pick another id")
        world = self.simulator.world
        if snapshot is not None:
            session = Session.restore(new_id, world, snapshot, seed=seed)
        else:
            session = Session.start(new_id, world, seed=seed, base_seed=self._sessions.base_seed)
        self.simulator.journal.forget(new_id)
        return summary(self._sessions.put(session))

    async def delete(self, session_id: str) -> None:
        session = self._find(session_id)
        async with session.lock:
            self._sessions.drop(session_id)
            self.simulator.journal.forget(session_id)

    async def state(self, session_id: str) -> dict[str, Any]:
        session = self._find(session_id)
        async with session.lock:
            return {"id": session.id, "version": session.version, "state": session.state}

    async def reset(self, session_id: str, *, seed: int | None = None) -> dict[str, Any]:
        """Back to the world's starting state, history and clock; the same seed unless a new
        one is given, so a reset session replays like a new one."""
        session = self._find(session_id)
        async with session.lock:
            fresh = Session.start(
                session_id, self.simulator.world, seed=seed if seed is not None else session.seed
            )
            session.become(fresh)
            self.simulator.journal.forget(session_id)
            return summary(session)

    async def snapshot(self, session_id: str) -> Snapshot:
        session = self._find(session_id)
        async with session.lock:
            return session.snapshot()

    async def fork(
        self, session_id: str, new_id: str | None = None, *, seed: int | None = None
    ) -> dict[str, Any]:
        """A new, independent session continuing from ``session_id``'s present. Without ``seed``
        the fork keeps its parent's randomness (for counterfactual tests: same dice, another
        action); give each fork a seed to let them diverge (group rollouts)."""
        return await self.create(new_id, seed=seed, snapshot=await self.snapshot(session_id))

    def journal(self, session_id: str) -> str:
        self._find(session_id)
        return "".join(r.to_json() + "\n" for r in self.simulator.journal.records(session_id))

    def metrics(self) -> dict[str, Any]:
        """The server's metrics (see :mod:`mcp_sim.simulator.metrics`)."""
        return self.simulator.metrics.report(self._sessions)

    def prometheus(self) -> str:
        return self.simulator.metrics.prometheus(self._sessions)
