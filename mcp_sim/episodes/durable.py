"""Episodes kept in a durable store (:mod:`mcp_sim.episodes.store`) by one of the workers that
serve them: load on first use, keep warm, write every call through, one writer at a time.

A worker keeps the episodes it has served in memory, each with the store revision its copy is
at and the incarnation it is of. A call takes the episode's lease (waiting while another
worker holds it, for up to twice the lease), and the claim says the stored incarnation and
revision: a copy that is behind (another worker ran calls since), of another incarnation (the
id was deleted and created again elsewhere, whatever the step counts) or missing is loaded
afresh before the call runs. While the call runs the lease is
renewed; once it is recorded, its step and head are appended, fenced by the lease and the
revision, and the lease is given back in the same write. A write the store refuses or cannot
take drops the warm copy, so the next use loads what the store has: the call that failed to
be kept is the only one lost, and its client gets the error.
"""

from __future__ import annotations

import contextlib
import functools
import os
import secrets
import socket
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import Protocol

import anyio

from mcp_sim.episodes.entry import EpisodeEntry
from mcp_sim.episodes.records import episode_of, head_of, new_record, rebuild, step_of
from mcp_sim.episodes.store import EpisodeStore, Revision
from mcp_sim.errors import (
    EpisodeBusy,
    EpisodeConflict,
    EpisodeStoreError,
    UnknownSession,
    UnknownWorld,
)
from mcp_sim.journal import JournalRecord
from mcp_sim.runtime.session import Session, Turn
from mcp_sim.simulator.core import Simulator

DEFAULT_LEASE_SECONDS = 15.0


class EpisodeRegistry(Protocol):
    """Where a loaded episode is announced (the hub's index of episodes and tokens), and
    where its world's simulator comes from (loaded there first, for a suite's worlds)."""

    def is_episode(self, world: str, session_id: str) -> bool: ...

    def simulator(self, world: str) -> Simulator: ...

    def register(self, episode: EpisodeEntry) -> None: ...

    def unregister(self, episode_id: str) -> None: ...


@dataclass
class _Warm:
    session: Session
    at: Revision


