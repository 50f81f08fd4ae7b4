"""Episodes: isolated, addressable runs of a world, many worlds to a server.

An episode is a session of one world's simulator that a client reaches by its own id and its
own token, never by naming a session: the HTTP layer routes ``/episodes/{id}/mcp`` to it and
checks the token, and the shared endpoints refuse to name an episode's session. Ids are random
128-bit strings unless the caller picks one; tokens are random 256-bit strings.

Every operation on an episode waits for its call in flight, so a snapshot, a reset or a verdict
never catches a call halfway. An episode idle past the server's idle timeout expires with its
session.

With a durable store (:mod:`mcp_sim.episodes.durable`) episodes outlive the process: every
change is written through, any worker sharing the store can serve any episode (``find`` loads
it on first use), and one worker at a time runs an episode's calls. Without one, episodes live
in this process only.
"""

from __future__ import annotations

import functools
import hmac
import re
import secrets
from collections.abc import Mapping
from contextlib import AbstractAsyncContextManager, nullcontext
from typing import Any

from mcp_sim.episodes.durable import DEFAULT_LEASE_SECONDS, DurableEpisodes
from mcp_sim.episodes.episode import Episode
from mcp_sim.episodes.store import EpisodeStore
from mcp_sim.errors import SessionExists, UnknownSession, UnknownWorld
from mcp_sim.journal import JournalRecord
from mcp_sim.runtime.session import Session
from mcp_sim.runtime.snapshot import Snapshot
from mcp_sim.runtime.virtual_clock import virtual_now
from mcp_sim.scoring.rubric import RubricJudge
from mcp_sim.scoring.verdict import Verdict, choose_task, score
from mcp_sim.simulator.core import Simulator

__all__ = ["EPISODE_ID_PATTERN", "Episode", "EpisodeHub"]

EPISODE_ID_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
"""What an id given by a client may look like: bounded, and safe in a URL path."""


def check_episode_id(given: str) -> None:
    if not EPISODE_ID_PATTERN.fullmatch(given):
        raise ValueError(
            "an episode id is 1-128 letters, digits, '.', '_' or '-', starting with a letter "
            "or digit"
        )


