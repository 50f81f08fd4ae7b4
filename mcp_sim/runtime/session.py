"""One live world per session: its state and version, its history, its deterministic side
channel (clock, ids, seeded RNG), and the order of its calls.

Its calls run one at a time (``lock``), so an observation always sees every earlier one;
different sessions run concurrently. ``SessionStore`` hands sessions out by id and forgets idle
ones.

State documents are never changed in place: a change is applied to a copy, which then replaces
the session's document (see :mod:`mcp_sim.runtime.state`). So a new session starts on the world's own
starting document, and a fork on its parent's, and they share it, copy-on-write, until their
first committed change: a thousand idle sessions of a world with a 1 MB state hold one copy of
it, not a thousand. Code that changes a session's state must keep to this: build a new
document and assign it to ``Session.state``, never mutate the one there.

A session can be copied out as a :class:`Snapshot` (plain JSON, so it can be saved to a file)
and a session can be started from one: that is how fork and restore work. A snapshot shares the
session's state document under the same rule: never changed in place. A snapshot holds
everything that decides the session's future (state, version, history, id counters, RNG state,
deleted ids, consistency counts), so a fork continues exactly where its parent stood.
"""

from __future__ import annotations

import copy
import random
import time
import weakref
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, fields
from typing import Any

import anyio

from mcp_sim.errors import SnapshotInvalid
from mcp_sim.perturb.planner import PerturbState
from mcp_sim.runtime.entities import EntityIndex
from mcp_sim.runtime.fresh_ids import IdAllocator
from mcp_sim.runtime.session_seeds import session_seed
from mcp_sim.runtime.snapshot import Snapshot, SnapshotTurn
from mcp_sim.runtime.state_index import StateOverlay
from mcp_sim.spec.world import World

_IDENTITY = {"id", "world", "lock", "last_used"}
"""Session fields that stay when a session takes over another's content."""


@dataclass(frozen=True)
class Turn:
    """One answered call, as it enters the session's history."""

    tool: str
    arguments: dict[str, Any]
    observation: str
    is_error: bool
    version: int = 0
    """The state version the observation was produced against."""
    action: str | None = field(default=None, compare=False, repr=False)
    """The call's action as prompts show it (:func:`mcp_sim.prompting.native.action_json`), rendered
    once instead of in every later prompt, for a turn without ``head``; None until the
    simulator renders it."""
    head: str | None = field(default=None, compare=False, repr=False)
    """The turn exactly as the model was shown it (its sections and action, see
    :mod:`mcp_sim.prompting.native`), so later prompts repeat it byte for byte; ``None`` for a call the
    model did not answer (a fixture, a validation error), shown as its bare action."""
    anchor: bool = field(default=False, compare=False)
    """Whether ``head`` carries the whole state (or its view) rather than changes."""
    change: list[dict[str, Any]] | None = field(default=None, compare=False, repr=False)
    """The JSON Patch the call committed, shown to the model with the next turn."""


@dataclass
class Consistency:
    """What the consistency auditor found in a session so far."""

    checked: int = 0
    """Observations checked (calls answered by the model in a world with entities)."""
    regenerated: int = 0
    """Calls whose first answer contradicted the state and was asked for again."""
    flagged: int = 0
    """Violations still present in the answers given (after the one regeneration)."""
    patches_rejected: int = 0
    """Write calls whose state change was not committed."""

    def as_dict(self) -> dict[str, int]:
        return {
            "checked": self.checked,
            "regenerated": self.regenerated,
            "flagged": self.flagged,
            "patches_rejected": self.patches_rejected,
        }


