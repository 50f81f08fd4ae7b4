"""``mcp-sim verify``: score an episode offline, from the world file and the journal it wrote.

The journal's committed patches are replayed onto the starting state, the task's checks run on
the result and on the calls, and the verdict is printed as JSON (``reward`` and each check), the
same object ``POST /episodes/{id}/verify`` returns, so a task's test script can write the
reward wherever its harness reads it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcp_sim.cli.arguments import option, options_of
from mcp_sim.cli.command import Command, CommandConfig, HelpExample, Subcommands, add_command
from mcp_sim.cli.console import say
from mcp_sim.cli.example_worlds import world_file
from mcp_sim.cli.fidelity_config import JudgeEndpoint
from mcp_sim.settings import values

if TYPE_CHECKING:
    from mcp_sim.scoring.journal_replay import ReplayedEpisode
    from mcp_sim.spec.verify import Task


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

    from mcp_sim.errors import SimError
    from mcp_sim.journal import read_journal
    from mcp_sim.scoring.journal_replay import pick_episode, replay
    from mcp_sim.scoring.verdict import choose_task
    from mcp_sim.spec.loading import load_world

    world = load_world(config.world)
    try:
        records = read_journal(config.journal)
        name, task = choose_task(world, config.task)
        episode = replay(world, records, pick_episode(records, config.episode))
        verdict = anyio.run(_score, config, name, task, world.state, episode)
    except OSError as exc:
        say(f"cannot read journal {config.journal}: {exc.strerror}")
        return 1
    except ValueError as exc:
        say(f"{config.journal} is not an mcp-sim journal: {exc}")
        return 1
    except SimError as exc:
        say(str(exc))
        return 1
    print(json.dumps({"episode": episode.session, **verdict}, indent=2, ensure_ascii=False))
    return 0


async def _score(
    config: VerifyConfig, name: str, task: Task, start: dict[str, Any], episode: ReplayedEpisode
) -> dict[str, Any]:
    from mcp_sim.models.openai import EndpointSettings, OpenAICompatibleModel
    from mcp_sim.scoring.rubric import RubricJudge
    from mcp_sim.scoring.verdict import score

    judge, endpoint = None, config.judge
    if endpoint.url is not None and any(c.judged for c in task.checks):
        model = OpenAICompatibleModel(
            EndpointSettings(
                base_urls=[endpoint.url], api_key=endpoint.api_key, model=endpoint.model
            )
        )
        judge = RubricJudge(model)
    try:
        verdict = await score(
            name, task, start=start, final=episode.final, records=episode.records, judge=judge
        )
    finally:
        if judge is not None:
            await judge.model.aclose()
    return verdict.as_dict()


def register(subcommands: Subcommands) -> None:
    add_command(subcommands, "verify", Command(VerifyConfig, verify))
