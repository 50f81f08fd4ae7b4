"""Which episodes there are and who may reach them: the hub's index of episodes by id and by
token, and the lookups the rest of the hub goes through.

An episode is reached by its own id and its own token, never by naming a session: the HTTP
layer asks ``token_holder`` which episode a token opens and ``opens`` whether it opens a given
one, and refuses a shared endpoint's request that names a session ``is_episode`` says is an
episode's. With a durable store, ``find`` loads an episode this process has not served yet,
and with a loader, the episode's world too when this process has not loaded it yet or has
unloaded it idle (an episode made on another worker, or called again after a pause).
"""

from __future__ import annotations

import functools
import hmac
from collections import Counter
from collections.abc import Mapping
from typing import NamedTuple, Protocol

from mcp_sim.episodes.durable import DurableEpisodes
from mcp_sim.episodes.entry import EpisodeEntry
from mcp_sim.errors import UnknownSession, UnknownWorld, shown
from mcp_sim.runtime.session import Session
from mcp_sim.simulator.core import Simulator


class HeldSession(NamedTuple):
    """A live session, its world's simulator, and its episode's entry when it is one."""

    simulator: Simulator
    session: Session
    entry: EpisodeEntry | None


class WorldLoader(Protocol):
    """Worlds a hub loads on their first use and unloads when idle (a suite's thousands)."""

    def known(self, world: str) -> bool: ...

    def load(self, world: str) -> Simulator: ...

    def unload(self, world: str) -> None: ...


