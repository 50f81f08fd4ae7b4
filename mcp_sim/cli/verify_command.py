"""``mcp-sim verify``: score an episode offline, from the world file and the journal it wrote.

The journal's committed patches are replayed onto the starting state, the task's checks run on
the result and on the calls, and the verdict is printed as JSON (``reward`` and each check), the
same object ``POST /episodes/{id}/verify`` returns, so a task's test script can write the
reward wherever its harness reads it.
"""

from __future__ import annotations

import argparse
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcp_sim.cli.command import Command, HelpExample, Subcommands, add_command
from mcp_sim.cli.console import say
from mcp_sim.cli.example_worlds import add_example_option, world_or_example
from mcp_sim.settings import values

if TYPE_CHECKING:
    from mcp_sim.scoring.journal_replay import ReplayedEpisode
    from mcp_sim.spec.verify import Task


@dataclass(frozen=True)
class VerifyConfig:
    world: Path
    journal: Path
    episode: str | None = None
    task: str | None = None
    judge_url: str | None = None
    judge_model: str | None = None
    judge_api_key: str | None = None

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> VerifyConfig:
        return cls(
            world_or_example(args.world, args.example),
            args.journal,
            args.episode,
            args.task,
            args.judge_url,
            args.judge_model,
            args.judge_api_key,
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

    judge = None
    if config.judge_url is not None and any(c.judged for c in task.checks):
        model = OpenAICompatibleModel(
            EndpointSettings(
                base_urls=[config.judge_url], api_key=config.judge_api_key, model=config.judge_model
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
    p = add_command(
        subcommands,
        "verify",
        Command(VerifyConfig.from_args, verify),
        help="score an episode from its journal with the world's verify checks; print JSON",
        description="Score an episode offline: replay its journal's changes onto the world's "
        "starting state, run the task's verify checks on the result and the calls, and print "
        "the verdict as JSON (reward and each check), as POST /episodes/{id}/verify does.",
        examples=[
            HelpExample(
                "mcp-sim verify --example bookstore --journal calls.jsonl",
                "the journal's one episode, scored by the world's one task",
            ),
            HelpExample(
                "mcp-sim verify world.yaml --journal calls.jsonl --episode EPISODE --task "
                "gift-order --judge-url http://127.0.0.1:8001/v1",
                "one episode of several, its rubric checks decided by an LLM judge",
            ),
        ],
    )
    p.add_argument(
        "world",
        nargs="?",
        type=values.existing_file("world"),
        help="world spec (YAML); or give --example NAME",
    )
    add_example_option(p)
    p.add_argument(
        "--journal",
        type=values.existing_file("journal"),
        required=True,
        metavar="PATH",
        help="journal (JSONL) the episode was served with (--journal)",
    )
    p.add_argument(
        "--episode",
        type=values.text,
        metavar="ID",
        help="the episode (session) to score; needed when the journal holds several",
    )
    p.add_argument(
        "--task", type=values.text, help="the world's task to score; needed when it has several"
    )
    j = p.add_argument_group("rubric judge (rubric checks are left undecided without one)")
    j.add_argument("--judge-url", type=values.http_url, metavar="URL", help="OpenAI-compatible")
    j.add_argument("--judge-model", type=values.text, help="default: from /v1/models")
    j.add_argument(
        "--judge-api-key",
        type=values.text,
        default=os.environ.get("MCP_SIM_JUDGE_API_KEY") or None,
        help="bearer key of the judge endpoint (env MCP_SIM_JUDGE_API_KEY)",
    )