class DurableEpisodes:
    """The durable side of one worker's episodes."""

    def __init__(
        self, store: EpisodeStore, *, lease_seconds: float = DEFAULT_LEASE_SECONDS
    ) -> None:
        """Made before the simulators, which take their write-through from it
        (:meth:`write_through`); the hub over them then :meth:`attach`es them."""
        self.store = store
        self.simulators: Mapping[str, Simulator] = {}
        self._registry: EpisodeRegistry | None = None
        self.lease_seconds = lease_seconds
        self.holder = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"
        """This worker's name on the leases it takes."""
        self._warm: dict[str, _Warm] = {}
        self._locks: dict[str, anyio.Lock] = {}
        self._given_back: set[str] = set()
        """Episodes whose lease a call's append has given back already."""

    def write_through(self, world: str) -> WorldWriteThrough:
        """What the simulator of ``world`` is built with, to make its episodes' calls durable."""
        return WorldWriteThrough(self, functools.partial(self.is_episode, world))

    def attach(self, simulators: Mapping[str, Simulator], registry: EpisodeRegistry) -> None:
        """The simulators built with :meth:`write_through`, and the index of episodes (the
        hub's) that says which of their sessions are episodes. ``simulators`` may grow
        later (worlds loaded on first use), each one :meth:`check_built` first."""
        for name, simulator in simulators.items():
            self.check_built(name, simulator)
        self.simulators = simulators
        self._registry = registry

    def check_built(self, world: str, simulator: Simulator) -> None:
        """Refuse a simulator not built with this store's write-through: its episodes' calls
        would not be kept."""
        through = simulator.write_through
        if not isinstance(through, WorldWriteThrough) or through.durable is not self:
            raise ValueError(
                f"the simulator of {world} was not built with this store's write-through "
                "(Simulator(..., write_through=durable.write_through(world)))"
            )

    @property
    def registry(self) -> EpisodeRegistry:
        if self._registry is None:
            raise RuntimeError("durable episodes used before a hub attached its simulators")
        return self._registry

    def is_episode(self, world: str, session_id: str) -> bool:
        return self._registry is not None and self._registry.is_episode(world, session_id)

    # --- life cycle ---------------------------------------------------------------------------

    async def created(self, episode: EpisodeEntry, session: Session) -> None:
        record = new_record(episode, session)
        await self.store.create(episode.id, episode.token, episode.incarnation, record)
        self._warm[episode.id] = _Warm(session, Revision(episode.incarnation, 0))

    async def restarted(self, episode: EpisodeEntry, session: Session) -> None:
        """Write a reset: ``session`` starts over as ``episode`` (under ``holding``)."""
        warm = self._warm[episode.id]
        rev = await self.store.restart(
            episode.id, self.holder, warm.at, new_record(episode, session)
        )
        if rev is None:
            self.evict(episode.id)
            raise EpisodeConflict(f"episode {episode.id!r} moved on elsewhere; it was not reset")
        self._warm[episode.id] = _Warm(session, Revision(warm.at.incarnation, rev))

    async def deleted(self, episode_id: str) -> None:
        await self.store.delete(episode_id)
        self.evict(episode_id)

    def evict(self, episode_id: str) -> None:
        """Forget this worker's copy of an episode (the store keeps it)."""
        self._warm.pop(episode_id, None)
        self._locks.pop(episode_id, None)

    # --- being current --------------------------------------------------------------------------

    async def refresh(self, episode_id: str, *, check: bool = True) -> bool:
        """Make this worker's copy of the episode current (``check=False``: only load it when
        there is none); False when the store has no such episode."""
        if not check and self._is_warm(episode_id):
            return True
        at = await self.store.revision(episode_id)
        if at is None:
            self._drop(episode_id)
            return False
        if not self._is_warm(episode_id, at):
            await self._load(episode_id)
        return True

    def _is_warm(self, episode_id: str, at: Revision | None = None) -> bool:
        """Whether this worker's copy is live and (given ``at``) of that incarnation and
        revision: a step count alone does not tell two incarnations of one id apart."""
        warm = self._warm.get(episode_id)
        if warm is None or (at is not None and warm.at != at):
            return False
        return any(s.sessions.find(episode_id) is warm.session for s in self.simulators.values())

    async def _load(self, episode_id: str) -> None:
        stored = await self.store.load(episode_id)
        if stored is None:
            self._drop(episode_id)
            raise UnknownSession(f"no live episode {episode_id!r}")
        episode = episode_of(stored, episode_id)
        try:
            # A suite's worker loads the world here if it has not yet (or unloaded it idle).
            simulator = self.registry.simulator(episode.world)
        except UnknownWorld:
            raise EpisodeStoreError(
                f"episode {episode_id!r} is of world {episode.world!r}, which this worker does "
                "not serve: every worker behind one store needs the same worlds"
            ) from None
        session, records = rebuild(simulator.world, stored)
        simulator.sessions.put(session)
        simulator.journal.restore(episode_id, records)
        self._warm[episode_id] = _Warm(session, Revision(stored.incarnation, stored.rev))
        self.registry.register(episode)

    def _drop(self, episode_id: str) -> None:
        """The episode is gone from the store (deleted elsewhere, or expired): gone here too."""
        if episode_id in self._warm:
            for simulator in self.simulators.values():
                simulator.sessions.drop(episode_id)
                simulator.journal.forget(episode_id)
        self.evict(episode_id)
        self.registry.unregister(episode_id)

    # --- one writer -------------------------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def holding(self, episode_id: str) -> AsyncIterator[None]:
        """The episode's lease for one call or change, its copy here current from the start."""
        lock = self._locks.setdefault(episode_id, anyio.Lock())
        async with lock:
            at = await self._claim(episode_id)
            try:
                if not self._is_warm(episode_id, at):
                    await self._load(episode_id)
                failed: Exception | None = None
                async with anyio.create_task_group() as renewing:
                    renewing.start_soon(self._renew, episode_id)
                    try:
                        yield
                    except Exception as exc:
                        # Raised from here, not through the task group, which would wrap it.
                        failed = exc
                    renewing.cancel_scope.cancel()
                if failed is not None:
                    raise failed
            finally:
                if episode_id in self._given_back:
                    self._given_back.discard(episode_id)  # the append gave it back
                else:
                    with anyio.CancelScope(shield=True):
                        await self.store.release(episode_id, self.holder)

    async def _claim(self, episode_id: str) -> Revision:
        waited, pause = 0.0, 0.02
        while True:
            claim = await self.store.claim(episode_id, self.holder, self.lease_seconds)
            if claim is None:
                self._drop(episode_id)
                raise UnknownSession(f"no live episode {episode_id!r}")
            if claim.rev is not None:
                return Revision(claim.incarnation, claim.rev)
            if waited >= 2 * self.lease_seconds:
                raise EpisodeBusy(
                    f"episode {episode_id!r} is busy on another worker (its lease has "
                    f"{claim.held_for:.1f} s left after {waited:.1f} s of waiting); try again"
                )
            await anyio.sleep(pause)
            waited += pause
            pause = min(pause * 2, 0.25)

    async def _renew(self, episode_id: str) -> None:
        while True:
            await anyio.sleep(self.lease_seconds / 3)
            if not await self.store.renew(episode_id, self.holder, self.lease_seconds):
                return  # taken over: the fenced write will say so

    async def committed(self, session: Session, record: JournalRecord, turn: Turn | None) -> None:
        """Append a recorded call to its episode's record (under ``holding``)."""
        warm = self._warm.get(session.id)
        if warm is None or warm.session is not session:
            raise EpisodeConflict(f"episode {session.id!r} was reloaded while a call ran")
        try:
            rev = await self.store.append(
                session.id, self.holder, warm.at, step_of(record, turn), head_of(session)
            )
        except EpisodeStoreError:
            self._forget_copy(session.id)
            raise
        if rev is None:
            self._forget_copy(session.id)
            raise EpisodeConflict(
                f"episode {session.id!r} was taken over by another worker while this call "
                "ran (the lease ran out): the call was not kept; call again"
            )
        warm.at = Revision(warm.at.incarnation, rev)
        self._given_back.add(session.id)

    def _forget_copy(self, episode_id: str) -> None:
        """This worker's copy went ahead of the store: drop it, so the next use loads."""
        self._warm.pop(episode_id, None)


class WorldWriteThrough:
    """One world's simulator's :class:`mcp_sim.simulator.write_through.WriteThrough`: the
    calls of its episodes go through ``durable``; its shared sessions stay in memory."""

    def __init__(self, durable: DurableEpisodes, is_episode: EpisodeTest) -> None:
        self.durable = durable
        self.is_episode = is_episode

    def holding(self, session_id: str) -> contextlib.AbstractAsyncContextManager[None]:
        if self.is_episode(session_id):
            return self.durable.holding(session_id)
        return contextlib.nullcontext()

    async def committed(self, session: Session, record: JournalRecord, turn: Turn | None) -> None:
        if self.is_episode(session.id):
            await self.durable.committed(session, record, turn)


class EpisodeTest(Protocol):
    def __call__(self, session_id: str) -> bool: ...
