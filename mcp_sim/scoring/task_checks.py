"""Tasks checked for rewards nobody earned: each task of a world scored on an episode that made
no calls and left the starting state as it was. A task that gives such an episode more than 0
rewards a policy for doing nothing, usually through a negative check (``not_called``, a state
left unchanged) that passes vacuously; ``requires`` on that check fixes it (see
:mod:`mcp_sim.spec.verify`). ``mcp-sim verify --check-tasks`` reports it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mcp_sim.scoring.rubric import RubricJudge
from mcp_sim.scoring.verdict import Verdict, score
from mcp_sim.spec.world import World


@dataclass(frozen=True)
class EmptyEpisode:
    """One task's verdict on an episode that did nothing."""

    verdict: Verdict

    @property
    def rewards_nothing(self) -> bool:
        """Whether doing nothing scores above 0 (the task is flagged)."""
        return self.verdict.reward > 0

    def as_dict(self) -> dict[str, Any]:
        vacuous = [c.name for c in self.verdict.checks if c.passed]
        return {
            "task": self.verdict.task,
            "empty_reward": self.verdict.reward,
            "flagged": self.rewards_nothing,
            "passed_with_no_calls": vacuous,
        }


async def empty_episodes(world: World, judge: RubricJudge | None = None) -> list[EmptyEpisode]:
    """Every task of ``world`` scored on an episode with no calls (rubrics by ``judge``, or
    left undecided)."""
    return [
        EmptyEpisode(
            await score(name, task, start=world.state, final=world.state, records=[], judge=judge)
        )
        for name, task in world.verify.items()
    ]
