"""Tasks that reward doing nothing: ``requires`` on a check, ``mcp-sim verify --check-tasks``,
and the shipped worlds, which all pass it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcp_sim.errors import SpecError
from mcp_sim.scoring.task_checks import empty_episodes
from mcp_sim.spec.loading import load_world, parse_world
from mcp_sim.spec.world_files import example_names, example_path
from tests.cli.test_cli import cli

VACUOUS = """
world: desk
title: Desk
tools:
  - {name: file_form, description: File the form., input_schema: {type: object}}
  - {name: shred, description: Shred everything., input_schema: {type: object}}
verify:
  file-it:
    checks:
      - {name: filed, called: {tool: file_form}}
      - {name: shredded nothing, not_called: {tool: shred}REQUIRES}
"""


def desk(requires: str = "") -> str:
    return VACUOUS.replace("REQUIRES", requires)


async def test_a_negative_check_rewards_doing_nothing_until_it_requires_the_task() -> None:
    (vacuous,) = await empty_episodes(parse_world(desk()))
    assert vacuous.rewards_nothing and vacuous.verdict.reward == 0.5
    assert vacuous.as_dict()["passed_with_no_calls"] == ["shredded nothing"]
    (gated,) = await empty_episodes(parse_world(desk(", requires: [filed]")))
    assert not gated.rewards_nothing and gated.verdict.reward == 0.0
    assert gated.verdict.checks[1].detail == "not counted: requires filed, which failed"


def test_requires_names_an_earlier_check_of_the_task() -> None:
    with pytest.raises(SpecError, match="requires 'later', which is not a check before it"):
        parse_world(desk(", requires: [later]"))


@pytest.mark.parametrize("name", example_names())
async def test_no_shipped_world_rewards_an_episode_that_does_nothing(name: str) -> None:
    world = load_world(example_path(name))
    flagged = [e.as_dict() for e in await empty_episodes(world) if e.rewards_nothing]
    assert flagged == []


def test_verify_check_tasks_flags_them_and_exits_1(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    world = tmp_path / "desk.yaml"
    world.write_text(desk(), encoding="utf-8")
    flagged = cli(capsys, "verify", str(world), "--check-tasks")
    assert flagged.code == 1 and "reward an episode with no calls: file-it" in flagged.err
    assert json.loads(flagged.out)["tasks"][0]["empty_reward"] == 0.5
    shipped = cli(capsys, "verify", "--example", "bookstore", "--check-tasks")
    assert shipped.code == 0, shipped.err
    assert [t["flagged"] for t in json.loads(shipped.out)["tasks"]] == [False, False]
    both = cli(capsys, "verify", "--example", "shop", "--check-tasks", "--task", "x")
    assert both.code == 2 and "--check-tasks" in both.err
