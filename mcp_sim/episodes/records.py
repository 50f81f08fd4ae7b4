"""An episode as its durable record, and back.

The record is four parts, each written when it changes and never rewritten whole per call:

- **meta** (JSON, at creation and reset): world, token, task, parent, the parent's calls a
  fork inherits;
- **base** (JSON, at creation and reset): the episode's starting point as a snapshot document
  (:class:`mcp_sim.runtime.snapshot.Snapshot`), its state left out (``null``) when it is the
  world's own starting state, so a new episode of a 4 MB world writes a few hundred bytes;
- **steps** (appended, one per call): the call's journal line, and what its history turn adds
  to it (the turn as the model was shown it); the committed patch is in the journal line;
- **head** (one small document, replaced per call): what moves with every call but is not in
  the journal: step and version counters, the time spent waiting on the model, the RNG positions (the session's and the
  perturbations'), the id allocator, deleted ids, consistency counts, compaction point.

So a call writes one step line and one head of a few kilobytes whatever the size of the state,
and loading replays the committed patches onto the base. The result is the session exactly as
the process that ran the calls had it: same state, history, clock, ids and randomness, so the
episode goes on as if it had never left.
"""

from __future__ import annotations

import base64
import json
import random
import struct
import time
from collections import deque
from dataclasses import dataclass
from typing import Any

import jsonpatch

from mcp_sim.episodes.entry import EpisodeEntry
from mcp_sim.journal import JournalRecord
from mcp_sim.perturb.planner import PerturbState
from mcp_sim.runtime.session import Session, Turn
from mcp_sim.runtime.snapshot import Snapshot, SnapshotTurn
from mcp_sim.runtime.state import copied_along
from mcp_sim.spec.world import World

_MT_WORDS = 625
"""Words in a Mersenne Twister state: 624 of state and the position."""


@dataclass(frozen=True)
class StoredEpisode:
    """An episode's record as a store hands it back (``rev`` counts the writes to it)."""

    id: str
    token: str
    meta: str
    base: str
    head: str
    steps: list[str]
    rev: int
    incarnation: str


@dataclass(frozen=True)
class NewRecord:
    """What a store writes when an episode starts (or starts over, on reset)."""

    meta: str
    base: str
    head: str


def new_record(episode: EpisodeEntry, session: Session) -> NewRecord:
    meta = {
        "world": episode.world,
        "task": episode.task,
        "parent": episode.parent,
        "inherited": [record.to_json() for record in episode.inherited],
    }
    snapshot = session.snapshot()
    own = session.state is not session.world.state
    base = snapshot.model_dump(mode="json", exclude={"state"}) | {
        "state": snapshot.state if own else None
    }
    return NewRecord(_dumps(meta), _dumps(base), head_of(session))


def step_of(record: JournalRecord, turn: Turn | None) -> str:
    """One call's step line: its journal line, then (after a newline, which a JSON line never
    holds) what its turn adds to the journal's account of it."""
    extra = "" if turn is None else _dumps([turn.head, turn.anchor])
    return record.to_json() + "\n" + extra


def head_of(session: Session) -> str:
    perturbation = session.perturbation
    return _dumps(
        {
            "steps": session.steps,
            "version": session.version,
            "model_seconds": session.model_seconds,
            "history_start": session.history_start,
            "history_resume": session.history_resume,
            "rng": _rng_state(session.rng),
            "next_ids": session.ids.next_n,
            "deleted": {k: sorted(v) for k, v in session.deleted.items() if v},
            "consistency": session.consistency.as_dict(),
            "perturbation": None if perturbation is None else _perturbation(perturbation),
        }
    )


def episode_of(stored: StoredEpisode, episode_id: str) -> EpisodeEntry:
    meta = json.loads(stored.meta)
    inherited = tuple(JournalRecord.model_validate_json(line) for line in meta["inherited"])
    return EpisodeEntry(
        episode_id,
        meta["world"],
        stored.token,
        stored.incarnation,
        meta["task"],
        meta["parent"],
        inherited,
    )


