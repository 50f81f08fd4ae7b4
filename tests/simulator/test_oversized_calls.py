"""Calls too large to show the model: refused as invalid input, before any model call, and the
largest call allowed is part of the prompt's bound."""

from __future__ import annotations

from mcp_sim.perturb.planner import NO_PLAN, Plan
from mcp_sim.prompting.native import estimate_tokens, render_system
from mcp_sim.settings import Settings
from mcp_sim.simulator.answer_sources import AnswerSource, SourceChooser
from mcp_sim.simulator.core import Simulator
from mcp_sim.simulator.prompt_budget import CLOSING_TOKENS, fit_budget
from mcp_sim.spec.world import World
from tests.scripted_model import ScriptedModel

BOOKS = {"results": [], "total": 0}


async def test_a_call_too_large_to_show_is_refused_without_a_model_call(bookstore: World) -> None:
    model = ScriptedModel()
    simulator = Simulator(bookstore, model, settings=Settings.of(action_budget=100))

    result = await simulator.call("s", "search_books", {"query": "paper " * 200})

    assert result.is_error and result.source == "validation"
    assert result.text.startswith("Input validation error for search_books:\n")
    assert "the arguments are too large: 1,2" in result.text
    assert "at most 300" in result.text
    assert model.requests == []
    # The session goes on: a call of ordinary size is answered by the model.
    model.answers.append(model.answer(BOOKS))
    answered = await simulator.call("s", "search_books", {"query": "paper boats"})
    assert not answered.is_error and len(model.requests) == 1


def test_an_oversized_call_is_not_planned_and_a_small_one_is_not_refused(
    bookstore: World,
) -> None:
    chooser = SourceChooser(bookstore, replay=None, pages=None, action_tokens=100)
    tool = bookstore.tools[0]

    def unplanned() -> Plan:
        raise AssertionError("a refused call must not count as planned")

    big = chooser.choose(tool, {"query": "x" * 400}, unplanned, session=None)
    assert big.source is AnswerSource.INVALID and big.invalid is not None
    small = chooser.choose(tool, {"query": "sea"}, lambda: NO_PLAN, session=None)
    assert small.source is not AnswerSource.INVALID and small.invalid is None
    unbounded = SourceChooser(bookstore, replay=None, pages=None)
    assert (
        unbounded.choose(tool, {"query": "x" * 400}, lambda: NO_PLAN, session=None).invalid is None
    )


async def test_the_largest_call_allowed_keeps_the_prompt_within_its_bound(
    bookstore: World,
) -> None:
    # Budgets far smaller than the action: the bound holds only because it counts the action.
    settings = Settings.of(
        action_budget=2_000, state_budget=200, turn_budget=100, history_budget=300
    )
    model = ScriptedModel(ScriptedModel.answer(BOOKS), ScriptedModel.answer(BOOKS))
    simulator = Simulator(bookstore, model, settings=settings)
    query = "tide " * 1_150

    await simulator.call("s", "search_books", {"query": "harbour"})
    result = await simulator.call("s", "search_books", {"query": query})

    assert not result.is_error
    prompt = model.requests[-1].messages
    sent = sum(estimate_tokens(m["content"]) for m in prompt)
    system = estimate_tokens(render_system(bookstore))
    assert estimate_tokens(query) > settings.prompt.state_budget + 300
    assert sent <= system + simulator.budget.bound


def test_a_known_window_keeps_room_for_the_largest_call_shrunk_with_the_rest() -> None:
    budget = fit_budget(
        8_000,
        2_000,
        16_000,
        system_tokens=500,
        context_tokens=12_000,
        max_tokens=1_000,
        action_tokens=3_000,
    )
    parts = budget.state_tokens + budget.turn_tokens + budget.history_tokens
    assert 500 + parts + budget.action_tokens + CLOSING_TOKENS <= 12_000 - 1_000
    # In proportion: a fixed 3,000 would leave a small window no room for the state.
    assert 0 < budget.action_tokens < 3_000
    assert abs(budget.action_tokens / budget.turn_tokens - 3_000 / 2_000) < 0.01
    roomy = fit_budget(
        8_000,
        2_000,
        16_000,
        system_tokens=500,
        context_tokens=64_000,
        max_tokens=1_000,
        action_tokens=3_000,
    )
    assert roomy.action_tokens == 3_000
    assert roomy.bound == 8_000 + 2_000 + 16_000 + 3_000 + CLOSING_TOKENS
