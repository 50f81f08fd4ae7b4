"""A task's reference solution: the calls that solve it, each with the answer and the state
patch the solution expects the world model to give. Replayed with those answers pinned, it is
an episode's journal, scored like any other (mcp_sim.scoring), which is how ``suite check``
tells a solvable task from one whose checks nothing can satisfy.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from mcp_sim.journal import JournalRecord
from mcp_sim.scoring.journal_replay import replay
from mcp_sim.scoring.verdict import Verdict, score
from mcp_sim.spec.world import World

REFERENCE_SESSION = "reference"


class ReferenceStep(BaseModel):
    """One call of a reference solution and what the solution expects back."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    tool: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    answer: str = Field(description="The observation the solution expects.")
    patch: list[dict[str, Any]] = Field(
        default_factory=list, description="The state change the call makes (JSON Patch)."
    )


Solution = list[ReferenceStep]


def solution_problems(world: World, task: str, steps: Sequence[ReferenceStep]) -> list[str]:
    """What makes a solution unreplayable on its face: no steps, or a call of a missing tool."""
    if not steps:
        return [f"task {task}: the reference solution has no calls"]
    tools = {t.name for t in world.tools}
    return [
        f"task {task}: solution step {i + 1} calls {step.tool!r}, which the world has no tool of"
        for i, step in enumerate(steps)
        if step.tool not in tools
    ]


def solution_records(world: World, steps: Sequence[ReferenceStep]) -> list[JournalRecord]:
    """The solution as the journal of an episode whose answers were the pinned ones."""
    wanted = world.content_hash()
    return [
        JournalRecord(
            session=REFERENCE_SESSION,
            step=i,
            tool=step.tool,
            arguments=step.arguments,
            observation=step.answer,
            is_error=False,
            source="replay",
            world=wanted,
            patch_status="committed" if step.patch else "none",
            patch=step.patch or None,
        )
        for i, step in enumerate(steps, 1)
    ]


async def replayed_verdict(world: World, task: str, steps: Sequence[ReferenceStep]) -> Verdict:
    """The verdict on ``task`` of the episode ``steps`` make (none: the empty trajectory).
    Raises :class:`~mcp_sim.errors.VerifyError` when a patch does not apply."""
    records = solution_records(world, steps)
    final = replay(world, records, REFERENCE_SESSION).final if records else world.state
    return await score(task, world.verify[task], start=world.state, final=final, records=records)
