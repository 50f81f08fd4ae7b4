"""``mcp-sim verify``: score an episode offline, from the world file and the journal it wrote.

The verdict (:mod:`mcp_sim.scoring.journal_scoring`) is printed as JSON, so that a task's test
script can write the reward wherever its harness reads it. With ``--check-tasks`` it scores
every task on an episode that did nothing instead (:mod:`mcp_sim.scoring.task_checks`) and
exits 1 when one rewards it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from mcp_sim.cli.arguments import option, options_of
from mcp_sim.cli.command import Command, CommandConfig, HelpExample, Subcommands, add_command
from mcp_sim.cli.console import UsageError
from mcp_sim.cli.example_worlds import world_file
from mcp_sim.cli.fidelity_config import JudgeEndpoint
from mcp_sim.settings import values

if TYPE_CHECKING:
    from mcp_sim.models.openai import EndpointSettings
    from mcp_sim.spec.world import World


class VerifyConfig(CommandConfig):
    """Score an episode offline: replay its journal's changes onto the world's starting state,
    run the task's verify checks on the result and the calls, and print the verdict as JSON
    (reward and each check), as POST /episodes/{id}/verify does."""

    summary = "score an episode from its journal with the world's verify checks; print JSON"
    examples = (
        HelpExample(
            "mcp-sim verify --example bookstore --journal calls.jsonl",
            "the journal's one episode, scored by the world's one task",
        ),
        HelpExample(
            "mcp-sim verify --example bookstore --check-tasks",
            "every task scored on an episode with no calls: exit 1 if one scores above 0",
        ),
    )

    world: Path = world_file(parse=values.existing_file("world"))
    journal: Path | None = option(
        parse=values.existing_file("journal"),
        metavar="PATH",
        help="journal (JSONL) the episode was served with (--journal)",
    )
    check_tasks: bool = option(
        help="instead of scoring a journal, score every task on an episode with no calls and "
        "flag (exit 1) those that reward it",
        default=False,
    )
    episode: str | None = option(
        parse=values.text,
        metavar="ID",
        help="the episode (session) to score; needed when the journal holds several",
    )
    task: str | None = option(
        parse=values.text, help="the world's task to score; needed when it has several"
    )
    judge: JudgeEndpoint = options_of(
        JudgeEndpoint,
        "rubric judge (rubric checks are left undecided without one)",
        prefix="judge_",
    )

    def check(self) -> None:
        if self.check_tasks and (self.journal or self.episode or self.task):
            raise UsageError("--check-tasks", "checks every task with no journal: give neither")
        if not self.check_tasks and self.journal is None:
            raise UsageError("--journal", "give the episode's journal (or --check-tasks)")


def verify(config: VerifyConfig) -> int:
    import anyio

    from mcp_sim.journal import load_journal
    from mcp_sim.scoring.journal_scoring import score_journal
    from mcp_sim.spec.loading import load_world

    world, judge = load_world(config.world), config.judge.endpoint()
    if config.check_tasks:
        return anyio.run(check_tasks, world, judge)
    assert config.journal is not None  # check() saw to it
    records = load_journal(config.journal)
    verdict = anyio.run(
        lambda: score_journal(world, records, episode=config.episode, task=config.task, judge=judge)
    )
    print(json.dumps(verdict, indent=2, ensure_ascii=False))
    return 0


async def check_tasks(world: World, judge: EndpointSettings | None) -> int:
    """Print every task's verdict on an episode that did nothing; 1 when one rewards it."""
    from mcp_sim.models.openai import OpenAICompatibleModel
    from mcp_sim.scoring.rubric import RubricJudge
    from mcp_sim.scoring.task_checks import empty_episodes

    rubric = RubricJudge(OpenAICompatibleModel(judge)) if judge is not None else None
    try:
        found = await empty_episodes(world, rubric)
    finally:
        if rubric is not None:
            await rubric.model.aclose()
    print(json.dumps({"world": world.world, "tasks": [f.as_dict() for f in found]}, indent=2))
    flagged = [f.verdict.task for f in found if f.rewards_nothing]
    if flagged:
        print(
            f"mcp-sim verify: {len(flagged)} task(s) of {world.world} reward an episode with "
            f"no calls: {', '.join(flagged)} (give their negative checks `requires`)",
            file=sys.stderr,
        )
    return 1 if flagged else 0


def register(subcommands: Subcommands) -> None:
    add_command(subcommands, "verify", Command(VerifyConfig, verify))
