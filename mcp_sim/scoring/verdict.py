"""An episode's score: every check of one task, the reward they add up to, and whether it can
be trusted (every call simulated, see :mod:`mcp_sim.scoring.trajectory_counts`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from mcp_sim.errors import VerifyError, shown
from mcp_sim.journal import JournalRecord
from mcp_sim.scoring.checks import CheckResult, journal_check, state_check, with_prerequisites
from mcp_sim.scoring.rubric import RubricJudge
from mcp_sim.scoring.trajectory_counts import ModelUsage, SimulationCounts
from mcp_sim.spec.verify import Task
from mcp_sim.spec.world import World


@dataclass(frozen=True)
class Verdict:
    """The checks of one task on one episode. ``reward`` is the weighted share of the checks
    that passed, over the checks that were decided (a rubric without a judge is not).
    ``valid`` says whether the reward scores the agent at all: a trajectory in which the world
    model failed to answer a call scores an outage, and a trainer should mask it."""

    task: str
    checks: tuple[CheckResult, ...]
    simulation: SimulationCounts = field(default_factory=SimulationCounts)
    usage: ModelUsage = field(default_factory=ModelUsage)

    @property
    def valid(self) -> bool:
        """No call of the trajectory was a model error or a timeout (injected faults are the
        operator's choice and leave it valid)."""
        return self.simulation.simulated

    @property
    def reward(self) -> float:
        decided = [c for c in self.checks if c.passed is not None]
        total = sum(c.weight for c in decided)
        if total == 0:
            return 0.0
        return round(sum(c.weight for c in decided if c.passed) / total, 6)

    def as_dict(self) -> dict[str, Any]:
        return {
            "task": self.task,
            "reward": self.reward,
            "valid": self.valid,
            "checks": [c.as_dict() for c in self.checks],
            "simulation": self.simulation.as_dict(),
            "usage": self.usage.as_dict(),
        }


def choose_task(world: World, name: str | None) -> tuple[str, Task]:
    """The task ``name`` of ``world``, or its only task when no name is given."""
    tasks = world.verify
    if not tasks:
        raise VerifyError(
            f"world {world.world!r} has no verify section: nothing says what success is "
            "(see docs/scoring.md)"
        )
    if name is None:
        if len(tasks) > 1:
            raise VerifyError(
                f"world {world.world!r} has {len(tasks)} tasks ({', '.join(tasks)}); name one"
            )
        name = next(iter(tasks))
    task = tasks.get(name)
    if task is None:
        raise VerifyError(
            f"world {world.world!r} has no task {shown(name)} (its tasks: {', '.join(tasks)})"
        )
    return name, task


async def score(
    name: str,
    task: Task,
    *,
    start: Any,
    final: Any,
    records: Sequence[JournalRecord],
    judge: RubricJudge | None = None,
    model_seconds: float | None = None,
) -> Verdict:
    """Run every check of ``task`` on an episode that went from ``start`` to ``final`` through
    ``records`` (its calls, in step order). Rubrics need ``judge``; without one they are left
    undecided and out of the reward. ``model_seconds``: the time the episode waited on the
    world model, when the caller measured it (else the records' timing, if they have it)."""
    results: list[CheckResult] = []
    for check in task.checks:
        if check.state is not None:
            results.append(state_check(check, start, final))
        elif check.rubric is not None:
            if judge is None:
                results.append(
                    CheckResult(
                        check.name,
                        None,
                        check.weight,
                        "not judged: no judge model (give --judge-url or --model-url)",
                        judged=True,
                    )
                )
            else:
                results.append(await judge.decide(check, task.description, records, final))
        else:
            results.append(journal_check(check, records))
    return Verdict(
        name,
        tuple(with_prerequisites(task.checks, results)),
        SimulationCounts.of(records),
        ModelUsage.of(records, model_seconds=model_seconds),
    )
