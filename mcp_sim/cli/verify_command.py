"""``mcp-sim verify``: score an episode offline, from the world file and the journal it wrote.

The verdict (:mod:`mcp_sim.scoring.journal_scoring`) is printed as JSON, so that a task's test
script can write the reward wherever its harness reads it.
"""

from __future__ import annotations

import json
from pathlib import Path

from mcp_sim.cli.arguments import option, options_of
from mcp_sim.cli.command import Command, CommandConfig, HelpExample, Subcommands, add_command
from mcp_sim.cli.example_worlds import world_file
from mcp_sim.cli.fidelity_config import JudgeEndpoint
from mcp_sim.settings import values


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
            "mcp-sim verify world.yaml --journal calls.jsonl --episode EPISODE --task "
            "gift-order --judge-url http://127.0.0.1:8001/v1",
            "one episode of several, its rubric checks decided by an LLM judge",
        ),
    )

    world: Path = world_file(parse=values.existing_file("world"))
    journal: Path = option(
        parse=values.existing_file("journal"),
        metavar="PATH",
        help="journal (JSONL) the episode was served with (--journal)",
        required=True,
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


def verify(config: VerifyConfig) -> int:
    import anyio

    from mcp_sim.journal import load_journal
    from mcp_sim.scoring.journal_scoring import score_journal
    from mcp_sim.spec.loading import load_world

    world, judge = load_world(config.world), config.judge.endpoint()
    records = load_journal(config.journal)
    verdict = anyio.run(
        lambda: score_journal(world, records, episode=config.episode, task=config.task, judge=judge)
    )
    print(json.dumps(verdict, indent=2, ensure_ascii=False))
    return 0


def register(subcommands: Subcommands) -> None:
    add_command(subcommands, "verify", Command(VerifyConfig, verify))