def rebuild(world: World, stored: StoredEpisode) -> tuple[Session, list[JournalRecord]]:
    """The session a stored record describes, and its journal records. Raises
    :class:`mcp_sim.errors.SnapshotInvalid` when ``world`` is not the world it was made in."""
    base = json.loads(stored.base)
    head = json.loads(stored.head)
    state: dict[str, Any] = world.state if base["state"] is None else base["state"]
    history: list[dict[str, Any]] = base["history"]
    records = []
    for line in stored.steps:
        journal_line, _, extra = line.partition("\n")
        record = JournalRecord.model_validate_json(journal_line)
        records.append(record)
        committed = record.patch_status == "committed"
        if committed and record.patch:
            patch = record.patch
            state = jsonpatch.apply_patch(copied_along(state, patch), patch, in_place=True)
        if extra:
            turn_head, anchor = json.loads(extra)
            history.append(
                {
                    "tool": record.tool,
                    "arguments": record.arguments,
                    "observation": record.observation,
                    "is_error": record.is_error,
                    "version": record.version,
                    "head": turn_head,
                    "anchor": anchor,
                    "change": record.patch if committed else None,
                }
            )
    snapshot = Snapshot.model_construct(
        **{
            **base,
            "session": stored.id,
            "state": state,
            "history": [SnapshotTurn.model_construct(**turn) for turn in history],
            "steps": head["steps"],
            "version": head["version"],
            "history_start": head["history_start"],
            "history_resume": head.get("history_resume", 0),
            "rng": _rng_from(head["rng"]),
            "next_ids": head["next_ids"],
            "deleted": head["deleted"],
            "consistency": head["consistency"],
        }
    )
    session = Session.restore(stored.id, world, snapshot)
    # The time the episode waited on the model, which its verdict's usage reports (not in a
    # snapshot: a fork or a restored snapshot starts its own count).
    session.model_seconds = head.get("model_seconds", 0.0)
    if head["perturbation"] is not None:
        session.perturbation = _perturbation_from(head["perturbation"])
    return session, records


def _dumps(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def _rng_state(rng: random.Random) -> list[Any]:
    """A Mersenne Twister's state as ``[version, base64 of its words, gauss]``: 3.3 kB of
    text instead of the 7 kB of its words as JSON numbers."""
    version, internal, gauss = rng.getstate()
    words = base64.b64encode(struct.pack(f"<{_MT_WORDS}I", *internal)).decode()
    return [version, words, gauss]


def _rng_from(encoded: list[Any]) -> list[Any]:
    """``_rng_state``'s encoding back as the snapshot's ``[version, words, gauss]``."""
    version, words, gauss = encoded
    return [version, list(struct.unpack(f"<{_MT_WORDS}I", base64.b64decode(words))), gauss]


def _perturbation(state: PerturbState) -> dict[str, Any]:
    # The rate-limit windows hold this process's monotonic clock readings, which mean nothing
    # in another process: they travel as ages.
    now = time.monotonic()
    return {
        "seed": state.seed,
        "profiles": list(state.profiles),
        "rng": _rng_state(state.rng),
        "counters": [[*key, n] for key, n in state.counters.items()],
        "windows": [[*key, [now - t for t in times]] for key, times in state.windows.items()],
    }


def _perturbation_from(data: dict[str, Any]) -> PerturbState:
    rng = random.Random()
    version, words, gauss = _rng_from(data["rng"])
    rng.setstate((version, tuple(words), gauss))
    now = time.monotonic()
    return PerturbState(
        seed=data["seed"],
        profiles=tuple(data["profiles"]),
        rng=rng,
        counters={(p, i, k): n for p, i, k, n in data["counters"]},
        windows={(p, i): deque(now - age for age in ages) for p, i, ages in data["windows"]},
    )