@dataclass
class Session:
    id: str
    world: World
    state: dict[str, Any]
    history: list[Turn] = field(default_factory=list)
    """The turns kept: every answered call from turn number ``history_offset`` (0-based) on."""
    steps: int = 0
    """Calls answered so far, including validation errors (the journal's step counter)."""
    last_used: float = field(default_factory=time.monotonic)
    lock: anyio.Lock = field(default_factory=anyio.Lock)
    version: int = 0
    """Committed state changes so far; 0 is the world's starting state."""
    seed: int = 0
    rng: random.Random = field(default_factory=random.Random)
    ids: IdAllocator = field(default_factory=IdAllocator)
    deleted: dict[str, set[str]] = field(default_factory=dict)
    """Ids of entity records that existed in this session and were removed."""
    history_start: int = 0
    """Turns before this number are folded away by compaction (the state carries their effect)."""
    history_resume: int = 0
    """When past ``history_start + 1``: the turns after turn ``history_start`` (an anchor, kept
    shown so the prompt's prefix stays) and before this number are folded away; the first turn
    after them shows their changes."""
    history_offset: int = 0
    """Turns before this number are no longer kept: compaction folded them away, so no prompt
    shows them again (see :meth:`let_go`). A long session's memory stays what its prompt can
    show, however many calls it has answered."""
    consistency: Consistency = field(default_factory=Consistency)
    model_seconds: float = field(default=0.0, compare=False)
    """Time this session's calls waited on the world model, in this process (a snapshot does
    not carry it: a fork or a restored episode counts from zero)."""
    perturbation: PerturbState | None = None
    """Seeded perturbation decisions and counts, started by the first call (mcp_sim.perturb.planner)."""
    grounding: StateOverlay | None = field(default=None, compare=False, repr=False)
    """Where this session's state differs from the world's index (see
    :mod:`mcp_sim.runtime.state_index`); moved on by each committed patch, rebuilt when the
    state is replaced otherwise."""

    @classmethod
    def start(
        cls, session_id: str, world: World, *, seed: int | None = None, base_seed: int | None = None
    ) -> Session:
        """A fresh session at the world's starting state. ``seed`` names the session's seed;
        without it one is derived from ``base_seed`` and the id (see
        :mod:`mcp_sim.runtime.session_seeds`)."""
        chosen = seed if seed is not None else session_seed(base_seed, session_id)
        return cls(
            id=session_id,
            world=world,
            state=world.state,
            seed=chosen,
            rng=random.Random(chosen),
            ids=IdAllocator(dict(_starting_ids(world))),
        )

    def become(self, other: Session) -> None:
        """Take over ``other``'s world (state, history, fresh ids, seeds) in place, keeping this
        session's id and lock: a call already queued on the lock then runs on the new content
        instead of on an orphaned session object. How reset and restore work on a live id."""
        for item in fields(self):
            if item.name not in _IDENTITY:
                setattr(self, item.name, getattr(other, item.name))

    @property
    def turn_count(self) -> int:
        """Turns in the history so far, those no longer kept included."""
        return self.history_offset + len(self.history)

    def turns_from(self, number: int) -> list[Turn]:
        """The kept turns from turn ``number`` (0-based) on."""
        return self.history[max(0, number - self.history_offset) :]

    def let_go(self, number: int) -> None:
        """Stop keeping the turns before turn ``number``, or before ``history_start`` if that
        comes first: only turns compaction has folded away are let go."""
        number = min(number, self.history_start)
        if number > self.history_offset:
            del self.history[: number - self.history_offset]
            self.history_offset = number

    def next_request_seed(self) -> int:
        """The sampling seed of the next model request of this session."""
        return self.rng.randrange(2**31)

    def snapshot(self) -> Snapshot:
        rng_version, rng_internal, rng_gauss = self.rng.getstate()
        return Snapshot(
            world=self.world.world,
            world_hash=self.world.content_hash(),
            session=self.id,
            version=self.version,
            steps=self.steps,
            state=self.state,
            history=[
                SnapshotTurn(
                    tool=t.tool,
                    arguments=copy.deepcopy(t.arguments),
                    observation=t.observation,
                    is_error=t.is_error,
                    version=t.version,
                    head=t.head,
                    anchor=t.anchor,
                    change=t.change,
                )
                for t in self.history
            ],
            history_start=self.history_start,
            history_resume=self.history_resume,
            history_offset=self.history_offset,
            seed=self.seed,
            rng=[rng_version, list(rng_internal), rng_gauss],
            next_ids=dict(self.ids.next_n),
            deleted={k: sorted(v) for k, v in self.deleted.items() if v},
            consistency=self.consistency.as_dict(),
        )

    @classmethod
    def restore(
        cls, session_id: str, world: World, snapshot: Snapshot, *, seed: int | None = None
    ) -> Session:
        """A new session continuing from ``snapshot``. With ``seed`` the copy gets fresh
        randomness (so forks of one snapshot can diverge); without it, the snapshot's."""
        if snapshot.world_hash != world.content_hash():
            raise SnapshotInvalid(
                f"the snapshot was taken in world {snapshot.world!r} "
                f"(spec hash {snapshot.world_hash}), not in this server's world {world.world!r} "
                f"(spec hash {world.content_hash()}); load it with the same world file"
            )
        rng = random.Random()
        try:
            if seed is None:
                version, internal, gauss = snapshot.rng
                rng.setstate((version, tuple(internal), gauss))
            else:
                rng.seed(seed)
            consistency = Consistency(**snapshot.consistency)
        except (TypeError, ValueError) as exc:
            raise SnapshotInvalid(f"the snapshot is damaged: {exc}") from None
        if snapshot.history_offset > snapshot.history_start:
            raise SnapshotInvalid("the snapshot is damaged: history_offset past history_start")
        return cls(
            id=session_id,
            world=world,
            state=snapshot.state,
            history=[
                Turn(
                    t.tool,
                    copy.deepcopy(t.arguments),
                    t.observation,
                    t.is_error,
                    t.version,
                    head=t.head,
                    anchor=t.anchor,
                    change=t.change,
                )
                for t in snapshot.history
            ],
            steps=snapshot.steps,
            version=snapshot.version,
            seed=snapshot.seed if seed is None else seed,
            rng=rng,
            ids=IdAllocator(dict(snapshot.next_ids)),
            deleted={k: set(v) for k, v in snapshot.deleted.items()},
            history_start=snapshot.history_start,
            history_resume=snapshot.history_resume,
            history_offset=snapshot.history_offset,
            consistency=consistency,
        )


