"""Where episodes outlive a process: the durable episode store, and the lease that makes one
worker at a time the writer of an episode.

A store holds each episode's record (:mod:`mcp_sim.episodes.records`) under its id, counts the
writes to it (``rev``), and finds an episode by its token. An id can be used again once its
episode is gone (harnesses name episodes ``task-3-sample-0``), so each creation also gets a
random *incarnation* that the record keeps: a copy or a write of another incarnation is not
this episode's, however its revision compares, and a token opens only the incarnation it was
made with (deleting or expiring the episode drops it from the store, for every worker at once). Every write after creation is
*fenced*: it names the lease holder and the revision it read, and the store refuses it when
another worker holds the lease or has written since, so a worker that stalled past its lease
can never overwrite the calls of the one that took over. (A lease that ran out while nobody
else took it does not stop the write: the revision alone says nothing was missed.)

A lease is the right to run an episode's calls: held by one worker (``holder``) until it is
released or runs out (``seconds`` after it was taken or last renewed). A worker that dies holds
its leases only until they run out.

Two stores ship: SQLite (:mod:`mcp_sim.episodes.store_sqlite`; one machine, several processes)
and Redis (:mod:`mcp_sim.episodes.store_redis`; several machines). ``open_store`` picks one by
URL.

Every operation of a store answers within its ``timeout`` (``--episode-store-timeout``) or
raises :class:`mcp_sim.errors.EpisodeStoreError`, which the HTTP layer answers with 503
``episode_store``: a store that stalls never stalls the server with it.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass

from mcp_sim.episodes.records import NewRecord, StoredEpisode

DEFAULT_STORE_TIMEOUT = 5.0
"""Seconds a store operation may take before it fails with 503 ``episode_store``."""


@dataclass(frozen=True)
class EventLimits:
    """How long a stream's events are kept, and how many of them at most."""

    seconds: float = 600.0
    per_stream: int = 256


@dataclass(frozen=True)
class StreamEvents:
    """A stream's events after a given one: their ids and messages (``None``: priming)."""

    stream: str
    events: list[tuple[str, str | None]]


@dataclass(frozen=True)
class Revision:
    """Which episode a stored record is (its ``incarnation``) and how many writes it has had."""

    incarnation: str
    rev: int


@dataclass(frozen=True)
class Claim:
    """What taking a lease found: the episode's revision, or who holds it and for how long."""

    rev: int | None
    """The episode's revision when the lease was taken; ``None`` when it is held elsewhere."""
    held_for: float = 0.0
    """Seconds left on another worker's lease (when ``rev`` is None)."""
    incarnation: str = ""
    """The incarnation whose lease was taken (when ``rev`` is not None)."""


class EpisodeStore(ABC):
    """A durable home for episodes, shared by the workers that serve them."""

    url: str
    """Where the store is, without credentials (for messages)."""

    @abstractmethod
    async def create(
        self, episode_id: str, token: str, incarnation: str, record: NewRecord
    ) -> None:
        """Store a new episode at revision 0. Raises :class:`mcp_sim.errors.SessionExists`
        when the id is taken."""

    @abstractmethod
    async def load(self, episode_id: str) -> StoredEpisode | None: ...

    @abstractmethod
    async def revision(self, episode_id: str) -> Revision | None:
        """The episode's incarnation and revision, ``None`` when there is no such episode."""

    @abstractmethod
    async def holder(self, token: str) -> str | None:
        """The id of the episode ``token`` opens, if any."""

    @abstractmethod
    async def opens(self, episode_id: str, token: str) -> bool:
        """Whether ``token`` is the token of episode ``episode_id`` as it is now (one lookup
        by id, cheaper than ``holder``; compared in constant time)."""

    @abstractmethod
    async def claim(self, episode_id: str, holder: str, seconds: float) -> Claim | None:
        """Take (or renew) the episode's lease for ``holder``; ``None`` when there is no such
        episode."""

    @abstractmethod
    async def renew(self, episode_id: str, holder: str, seconds: float) -> bool:
        """Extend ``holder``'s lease; False when it is no longer ``holder``'s."""

    @abstractmethod
    async def release(self, episode_id: str, holder: str) -> None: ...

    @abstractmethod
    async def append(
        self, episode_id: str, holder: str, at: Revision, step: str, head: str
    ) -> int | None:
        """Add one call (fenced by ``holder``'s lease and revision ``at``, incarnation
        included) and release the lease: the new revision, or ``None`` when the fence refused
        it."""

    @abstractmethod
    async def restart(
        self, episode_id: str, holder: str, at: Revision, record: NewRecord
    ) -> int | None:
        """Start the episode over from ``record`` (a reset), fenced like ``append``."""

    @abstractmethod
    async def delete(self, episode_id: str) -> None: ...

    # --- the events of response streams (mcp_sim.server.shared_events) ------------------------

    @abstractmethod
    async def keep_event(
        self, event_id: str, stream: str, message: str | None, limits: EventLimits
    ) -> None:
        """Add an event (its JSON-RPC message, none for a priming event) to ``stream``: kept
        for ``limits.seconds``, the stream's oldest dropped past ``limits.per_stream``."""

    @abstractmethod
    async def events_after(self, event_id: str) -> StreamEvents | None:
        """The events of ``event_id``'s stream after it; ``None`` when it is not kept."""

    @abstractmethod
    async def stream_events(self, stream: str) -> StreamEvents:
        """Every event kept of ``stream``, oldest first."""

    @abstractmethod
    async def close(self) -> None: ...
