"""Scoring episodes: a task's verdict on a live episode and on its journal, rubrics, and
``mcp-sim verify``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mcp_sim.errors import VerifyError
from mcp_sim.journal import Journal, JournalRecord, read_journal
from mcp_sim.scoring.journal_replay import pick_episode, replay
from mcp_sim.scoring.rubric import RubricJudge
from mcp_sim.scoring.verdict import choose_task, score
from mcp_sim.simulator.core import Simulator
from mcp_sim.spec.world import World
from tests.processes import run_cli
from tests.runtime.test_state import ORDER_2, scenario
from tests.scripted_model import ScriptedModel

SHOP = Path(__file__).resolve().parents[2] / "worlds" / "shop.yaml"


async def tent_episode(shop: World, journal: Path, session: str = "e1") -> Simulator:
    """Ola's two tents ordered and looked up: everything the task asks."""
    a = ScriptedModel.answer
    model = ScriptedModel(
        a(
            ORDER_2,
            [
                {"op": "add", "path": "/orders/-", "value": ORDER_2},
                {"op": "replace", "path": "/products/0/stock", "value": 3},
            ],
        ),
        a(ORDER_2),
    )
    simulator = Simulator(shop, model, journal=Journal(journal))
    await simulator.call(
        session, "create_order", {"customer": "ola@example.no", "sku": "p-tent2", "quantity": 2}
    )
    await simulator.call(session, "get_order", {"order_id": "ord_00002"})
    simulator.journal.close()
    return simulator


async def test_a_finished_task_scores_one_live_and_from_its_journal(
    shop: World, tmp_path: Path
) -> None:
    journal = tmp_path / "j.jsonl"
    simulator = await tent_episode(shop, journal)
    name, task = choose_task(shop, "tent-for-ola")
    live = await score(
        name,
        task,
        start=shop.state,
        final=simulator.sessions.get("e1").state,
        records=simulator.journal.records("e1"),
    )
    assert live.reward == 1.0, live.as_dict()

    records = read_journal(journal)
    episode = replay(shop, records, pick_episode(records, None))
    assert episode.final == simulator.sessions.get("e1").state
    offline = await score(
        name, task, start=shop.state, final=episode.final, records=episode.records
    )
    assert offline.as_dict() == live.as_dict()


async def test_an_untouched_episode_earns_nothing_for_what_still_holds(shop: World) -> None:
    name, task = choose_task(shop, "tent-for-ola")
    verdict = await score(name, task, start=shop.state, final=shop.state, records=[])
    passed = {c.name: (c.passed, c.detail) for c in verdict.checks}
    # The order is untouched, but that counts only once the task is done (`requires`).
    assert passed["the shipped order is untouched"] == (
        False,
        "not counted: requires a placed order for two tents, which failed",
    )
    assert not any(p for p, _ in passed.values()) and verdict.reward == 0.0


async def test_the_replayed_state_matches_a_long_episode_with_rejections(
    shop: World, script: Any, tmp_path: Path
) -> None:
    calls, model = scenario(script)
    simulator = Simulator(shop, model, journal=Journal(tmp_path / "j.jsonl"))
    for tool, arguments in calls:
        await simulator.call("s1", tool, arguments)
        await simulator.call("s2", "list_orders", {}) if tool == "get_order" else None
    simulator.journal.close()
    records = read_journal(tmp_path / "j.jsonl")
    assert replay(shop, records, "s1").final == simulator.sessions.get("s1").state
    with pytest.raises(VerifyError, match="2 episodes \\(s1, s2\\); name one with --episode"):
        pick_episode(records, None)


def _record(step: int, patch: list[dict[str, Any]] | None = None, world: str = "") -> JournalRecord:
    return JournalRecord(
        session="e1",
        step=step,
        tool="update_order",
        arguments={},
        observation="ok",
        is_error=False,
        source="model",
        world=world,
        patch_status="committed" if patch else "none",
        patch=patch,
    )


def test_a_reset_starts_the_replay_again(shop: World) -> None:
    cancel = [{"op": "replace", "path": "/orders/0/status", "value": "cancelled"}]
    pack = [{"op": "replace", "path": "/products/2/stock", "value": 4}]
    records = [_record(1, cancel), _record(2), _record(1, pack)]
    episode = replay(shop, records, "e1")
    assert [r.step for r in episode.records] == [1]
    assert episode.final["orders"][0]["status"] == "shipped"
    assert episode.final["products"][2]["stock"] == 4
    assert shop.state["products"][2]["stock"] == 0  # the world's own state is never touched


