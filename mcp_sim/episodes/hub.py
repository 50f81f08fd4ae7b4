"""Episodes: isolated, addressable runs of a world, many worlds to a server.

An episode is a session of one world's simulator that a client reaches by its own id and its
own token, never by naming a session: the HTTP layer routes ``/episodes/{id}/mcp`` to it and
checks the token, and the shared endpoints refuse to name an episode's session. Ids are random
128-bit strings unless the caller picks one; tokens are random 256-bit strings. An episode
idle past the server's idle timeout expires with its session.

With a durable store (:mod:`mcp_sim.episodes.durable`) episodes outlive the process: every
change is written through, any worker sharing the store can serve any episode (``find`` loads
it on first use), and one worker at a time runs an episode's calls. Without one, episodes live
in this process only.

:class:`EpisodeHub` is the one front on three parts, each of one concern: who may reach what
(:mod:`~mcp_sim.episodes.access`), changes (:mod:`~mcp_sim.episodes.lifecycle`), and
journals, verdicts and summaries (:mod:`~mcp_sim.episodes.scoring`). The episode API, the
Python API and the ``sim_*`` control tools all go through it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mcp_sim.episodes.access import EpisodeAccess, HeldSession, WorldLoader
from mcp_sim.episodes.durable import DurableEpisodes
from mcp_sim.episodes.entry import EpisodeEntry
from mcp_sim.episodes.lifecycle import EpisodeLifecycle
from mcp_sim.episodes.limits import EpisodeLimits
from mcp_sim.episodes.scoring import EpisodeScoring
from mcp_sim.journal import JournalRecord
from mcp_sim.runtime.snapshot import Snapshot
from mcp_sim.scoring.rubric import RubricJudge
from mcp_sim.scoring.verdict import Verdict
from mcp_sim.simulator.core import Simulator

__all__ = ["EpisodeHub"]


class EpisodeHub:
    """The episodes of a server's worlds, each world with its own simulator.

    The episode operations are here by episode id; ``lifecycle`` and ``scoring`` also take a
    plain session of a named world (the control tools')."""

    def __init__(
        self,
        simulators: Mapping[str, Simulator],
        *,
        durable: DurableEpisodes | None = None,
        limits: EpisodeLimits | None = None,
        loader: WorldLoader | None = None,
    ) -> None:
        """``durable``: where episodes are kept durably (none: in this process only); its
        simulators are built with its write-through (see :mod:`mcp_sim.api.assembly`).
        ``limits``: how many episodes it holds at most, and how large a snapshot may be.
        ``loader``: worlds loaded on their first episode, unloaded by ``unload_idle``."""
        self.access = EpisodeAccess(simulators, durable=durable, loader=loader)
        self.limits = limits or EpisodeLimits()
        self.lifecycle = EpisodeLifecycle(self.access, self.limits)
        self.scoring = EpisodeScoring(self.access)

    # --- access ---------------------------------------------------------------------------------

    @property
    def simulators(self) -> dict[str, Simulator]:
        return self.access.simulators

    @property
    def durable(self) -> DurableEpisodes | None:
        return self.access.durable

    @property
    def default_world(self) -> str | None:
        """The world an episode gets when none is named: the only one, if there is one."""
        return self.access.default_world

    def simulator(self, world: str) -> Simulator:
        return self.access.simulator(world)

    def unload_idle(self) -> list[str]:
        """Unload the loader's worlds that have no live session; their ids."""
        return self.access.unload_idle()

    def entry(self, episode_id: str) -> EpisodeEntry:
        """The live episode's entry as this process has it (see ``find``)."""
        return self.access.entry(episode_id)

    async def find(self, episode_id: str, *, current: bool = True) -> EpisodeEntry:
        """The episode's entry, loaded from the durable store if need be (``current``: and
        brought up to what the store has)."""
        return await self.access.find(episode_id, current=current)

    def held(self, episode_id: str) -> HeldSession:
        """The live episode's session, simulator and entry."""
        return self.access.held(episode_id)

    async def token_holder(self, token: str) -> str | None:
        """The episode ``token`` opens, if any."""
        return await self.access.token_holder(token)

    async def token_opens(self, token: str, episode_id: str) -> bool:
        """Whether ``token`` opens episode ``episode_id`` now."""
        return await self.access.token_opens(token, episode_id)

    def is_episode(self, world: str, session_id: str) -> bool:
        return self.access.is_episode(world, session_id)

    def opens(self, token: str, episode_id: str) -> bool:
        return self.access.opens(token, episode_id)

    def __len__(self) -> int:
        return len(self.access)

    # --- life cycle -----------------------------------------------------------------------------

    async def create(
        self,
        world: str | None = None,
        episode_id: str | None = None,
        *,
        seed: int | None = None,
        snapshot: Snapshot | None = None,
        task: str | None = None,
    ) -> EpisodeEntry:
        """A new episode at its world's start, or continuing from ``snapshot``."""
        return await self.lifecycle.create(
            world, episode_id, seed=seed, snapshot=snapshot, task=task
        )

    async def fork(
        self, episode_id: str, new_id: str | None = None, *, seed: int | None = None
    ) -> EpisodeEntry:
        return await self.lifecycle.fork(episode_id, new_id, seed=seed)

    async def fork_group(
        self, episode_id: str, forks: list[tuple[str | None, int | None]]
    ) -> list[EpisodeEntry]:
        return await self.lifecycle.fork_group(episode_id, forks)

    async def reset(self, episode_id: str, *, seed: int | None = None) -> dict[str, Any]:
        """Reset the episode (see :meth:`EpisodeLifecycle.reset`); its summary after."""
        await self.lifecycle.reset(episode_id, seed=seed)
        return self.summary(self.entry(episode_id))

    async def snapshot(self, episode_id: str) -> Snapshot:
        return await self.lifecycle.snapshot(episode_id)

    async def state(self, episode_id: str) -> dict[str, Any]:
        return await self.lifecycle.state(episode_id)

    async def delete(self, episode_id: str) -> None:
        await self.lifecycle.delete(episode_id)

    # --- scoring --------------------------------------------------------------------------------

    def summary(self, entry: EpisodeEntry) -> dict[str, Any]:
        return self.scoring.summary(entry)

    def detail(self, entry: EpisodeEntry) -> dict[str, Any]:
        return self.scoring.detail(entry)

    def listing(self) -> list[dict[str, Any]]:
        return self.scoring.listing()

    def journal(self, episode_id: str) -> list[JournalRecord]:
        return self.scoring.journal(episode_id)

    async def verify(
        self, episode_id: str, task: str | None = None, judge: RubricJudge | None = None
    ) -> Verdict:
        return await self.scoring.verify(episode_id, task, judge)
