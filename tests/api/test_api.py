"""The in-process Python API: worlds opened without a server, episodes called, branched and
scored, and the world's episode rules (done) with their checks in the spec."""

from __future__ import annotations

import pytest

from mcp_sim.api import Episode, Worlds
from mcp_sim.errors import SimError, SpecError, UnknownSession
from mcp_sim.simulator.core import UnknownTool
from mcp_sim.spec.loading import parse_world
from tests.conftest import BOOKSTORE, WORLDS
from tests.runtime.test_state import ORDER_2, scenario
from tests.scripted_model import ScriptedModel

SHOP = WORLDS / "shop.yaml"


async def test_a_ten_call_scenario_forked_after_its_first_call_scores_both_branches() -> None:
    calls, model = scenario(ScriptedModel)
    # The fork's own call is answered after the scenario's ten.
    model.answers.append(ScriptedModel.answer(ORDER_2))
    async with await Worlds.open(SHOP, model=model, seed=3) as worlds:
        episode = await worlds.episode(task="tent-for-ola")
        first = await episode.call(*calls[0])
        fork = await episode.fork()
        results = [first] + [await episode.call(tool, args) for tool, args in calls[1:]]
        looked_up = await fork.call("get_order", {"order_id": "ord_00002"})

        assert [r.step for r in results] == list(range(1, 11))
        assert [r.version for r in results] == [0, 1, 1, 1, 2, 2, 3, 3, 4, 4]
        assert [r.patch_status for r in results][:6] == [
            "committed",
            "none",
            "none",
            "committed",
            "rejected",
            "committed",
        ]
        assert {r.source for r in results} == {"model"} and not any(r.done for r in results)
        assert results[1].text == ScriptedModel.answer(ORDER_2).split("\n")[2]
        assert results[1].content == ({"type": "text", "text": results[1].text},)
        assert results[9].as_dict()["meta"]["mcp-sim/step"] == 10

        # The scenario created, changed and deleted Ola's order; the fork stopped after
        # creating it and only looked it up.
        assert await episode.state() == worlds.world().state
        assert (await fork.state())["orders"][1] == ORDER_2
        assert (looked_up.step, fork.steps, episode.steps) == (2, 2, 10)
        assert [r.tool for r in fork.journal()] == ["create_order", "get_order"]
        assert len(episode.journal()) == 10 and fork.parent == episode.id

        kept, deleted = await fork.verify(), await episode.verify()
        assert (kept.task, kept.reward) == ("tent-for-ola", 1.0)
        # The shipped order is untouched, which counts only with the tents ordered.
        assert deleted.reward == pytest.approx(1 / 6, abs=1e-6)
        assert [c.passed for c in deleted.checks] == [False, False, False, True]
        assert not model.answers


async def test_episodes_reset_snapshot_continue_and_close() -> None:
    a = ScriptedModel.answer
    add = [{"op": "add", "path": "/orders/-", "value": ORDER_2}]
    model = ScriptedModel(a(ORDER_2, add))
    async with await Worlds.open(SHOP, model=model) as worlds:
        episode = await worlds.episode(seed=5, episode_id="run-1")
        assert worlds.get("run-1").id == episode.id and worlds.names == ["tidewater-orders"]
        created = await episode.call(
            "create_order", {"customer": "ola@example.no", "sku": "p-tent2", "quantity": 2}
        )
        assert created.patch_status == "committed" and await episode.version() == 1
        taken = await episode.snapshot()
        again = await worlds.episode(snapshot=taken)
        assert (await again.state())["orders"][1] == ORDER_2 and again.steps == 1

        await episode.reset()
        assert await episode.state() == worlds.world().state and episode.steps == 0
        assert episode.seed == 5 and episode.journal() == []

        bad = await episode.call("create_order", {"customer": "ola@example.no"})
        assert bad.is_error and bad.source == "validation"
        with pytest.raises(UnknownTool):
            await episode.call("refund_order", {})

        await episode.close()
        with pytest.raises(UnknownSession):
            worlds.get("run-1")
        assert [e.id for e in worlds.episodes()] == [again.id]


async def test_a_world_s_episode_rules_say_when_it_is_done(write_world: object) -> None:
    place = {"book_id": "b1", "quantity": 2, "email": "ana@example.pt", "country": "Portugal"}
    order = {"order_id": "o-1", "book_id": "b1", "quantity": 2, "status": "placed"}
    model = ScriptedModel(ScriptedModel.answer(order))
    async with await Worlds.open(BOOKSTORE, model=model) as worlds:
        episode = await worlds.episode(task="gift-order")
        found = await episode.call("search_books", {"query": "glass"})
        assert found.source == "fixture" and not found.done and not episode.done
        placed = await episode.call("place_order", place)
        assert placed.done and episode.done
        fork = await episode.fork()
        assert isinstance(fork, Episode) and fork.done


def test_episode_rules_name_tools_the_world_has() -> None:
    text = BOOKSTORE.read_text(encoding="utf-8").replace(
        "    - {tool: place_order, is_error: false}", "    - {tool: checkout}"
    )
    line = text.splitlines().index("    - {tool: checkout}") + 1
    with pytest.raises(SpecError) as info:
        parse_world(text, "books.yaml")
    (problem,) = info.value.problems
    assert problem.line == line
    assert "episode.done_when[0].tool: no tool named 'checkout'" in str(problem)


async def test_worlds_need_different_ids_and_a_world_to_default_to() -> None:
    with pytest.raises(SimError, match="are both world"):
        await Worlds.open(SHOP, SHOP)
    async with await Worlds.open(SHOP, BOOKSTORE) as worlds:
        with pytest.raises(Exception, match="name a world"):
            await worlds.episode()
        with pytest.raises(ValueError, match="name a world"):
            worlds.world()
        books = await worlds.episode("paperlane-books")
        assert books.world.world == "paperlane-books"