class EpisodeAccess:
    """The episodes of a server's worlds, each world with its own simulator, by id and token."""

    def __init__(
        self,
        simulators: Mapping[str, Simulator],
        *,
        durable: DurableEpisodes | None = None,
        loader: WorldLoader | None = None,
    ) -> None:
        """``durable``: where episodes are kept durably (none: in this process only); the
        simulators must have been built with its write-through. ``loader``: more worlds,
        loaded when first named (``simulators`` then holds the loaded ones)."""
        if not simulators and loader is None:
            raise ValueError("an episode hub needs at least one world")
        self.simulators = dict(simulators)
        self.loader = loader
        self._entries: dict[str, EpisodeEntry] = {}
        self._by_token: dict[str, str] = {}
        self._per_world: Counter[str] = Counter()
        self.durable = durable
        if durable is not None:
            durable.attach(self.simulators, self)
        for name, simulator in self.simulators.items():
            simulator.sessions.on_expire(functools.partial(self._expired, name))

    def _load(self, world: str) -> Simulator | None:
        if self.loader is None or not self.loader.known(world):
            return None
        simulator = self.loader.load(world)
        if self.durable is not None:
            try:
                self.durable.check_built(world, simulator)
            except ValueError:
                self.loader.unload(world)
                raise
        self.simulators[world] = simulator
        simulator.sessions.on_expire(functools.partial(self._expired, world))
        return simulator

    def unload_idle(self) -> list[str]:
        """Unload the loaded worlds without a live session or episode; their ids."""
        if self.loader is None:
            return []
        busy = {entry.world for entry in self._entries.values()}
        idle = [w for w, s in self.simulators.items() if w not in busy and not len(s.sessions)]
        for world in idle:
            del self.simulators[world]
            self.loader.unload(world)
        return idle

    # --- worlds -----------------------------------------------------------------------------

    @property
    def default_world(self) -> str | None:
        """The world an episode gets when none is named: the only one, if there is one."""
        return next(iter(self.simulators)) if len(self.simulators) == 1 else None

    def simulator(self, world: str) -> Simulator:
        simulator = self.simulators.get(world) or self._load(world)
        if simulator is None:
            raise UnknownWorld(
                f"no world {shown(world)} here (worlds: {', '.join(self.simulators)})"
            )
        return simulator

    # --- episodes -----------------------------------------------------------------------------

    def entry(self, episode_id: str) -> EpisodeEntry:
        """The live episode's entry as this process has it (see ``find``)."""
        entry = self._entries.get(episode_id)
        if entry is None or self._session_of(entry) is None:
            raise UnknownSession(f"no live episode {episode_id!r}")
        return entry

    async def find(self, episode_id: str, *, current: bool = True) -> EpisodeEntry:
        """The episode's entry, loaded from the durable store when this process does not have
        it, and with ``current`` brought up to what the store has (another worker may have run
        calls on it since); without a store, as ``entry``."""
        if self.durable is not None:
            await self.durable.refresh(episode_id, check=current)
        return self.entry(episode_id)

    def held(self, session_id: str, world: str | None = None) -> HeldSession:
        """The live session ``session_id`` names: an episode's, when ``world`` is left out or
        the episode is ``world``'s; else the plain session of ``world`` (a shared endpoint's,
        or one the control tools made)."""
        entry: EpisodeEntry | None = None
        if world is None or self.is_episode(world, session_id):
            entry = self.entry(session_id)
            simulator = self.simulators[entry.world]
        else:
            simulator = self.simulator(world)
        session = simulator.sessions.find(session_id)
        if session is None:
            raise UnknownSession(f"no live session {session_id!r}")
        return HeldSession(simulator, session, entry)

    def entries(self) -> list[EpisodeEntry]:
        """The live episodes' entries, oldest first."""
        return [e for e in list(self._entries.values()) if self._session_of(e) is not None]

    def plain_sessions(self, world: str) -> list[Session]:
        """The live sessions of ``world`` that are not episodes."""
        return [s for s in self.simulator(world).sessions if not self.is_episode(world, s.id)]

    def taken(self, session_id: str) -> bool:
        """Whether ``session_id`` names an episode or a session of any world already."""
        sessions = (s.sessions for s in self.simulators.values())
        return session_id in self._entries or any(session_id in s for s in sessions)

    def __len__(self) -> int:
        return len(self._entries)

    def held_of(self, world: str) -> int:
        """How many episodes of ``world`` this process holds."""
        return self._per_world[world]

    def _session_of(self, entry: EpisodeEntry) -> Session | None:
        return self.simulators[entry.world].sessions.find(entry.id)

    # --- tokens --------------------------------------------------------------------------------

    async def token_holder(self, token: str) -> str | None:
        """The episode ``token`` opens. With a durable store the store alone decides: another
        worker may have deleted the episode, or created a new one of the same id (with its
        own token), since this worker saw it, and a token must die everywhere at once."""
        if self.durable is not None:
            return await self.durable.store.holder(token)
        return self._by_token.get(token)

    async def token_opens(self, token: str, episode_id: str) -> bool:
        """Whether ``token`` opens episode ``episode_id`` now (the store decides, as for
        ``token_holder``); one lookup by id."""
        if self.durable is not None:
            return await self.durable.store.opens(episode_id, token)
        return self.opens(token, episode_id)

    def is_episode(self, world: str, session_id: str) -> bool:
        """Whether ``session_id`` of ``world`` belongs to an episode (which only its own URL
        may reach)."""
        entry = self._entries.get(session_id)
        return entry is not None and entry.world == world

    def opens(self, token: str, episode_id: str) -> bool:
        """Whether ``token`` is the token of episode ``episode_id`` (constant-time)."""
        entry = self._entries.get(episode_id)
        return entry is not None and hmac.compare_digest(token.encode(), entry.token.encode())

    # --- the index ---------------------------------------------------------------------------

    def register(self, entry: EpisodeEntry) -> None:
        """Know an episode (new here, reset, or loaded from the store) by its id and token;
        an earlier incarnation's token is forgotten."""
        known = self._entries.get(entry.id)
        if known is not None:
            self._per_world[known.world] -= 1
            self._by_token.pop(known.token, None)
        self._per_world[entry.world] += 1
        self._entries[entry.id] = entry
        self._by_token[entry.token] = entry.id

    def unregister(self, episode_id: str) -> None:
        """Forget an episode here (expired, deleted, or gone from the store)."""
        entry = self._entries.pop(episode_id, None)
        if entry is not None:
            self._by_token.pop(entry.token, None)
            self._per_world[entry.world] -= 1
        if self.durable is not None:
            self.durable.evict(episode_id)

    def _expired(self, world: str, session_id: str) -> None:
        if self.is_episode(world, session_id):
            self.unregister(session_id)
