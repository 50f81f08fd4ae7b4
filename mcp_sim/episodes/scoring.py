"""What an episode did and how well: its journal (a fork's with its parent's calls up to the
fork), its verdict on a task, and what the hub says about it."""

from __future__ import annotations

from typing import Any

from mcp_sim.episodes.access import EpisodeAccess
from mcp_sim.episodes.entry import EpisodeEntry
from mcp_sim.journal import JournalRecord
from mcp_sim.runtime.session import Session
from mcp_sim.runtime.virtual_clock import virtual_now
from mcp_sim.scoring.rubric import RubricJudge
from mcp_sim.scoring.trajectory_counts import TrajectoryUsage
from mcp_sim.scoring.verdict import Verdict, choose_task, score


def session_summary(session: Session) -> dict[str, Any]:
    """What the hub says about a session (an episode's or a plain one)."""
    return {
        "id": session.id,
        "version": session.version,
        "steps": session.steps,
        "seed": session.seed,
        "next_time": virtual_now(session.world, session.steps + 1),
        "consistency": session.consistency.as_dict(),
    }


class EpisodeScoring:
    """Journals, verdicts and summaries of the episodes (and plain sessions) of ``access``."""

    def __init__(self, access: EpisodeAccess) -> None:
        self.access = access

    def summary(self, entry: EpisodeEntry) -> dict[str, Any]:
        """What the hub says about an episode (its token is given only at creation)."""
        about = {"world": entry.world, "task": entry.task, "parent": entry.parent}
        session = session_summary(self.access.held(entry.id).session)
        return {"id": session.pop("id"), **about, **session}

    def listing(self) -> list[dict[str, Any]]:
        return [self.summary(entry) for entry in self.access.entries()]

    def usage(self, episode_id: str) -> TrajectoryUsage:
        """The episode's calls so far (a fork's with its parent's): model errors, timeouts,
        injected faults, tokens and the time waited on the world model."""
        session = self.access.held(episode_id).session
        records = self.journal(episode_id)
        return TrajectoryUsage.of(records, model_seconds=session.model_seconds)

    def detail(self, entry: EpisodeEntry) -> dict[str, Any]:
        """The summary with the episode's usage (read from its journal, so not in the
        listing)."""
        return {**self.summary(entry), **self.usage(entry.id).as_dict()}

    def journal(self, session_id: str, *, world: str | None = None) -> list[JournalRecord]:
        """The session's calls (a fork's start with its parent's), in step order; with
        ``world`` left out, ``session_id`` must be an episode's."""
        simulator, session, entry = self.access.held(session_id, world)
        inherited = entry.inherited if entry is not None else ()
        return [*inherited, *simulator.journal.records(session.id)]

    async def verify(
        self, episode_id: str, task: str | None = None, judge: RubricJudge | None = None
    ) -> Verdict:
        """The episode's verdict on ``task`` (default: the episode's task, or the world's only
        one). Rubrics are judged by ``judge``, else by the world model when there is one."""
        entry = await self.access.find(episode_id)
        simulator = self.access.simulators[entry.world]
        name, chosen = choose_task(simulator.world, task or entry.task)
        if judge is None and simulator.model is not None:
            judge = RubricJudge(simulator.model)
        session = self.access.held(episode_id).session
        async with session.lock:
            final, records = session.state, self.journal(episode_id)
            seconds = session.model_seconds
        return await score(
            name,
            chosen,
            start=simulator.world.state,
            final=final,
            records=records,
            judge=judge,
            model_seconds=seconds,
        )