_STARTING_IDS: dict[int, dict[str, int]] = {}
"""Fresh sessions' id counters by ``id(world)`` (a World is unhashable); dropped with the world."""


def _starting_ids(world: World) -> dict[str, int]:
    """The id counters of a fresh session of ``world``: the same for every session, and costly
    to find in a large state (every record is visited), so found once per world."""
    found = _STARTING_IDS.get(id(world))
    if found is None:
        found = IdAllocator.start(world, EntityIndex.build(world, world.state)).next_n
        _STARTING_IDS[id(world)] = found
        weakref.finalize(world, _STARTING_IDS.pop, id(world), None)
    return found


class SessionStore:
    """Sessions by id, created on first use and dropped after ``idle_timeout`` seconds unused.

    Sessions are kept in order of last use, so finding the idle ones (done on every lookup)
    looks only at the oldest few instead of scanning every session: with thousands of open
    sessions that scan would otherwise be the largest cost of a call.
    """

    def __init__(
        self,
        world: World,
        idle_timeout: float | None = 1800.0,
        clock: Callable[[], float] = time.monotonic,
        on_expire: Callable[[str], None] | None = None,
        *,
        base_seed: int | None = None,
    ) -> None:
        self.world = world
        self.idle_timeout = idle_timeout
        self.base_seed = base_seed
        self._clock = clock
        self._expiry_listeners: list[Callable[[str], None]] = []
        if on_expire is not None:
            self._expiry_listeners.append(on_expire)
        self._sessions: OrderedDict[str, Session] = OrderedDict()
        self.started = 0
        """Sessions added so far (new ids, restored and forked ones), for the metrics."""
        self.expired = 0
        """Sessions dropped for being idle so far."""

    def get(self, session_id: str, *, seed: int | None = None) -> Session:
        """The session named ``session_id``, started fresh if it is new or has expired. ``seed``
        is used only when the session starts here."""
        self.expire_idle()
        session = self._sessions.get(session_id)
        if session is None:
            session = Session.start(session_id, self.world, seed=seed, base_seed=self.base_seed)
            self._sessions[session_id] = session
            self.started += 1
        self.touch(session)
        return session

    def touch(self, session: Session) -> None:
        """Mark ``session`` as used now (by this store's clock, which decides expiry)."""
        session.last_used = self._clock()
        if self._sessions.get(session.id) is session:
            self._sessions.move_to_end(session.id)

    def find(self, session_id: str) -> Session | None:
        """The live session named ``session_id``, without starting one."""
        self.expire_idle()
        return self._sessions.get(session_id)

    def put(self, session: Session) -> Session:
        """Add (or replace) a session, e.g. one restored from a snapshot."""
        if session.id not in self._sessions:
            self.started += 1
        self._sessions[session.id] = session
        self.touch(session)
        return session

    def drop(self, session_id: str) -> bool:
        return self._sessions.pop(session_id, None) is not None

    def expire_idle(self) -> list[str]:
        """Drop sessions idle for longer than the timeout (never one with a call in flight)."""
        if self.idle_timeout is None:
            return []
        cutoff = self._clock() - self.idle_timeout
        expired = []
        # Oldest first: the walk stops at the first session used since the cutoff. Sessions
        # with a call in flight are passed over (they are touched again when the call ends).
        for sid, session in self._sessions.items():
            if session.last_used >= cutoff:
                break
            if not session.lock.locked():
                expired.append(sid)
        for sid in expired:
            del self._sessions[sid]
            self.expired += 1
            for listener in self._expiry_listeners:
                listener(sid)
        return expired

    def on_expire(self, listener: Callable[[str], None]) -> None:
        """Call ``listener`` with the id of every session that expires from now on, so what is
        kept per session elsewhere (a journal's records, resource subscriptions) goes too."""
        self._expiry_listeners.append(listener)

    def __iter__(self) -> Iterator[Session]:
        return iter(list(self._sessions.values()))

    def __contains__(self, session_id: object) -> bool:
        return session_id in self._sessions

    def __len__(self) -> int:
        return len(self._sessions)
