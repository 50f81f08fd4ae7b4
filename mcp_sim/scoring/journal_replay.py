"""An episode's final state, rebuilt offline from its journal: the committed patches applied
in order onto the world's starting state. How ``mcp-sim verify`` scores an episode that ran
elsewhere, from nothing but the world file and the journal it wrote."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import jsonpatch
from jsonpointer import JsonPointerException

from mcp_sim.errors import VerifyError
from mcp_sim.journal import JournalRecord
from mcp_sim.runtime.state import copied_along
from mcp_sim.spec.world import World


@dataclass(frozen=True)
class ReplayedEpisode:
    """One episode as its journal tells it: its last run's calls and where they left the state."""

    session: str
    records: tuple[JournalRecord, ...]
    final: dict[str, Any]


def episode_ids(records: Sequence[JournalRecord]) -> list[str]:
    """The episodes (sessions) of a journal, in order of first appearance."""
    return list(dict.fromkeys(r.session for r in records))


def pick_episode(records: Sequence[JournalRecord], episode: str | None) -> str:
    """``episode``, checked to be in the journal, or the journal's only episode."""
    ids = episode_ids(records)
    if episode is not None:
        if episode not in ids:
            raise VerifyError(
                f"the journal has no calls of episode {episode!r} (it has: {_listed(ids)})"
            )
        return episode
    if not ids:
        raise VerifyError("the journal holds no calls: there is no episode to score")
    if len(ids) > 1:
        raise VerifyError(
            f"the journal has {len(ids)} episodes ({_listed(ids)}); name one with --episode"
        )
    return ids[0]


def replay(world: World, records: Sequence[JournalRecord], episode: str) -> ReplayedEpisode:
    """The final state of ``episode``. A reset shows in the journal as the step count starting
    again at 1; only the calls after the last one count."""
    mine = [r for r in records if r.session == episode]
    runs: list[list[JournalRecord]] = []
    for record in mine:
        if not runs or record.step <= runs[-1][-1].step:
            runs.append([])
        runs[-1].append(record)
    calls = runs[-1] if runs else []
    if calls and calls[0].step != 1:
        raise VerifyError(
            f"episode {episode!r} starts at step {calls[0].step} in the journal: it continues "
            "a snapshot or a fork whose state the journal does not hold; verify it on the "
            "server (POST /episodes/ID/verify) instead"
        )
    wanted = world.content_hash()
    state: dict[str, Any] = world.state
    for record in calls:
        if record.world and record.world != wanted:
            raise VerifyError(
                f"step {record.step} of episode {episode!r} was answered in another version "
                f"of the world (spec hash {record.world}, this file's is {wanted}); verify with "
                "the world file it ran with"
            )
        if record.patch_status == "committed" and record.patch:
            state = _applied(state, record)
    return ReplayedEpisode(episode, tuple(calls), state)


def _applied(state: dict[str, Any], record: JournalRecord) -> dict[str, Any]:
    patch = record.patch or []
    try:
        result = jsonpatch.apply_patch(copied_along(state, patch), patch, in_place=True)
    except (jsonpatch.JsonPatchException, JsonPointerException, TypeError, ValueError) as exc:
        raise VerifyError(
            f"the patch committed at step {record.step} of episode {record.session!r} does not "
            f"apply to the replayed state ({exc}); the journal does not belong to this world"
        ) from None
    if not isinstance(result, dict):
        raise VerifyError(f"the patch at step {record.step} leaves a state that is not an object")
    return result


def _listed(ids: Sequence[str]) -> str:
    shown = ", ".join(ids[:10])
    return shown + (f" and {len(ids) - 10} more" if len(ids) > 10 else "")
