"""Create, reset, fork, snapshot and end sessions of the hub's worlds: episodes (the episode
API and :class:`mcp_sim.api.Episode`) and the plain sessions the ``sim_*`` control tools make
and name, through one implementation.

Every operation waits for the session's call in flight, so a snapshot, a reset or a verdict
never catches a call halfway. An episode's changes also go to its entry and, with a durable
store, through the store under the episode's lease; a plain session lives in memory only.
"""

from __future__ import annotations

import secrets
from contextlib import AbstractAsyncContextManager, nullcontext
from typing import Any

from mcp_sim.episodes.access import EpisodeAccess, HeldSession
from mcp_sim.episodes.entry import EpisodeEntry, check_episode_id, new_incarnation
from mcp_sim.episodes.limits import EpisodeLimits
from mcp_sim.errors import SessionExists, UnknownWorld
from mcp_sim.journal import JournalRecord
from mcp_sim.runtime.session import Session
from mcp_sim.runtime.snapshot import Snapshot
from mcp_sim.scoring.verdict import choose_task
from mcp_sim.simulator.core import Simulator


class EpisodeLifecycle:
    """The changes to episodes and sessions, on the hub's index of them (``access``).

    Operations on an existing session take its id and, for a plain session, its ``world``:
    with ``world`` left out the id must be an episode's (of any world)."""

    def __init__(self, access: EpisodeAccess, limits: EpisodeLimits | None = None) -> None:
        self.access = access
        self.limits = limits or EpisodeLimits()

    async def create(
        self,
        world: str | None = None,
        episode_id: str | None = None,
        *,
        seed: int | None = None,
        snapshot: Snapshot | None = None,
        task: str | None = None,
        parent: EpisodeEntry | None = None,
    ) -> EpisodeEntry:
        """A new episode at its world's start, or continuing from ``snapshot``."""
        name = world or self.access.default_world
        if name is None:
            raise UnknownWorld(f"name a world: this server has {', '.join(self.access.simulators)}")
        simulator = self.access.simulator(name)
        if task is not None:
            choose_task(simulator.world, task)
        if episode_id is not None:
            check_episode_id(episode_id)
        self.limits.check_room(len(self.access), self.access.held_of(name), name)
        session = self._new_session(simulator, episode_id, seed=seed, snapshot=snapshot)
        inherited: tuple[JournalRecord, ...] = ()
        if parent is not None:
            inherited = parent.inherited + tuple(simulator.journal.records(parent.id))
        entry = EpisodeEntry(
            session.id,
            name,
            secrets.token_urlsafe(32),
            new_incarnation(),
            task if task is not None else parent.task if parent else None,
            parent.id if parent else None,
            inherited,
        )
        if self.access.durable is not None:
            await self.access.durable.created(entry, session)
        _put(simulator, session)
        self.access.register(entry)
        return entry

    def start_session(
        self,
        world: str,
        session_id: str | None = None,
        *,
        seed: int | None = None,
        snapshot: Snapshot | None = None,
    ) -> Session:
        """A new plain session of ``world`` at its start, or continuing from ``snapshot``."""
        simulator = self.access.simulator(world)
        return _put(
            simulator, self._new_session(simulator, session_id, seed=seed, snapshot=snapshot)
        )

    async def fork(
        self, episode_id: str, new_id: str | None = None, *, seed: int | None = None
    ) -> EpisodeEntry:
        """A new, independent episode continuing from this one's present: same state, history
        (so the model's prompt prefix is shared) and, without ``seed``, the same randomness
        (for counterfactual tests: same dice, another action; give each fork a seed to let
        them diverge, as group rollouts do)."""
        (entry,) = await self.fork_group(episode_id, [(new_id, seed)])
        return entry

    async def fork_group(
        self, episode_id: str, forks: list[tuple[str | None, int | None]]
    ) -> list[EpisodeEntry]:
        """One fork per ``(id, seed)`` of ``forks``, all from the episode's one present (a
        single snapshot, so a call in between cannot set them apart): a group rollout's
        branches in one go."""
        parent = await self.access.find(episode_id)
        snapshot = await self.snapshot(episode_id)
        # A fork's verdict counts its parent's calls, so their model time too.
        spent = self.access.held(episode_id).session.model_seconds
        entries = []
        for new_id, seed in forks:
            entry = await self.create(
                parent.world, new_id, seed=seed, snapshot=snapshot, parent=parent
            )
            self.access.held(entry.id).session.model_seconds = spent
            entries.append(entry)
        return entries

    async def fork_session(
        self, world: str, session_id: str, new_id: str | None = None, *, seed: int | None = None
    ) -> Session:
        """A new plain session of ``world`` continuing from ``session_id``'s present, as
        ``fork`` does for an episode."""
        snapshot = await self.snapshot(session_id, world=world)
        return self.start_session(world, new_id, seed=seed, snapshot=snapshot)

    async def reset(
        self, session_id: str, *, seed: int | None = None, world: str | None = None
    ) -> Session:
        """Back to the world's starting state, history and clock; the same seed unless a new
        one is given, so a reset session replays like a new one. A reset fork forgets its
        parent."""
        held = await self._found(session_id, world, current=False)
        async with self._writing(held.entry):
            simulator, session, entry = self.access.held(session_id, world)
            async with session.lock:
                chosen = seed if seed is not None else session.seed
                session.become(Session.start(session.id, simulator.world, seed=chosen))
                simulator.journal.forget(session.id)
                if entry is not None:
                    restarted = EpisodeEntry(
                        entry.id, entry.world, entry.token, entry.incarnation, entry.task
                    )
                    if self.access.durable is not None:
                        await self.access.durable.restarted(restarted, session)
                    self.access.register(restarted)
        return session

    async def snapshot(self, session_id: str, *, world: str | None = None) -> Snapshot:
        session = (await self._found(session_id, world)).session
        async with session.lock:
            return session.snapshot()

    async def state(self, session_id: str, *, world: str | None = None) -> dict[str, Any]:
        session = (await self._found(session_id, world)).session
        async with session.lock:
            return {"id": session.id, "version": session.version, "state": session.state}

    async def delete(self, episode_id: str) -> None:
        entry = await self.access.find(episode_id, current=False)
        simulator = self.access.simulators[entry.world]
        async with self._writing(entry), self.access.held(entry.id).session.lock:
            if self.access.durable is not None:
                await self.access.durable.deleted(entry.id)
            simulator.sessions.drop(entry.id)
            simulator.journal.forget(entry.id)
            self.access.unregister(entry.id)

    async def _found(
        self, session_id: str, world: str | None, *, current: bool = True
    ) -> HeldSession:
        """The session, an episode's loaded (and with ``current`` brought up to date) from
        the durable store first."""
        if world is None or self.access.is_episode(world, session_id):
            await self.access.find(session_id, current=current)
        return self.access.held(session_id, world)

    def _writing(self, entry: EpisodeEntry | None) -> AbstractAsyncContextManager[None]:
        """Hold an episode's lease in the durable store, if there is one, for a change."""
        durable = self.access.durable
        return durable.holding(entry.id) if durable and entry else nullcontext()

    def _new_session(
        self,
        simulator: Simulator,
        given: str | None,
        *,
        seed: int | None,
        snapshot: Snapshot | None,
    ) -> Session:
        if given is not None and self.access.taken(given):
            raise SessionExists(f"session {given!r} already exists; pick another id")
        new_id = given if given is not None else secrets.token_hex(16)
        if snapshot is not None:
            return Session.restore(new_id, simulator.world, snapshot, seed=seed)
        base_seed = simulator.sessions.base_seed
        return Session.start(new_id, simulator.world, seed=seed, base_seed=base_seed)


def _put(simulator: Simulator, session: Session) -> Session:
    """Make ``session`` live in ``simulator``, with no journal left from an earlier one."""
    simulator.journal.forget(session.id)
    return simulator.sessions.put(session)
