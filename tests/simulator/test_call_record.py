"""What a finished call leaves behind: its history turn and its journal record."""

from __future__ import annotations

from mcp_sim.prompting.answer_shape import AnswerShape
from mcp_sim.runtime.session import SessionStore
from mcp_sim.simulator.context import CallContext
from mcp_sim.simulator.recorder import history_turn, journal_record
from mcp_sim.simulator.transition import Change
from mcp_sim.spec.world import World


def context(world: World) -> CallContext:
    session = SessionStore(world).get("s")
    tool = world.tools[0]
    shape = AnswerShape.of(tool, None)
    return CallContext(session, tool, {"query": "rain"}, "2026-01-01T09:00", 0.0, shape)


def test_a_turn_not_shown_to_the_model_keeps_its_bare_action(bookstore: World) -> None:
    ctx = context(bookstore)
    turn = history_turn(ctx, ctx.result("[]", [], False, "fixture"))
    assert turn.head is None and turn.action is not None and '"rain"' in turn.action
    assert turn.change is None


def test_a_turn_the_model_was_shown_keeps_it_and_its_committed_change(bookstore: World) -> None:
    ctx = context(bookstore)
    patch = [{"op": "add", "path": "/x", "value": 1}]
    ctx.usage.turn_head, ctx.usage.turn_anchor = "### Turn 1 ...", True
    ctx.usage.change = Change("committed", patch, {"x": 1})
    turn = history_turn(ctx, ctx.result("ok", None, False, "model"))
    assert (turn.head, turn.anchor, turn.action, turn.change) == (
        "### Turn 1 ...",
        True,
        None,
        patch,
    )


def test_a_turn_keeps_its_change_as_later_turns_show_it(bookstore: World) -> None:
    ctx = context(bookstore)
    patch = [{"op": "replace", "path": "/dump", "value": "a long text"}]
    shown = [{"op": "replace", "path": "/dump", "value": "<text>", "edit": "@@ -1 +1 @@"}]
    ctx.usage.turn_head = "### Turn 2 ..."
    ctx.usage.change = Change("committed", patch, {"dump": "a long text"}, shown=shown)
    assert history_turn(ctx, ctx.result("ok", None, False, "model")).change == shown
    ctx.usage.change = Change("rejected", patch, None, "no such path", shown=shown)
    assert history_turn(ctx, ctx.result("ok", None, False, "model")).change is None


def test_the_journal_record_carries_the_call_and_what_it_cost(bookstore: World) -> None:
    ctx = context(bookstore)
    ctx.usage.prompt_tokens, ctx.usage.completion_tokens, ctx.usage.cache_hits = 100, 10, 1
    result = ctx.result("answer", None, False, "model", "thought")
    record = journal_record(ctx, result, world_hash="w", latency_ms=None, entities=False)
    assert (record.session, record.step, record.tool) == ("s", 1, "search_books")
    assert (record.arguments, record.observation, record.source) == (
        {"query": "rain"},
        "answer",
        "model",
    )
    assert (record.prompt_tokens, record.completion_tokens, record.cache) == (100, 10, "hit")
    assert (record.world, record.now, record.consistency, record.perturbations) == (
        "w",
        "2026-01-01T09:00",
        {},
        [],
    )