class EpisodeHub:
    """The episodes of a server's worlds, each world with its own simulator."""

    def __init__(
        self,
        simulators: Mapping[str, Simulator],
        *,
        store: EpisodeStore | None = None,
        lease_seconds: float = DEFAULT_LEASE_SECONDS,
    ) -> None:
        """``store``: where episodes are kept durably (none: in this process only)."""
        if not simulators:
            raise ValueError("an episode hub needs at least one world")
        self.simulators = dict(simulators)
        self._episodes: dict[str, Episode] = {}
        self._by_token: dict[str, str] = {}
        self.durable = (
            DurableEpisodes(store, self.simulators, self, lease_seconds=lease_seconds)
            if store is not None
            else None
        )
        for name, simulator in self.simulators.items():
            simulator.sessions.on_expire(functools.partial(self._expired, name))

    # --- lookup -----------------------------------------------------------------------------

    @property
    def default_world(self) -> str | None:
        """The world an episode gets when none is named: the only one, if there is one."""
        return next(iter(self.simulators)) if len(self.simulators) == 1 else None

    def simulator(self, world: str) -> Simulator:
        simulator = self.simulators.get(world)
        if simulator is None:
            raise UnknownWorld(f"no world {world!r} here (worlds: {', '.join(self.simulators)})")
        return simulator

    def get(self, episode_id: str) -> Episode:
        """The episode as this process has it (see ``find``)."""
        episode = self._episodes.get(episode_id)
        if episode is None or self._session_of(episode) is None:
            raise UnknownSession(f"no live episode {episode_id!r}")
        return episode

    async def find(self, episode_id: str, *, current: bool = True) -> Episode:
        """The episode, loaded from the durable store when this process does not have it, and
        with ``current`` brought up to what the store has (another worker may have run calls
        on it since); without a store, as ``get``."""
        if self.durable is not None:
            await self.durable.refresh(episode_id, check=current)
        return self.get(episode_id)

    async def holder(self, token: str) -> str | None:
        """The episode ``token`` opens, looked up in the durable store if it is not here."""
        found = self._by_token.get(token)
        if found is None and self.durable is not None:
            found = await self.durable.store.holder(token)
        return found

    def is_episode(self, world: str, session_id: str) -> bool:
        """Whether ``session_id`` of ``world`` belongs to an episode (which only its own URL
        may reach)."""
        episode = self._episodes.get(session_id)
        return episode is not None and episode.world == world

    def opens(self, token: str, episode_id: str) -> bool:
        """Whether ``token`` is the token of episode ``episode_id`` (constant-time)."""
        episode = self._episodes.get(episode_id)
        return episode is not None and hmac.compare_digest(token.encode(), episode.token.encode())

    def holder_of(self, token: str) -> str | None:
        """The episode ``token`` opens, if it is an episode's token."""
        return self._by_token.get(token)

    def __len__(self) -> int:
        return len(self._episodes)

    def listing(self) -> list[dict[str, Any]]:
        return [self.summary(e) for e in list(self._episodes.values()) if self._session_of(e)]

    def summary(self, episode: Episode) -> dict[str, Any]:
        """What the hub says about an episode (its token is given only at creation)."""
        session = self.session(episode)
        return {
            "id": episode.id,
            "world": episode.world,
            "task": episode.task,
            "parent": episode.parent,
            "version": session.version,
            "steps": session.steps,
            "seed": session.seed,
            "next_time": virtual_now(session.world, session.steps + 1),
            "consistency": session.consistency.as_dict(),
        }

    def session(self, episode: Episode) -> Session:
        session = self._session_of(episode)
        if session is None:
            raise UnknownSession(f"no live episode {episode.id!r}")
        return session

    def _session_of(self, episode: Episode) -> Session | None:
        return self.simulators[episode.world].sessions.find(episode.id)

    # --- life cycle ---------------------------------------------------------------------------

    async def create(
        self,
        world: str | None = None,
        episode_id: str | None = None,
        *,
        seed: int | None = None,
        snapshot: Snapshot | None = None,
        task: str | None = None,
        parent: Episode | None = None,
    ) -> Episode:
        """A new episode at its world's start, or continuing from ``snapshot``."""
        name = world or self.default_world
        if name is None:
            raise UnknownWorld(f"name a world: this server has {', '.join(self.simulators)}")
        simulator = self.simulator(name)
        if task is not None:
            choose_task(simulator.world, task)
        new_id = self._new_id(episode_id)
        if snapshot is not None:
            session = Session.restore(new_id, simulator.world, snapshot, seed=seed)
        else:
            base_seed = simulator.sessions.base_seed
            session = Session.start(new_id, simulator.world, seed=seed, base_seed=base_seed)
        inherited: tuple[JournalRecord, ...] = ()
        if parent is not None:
            parent_session = self.session(parent)
            inherited = parent.inherited + tuple(simulator.journal.records(parent_session.id))
        episode = Episode(
            new_id,
            name,
            secrets.token_urlsafe(32),
            task if task is not None else parent.task if parent else None,
            parent.id if parent else None,
            inherited,
        )
        if self.durable is not None:
            await self.durable.created(episode, session)
        simulator.journal.forget(new_id)
        simulator.sessions.put(session)
        self.register(episode)
        return episode

    def register(self, episode: Episode) -> None:
        """Know ``episode`` (new here, or loaded from the store) by its id and token."""
        self._episodes[episode.id] = episode
        self._by_token[episode.token] = episode.id

    def _writing(self, episode_id: str) -> AbstractAsyncContextManager[None]:
        """Hold the episode's lease in the durable store, if there is one, for a change."""
        return self.durable.holding(episode_id) if self.durable else nullcontext()

    def _new_id(self, given: str | None) -> str:
        if given is None:
            return secrets.token_hex(16)
        check_episode_id(given)
        if given in self._episodes or any(given in s.sessions for s in self.simulators.values()):
            raise SessionExists(f"episode {given!r} already exists; pick another id")
        return given

    async def delete(self, episode_id: str) -> None:
        episode = await self.find(episode_id, current=False)
        simulator = self.simulators[episode.world]
        async with self._writing(episode_id), self.session(episode).lock:
            if self.durable is not None:
                await self.durable.deleted(episode.id)
            simulator.sessions.drop(episode.id)
            simulator.journal.forget(episode.id)
            self.unregister(episode.id)

    def _expired(self, world: str, session_id: str) -> None:
        if self.is_episode(world, session_id):
            self.unregister(session_id)

    def unregister(self, episode_id: str) -> None:
        """Forget an episode here (expired, deleted, or gone from the store)."""
        episode = self._episodes.pop(episode_id, None)
        if episode is not None:
            self._by_token.pop(episode.token, None)
        if self.durable is not None:
            self.durable.evict(episode_id)

    async def reset(self, episode_id: str, *, seed: int | None = None) -> dict[str, Any]:
        """Back to the world's starting state, history and clock; the same seed unless a new
        one is given, so a reset episode replays like a new one. A fork forgets its parent."""
        simulator = self.simulators[(await self.find(episode_id, current=False)).world]
        async with self._writing(episode_id):
            episode = self.get(episode_id)
            session = self.session(episode)
            async with session.lock:
                chosen = seed if seed is not None else session.seed
                session.become(Session.start(episode.id, simulator.world, seed=chosen))
                simulator.journal.forget(episode.id)
                restarted = Episode(episode.id, episode.world, episode.token, episode.task)
                if self.durable is not None:
                    await self.durable.restarted(restarted, session)
                self._episodes[episode.id] = restarted
        return self.summary(self._episodes[episode.id])

    async def snapshot(self, episode_id: str) -> Snapshot:
        episode = await self.find(episode_id)
        session = self.session(episode)
        async with session.lock:
            return session.snapshot()

    async def fork(
        self, episode_id: str, new_id: str | None = None, *, seed: int | None = None
    ) -> Episode:
        """A new, independent episode continuing from this one's present: same state, history
        (so the model's prompt prefix is shared) and, without ``seed``, the same randomness."""
        parent = await self.find(episode_id)
        snapshot = await self.snapshot(episode_id)
        return await self.create(parent.world, new_id, seed=seed, snapshot=snapshot, parent=parent)

    # --- what an episode holds ------------------------------------------------------------------

    async def state(self, episode_id: str) -> dict[str, Any]:
        episode = await self.find(episode_id)
        session = self.session(episode)
        async with session.lock:
            return {"id": episode.id, "version": session.version, "state": session.state}

    def journal(self, episode_id: str) -> list[JournalRecord]:
        """The episode's calls (a fork's start with its parent's), in step order."""
        episode = self.get(episode_id)
        journal = self.simulators[episode.world].journal
        return [*episode.inherited, *journal.records(episode.id)]

    async def verify(
        self, episode_id: str, task: str | None = None, judge: RubricJudge | None = None
    ) -> Verdict:
        """The episode's verdict on ``task`` (default: the episode's task, or the world's only
        one). Rubrics are judged by ``judge``, else by the world model when there is one."""
        episode = await self.find(episode_id)
        simulator = self.simulators[episode.world]
        name, chosen = choose_task(simulator.world, task or episode.task)
        if judge is None and simulator.model is not None:
            judge = RubricJudge(simulator.model)
        session = self.session(episode)
        async with session.lock:
            final, records = session.state, self.journal(episode_id)
        return await score(
            name, chosen, start=simulator.world.state, final=final, records=records, judge=judge
        )