def test_journals_that_cannot_be_replayed_say_why(shop: World) -> None:
    with pytest.raises(VerifyError, match=r"starts at step 3 .* snapshot or a fork"):
        replay(shop, [_record(3)], "e1")
    with pytest.raises(VerifyError, match="another version of the world"):
        replay(shop, [_record(1, world="0123456789abcdef")], "e1")
    bad = [{"op": "replace", "path": "/orders/7/status", "value": "x"}]
    with pytest.raises(VerifyError, match=r"committed at step 1 .* does not apply"):
        replay(shop, [_record(1, bad)], "e1")


def test_tasks_are_chosen_by_name_or_alone(shop: World, bookstore: World) -> None:
    with pytest.raises(VerifyError, match="has 2 tasks \\(tent-for-ola, cancel-and-check\\)"):
        choose_task(shop, None)
    with pytest.raises(VerifyError, match="no task 'nope'"):
        choose_task(shop, "nope")
    one = bookstore.model_copy(update={"verify": {"only": shop.verify["tent-for-ola"]}})
    assert choose_task(one, None)[0] == "only"
    none = bookstore.model_copy(update={"verify": {}})
    with pytest.raises(VerifyError, match="has no verify section"):
        choose_task(none, None)


@pytest.mark.parametrize(
    ("answer", "passed", "detail"),
    [
        ('{"passed": true, "reason": "It said so."}', True, "judged: It said so."),
        ('```json\n{"passed": false, "reason": "No."}\n```', False, "judged: No."),
        ("I think it passed", None, "not judged: the judge's answer was not a verdict"),
    ],
)
async def test_rubrics_are_judged_by_a_model_and_marked(
    bookstore: World, answer: str, passed: bool | None, detail: str
) -> None:
    name, task = choose_task(bookstore, "no-antarctica")
    judge_model = ScriptedModel(answer)
    verdict = await score(
        name,
        task,
        start=bookstore.state,
        final=bookstore.state,
        records=[],
        judge=RubricJudge(judge_model),
    )
    rubric, no_order = verdict.checks
    assert (rubric.passed, rubric.detail, rubric.judged) == (passed, detail, True)
    # "no order placed" requires the refusal explained: it shares the rubric's fate.
    assert no_order.passed is passed
    assert verdict.reward == (1.0 if passed else 0.0)
    request = judge_model.requests[0]
    assert request.response_schema is not None and "Antarctica" in request.messages[1]["content"]


async def test_without_a_judge_rubrics_stay_undecided_and_out_of_the_reward(
    bookstore: World,
) -> None:
    name, task = choose_task(bookstore, "no-antarctica")
    verdict = await score(name, task, start=bookstore.state, final=bookstore.state, records=[])
    rubric, no_order = verdict.checks
    assert rubric.passed is None and "no judge model" in rubric.detail
    assert no_order.passed is None and "was not decided" in no_order.detail
    assert verdict.reward == 0.0


async def test_verify_command_scores_a_journal(shop: World, tmp_path: Path) -> None:
    journal = tmp_path / "j.jsonl"
    await tent_episode(shop, journal)
    done = run_cli("verify", str(SHOP), "--journal", str(journal), "--task", "tent-for-ola")
    assert done.returncode == 0, done.stderr
    verdict = json.loads(done.stdout)
    assert (verdict["episode"], verdict["task"], verdict["reward"]) == ("e1", "tent-for-ola", 1.0)
    assert [c["passed"] for c in verdict["checks"]] == [True, True, True, True]

    other = run_cli("verify", str(SHOP), "--journal", str(journal))
    assert other.returncode == 1 and other.stdout == ""
    assert other.stderr.strip().endswith("(tent-for-ola, cancel-and-check); name one")
    assert len(other.stderr.strip().splitlines()) == 1
    missing = run_cli("verify", str(SHOP), "--journal", str(journal), "--task", "tent-for-ola",
                      "--episode", "e9")  # fmt: skip
    assert missing.returncode == 1 and "no calls of episode 'e9' (it has: e1)" in missing.stderr
    garbage = tmp_path / "g.jsonl"
    garbage.write_text("not json\nnor this\n", encoding="utf-8")
    broken = run_cli("verify", str(SHOP), "--journal", str(garbage), "--task", "tent-for-ola")
    assert broken.returncode == 1 and "is not an mcp-sim journal" in broken.stderr
    empty = tmp_path / "e.jsonl"
    empty.write_text("", encoding="utf-8")
    nothing = run_cli("verify", str(SHOP), "--journal", str(empty), "--task", "tent-for-ola")
    assert nothing.returncode == 1 and "the journal holds no calls" in nothing.stderr
