"""An episode scored offline, from the world and the journal it was served with: its committed
patches replayed onto the starting state (:mod:`mcp_sim.scoring.journal_replay`), then every
check of a task run on the result and on the calls. ``mcp-sim verify`` prints the verdict; it
is the object ``POST /episodes/{id}/verify`` returns, with the episode's id."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mcp_sim.journal import JournalRecord
from mcp_sim.models.openai import EndpointSettings, OpenAICompatibleModel
from mcp_sim.scoring.journal_replay import pick_episode, replay
from mcp_sim.scoring.rubric import RubricJudge
from mcp_sim.scoring.verdict import choose_task, score
from mcp_sim.spec.world import World


async def score_journal(
    world: World,
    records: Sequence[JournalRecord],
    *,
    episode: str | None = None,
    task: str | None = None,
    judge: EndpointSettings | None = None,
) -> dict[str, Any]:
    """The verdict on ``episode`` of ``records`` (which may be left out when they hold one) by
    ``task`` of ``world`` (the same when it has one), as JSON: the episode's id, the reward
    and each check. Rubric checks are decided by the model at ``judge``, or left undecided.
    Raises :class:`~mcp_sim.errors.SimError` for an episode or task that cannot be chosen or
    a journal whose patches do not apply."""
    name, chosen = choose_task(world, task)
    replayed = replay(world, records, pick_episode(records, episode))
    rubric = None
    if judge is not None and any(c.judged for c in chosen.checks):
        rubric = RubricJudge(OpenAICompatibleModel(judge))
    try:
        verdict = await score(
            name,
            chosen,
            start=world.state,
            final=replayed.final,
            records=replayed.records,
            judge=rubric,
        )
    finally:
        if rubric is not None:
            await rubric.model.aclose()
    return {"episode": replayed.session, **verdict.as_dict()}
