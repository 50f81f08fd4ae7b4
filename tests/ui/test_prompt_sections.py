"""A prompt as the workbench shows it: system, history, the call's turn cut into sections
(the state's marked), and what followed the turn."""

from __future__ import annotations

from mcp_sim.models.base import ChatMessage
from mcp_sim.prompting.answer_shape import AnswerShape
from mcp_sim.prompting.native import build_messages, render_state
from mcp_sim.simulator.context import ModelExchange
from mcp_sim.spec.world import World
from mcp_sim.ui.prompt_sections import exchange_view, sections


def test_sections_are_cut_at_headings_and_state_ones_marked() -> None:
    text = (
        "Turn 3\n\n"
        + render_state({"books": []})
        + "\n\n**Current Time:** 2026-01-01\n\n"
        + "**Records this call needs** (as they are now):\n/books/0: {}"
    )
    found = sections(text)
    assert [s["heading"] for s in found] == [
        "",
        "Current World State:",
        "Current Time:",
        "Records this call needs",
    ]
    assert [s["state"] for s in found] == [False, True, False, True]
    assert found[1]["text"].startswith("**Current World State:**")


def test_an_exchange_splits_into_system_history_turn_and_follow_up(bookstore: World) -> None:
    tool = bookstore.tools[1]
    messages: list[ChatMessage] = build_messages(
        bookstore,
        [],
        tool,
        {"book_id": "b3"},
        {"books": [{"id": "b3"}]},
        shape=AnswerShape.of(tool, None),
    )
    follow_up: list[ChatMessage] = [
        {"role": "assistant", "content": "not json"},
        {"role": "user", "content": "Answer again, as JSON."},
    ]
    view = exchange_view(ModelExchange(messages + follow_up, "{}", "thinking", cached=True))
    assert view["system"] == messages[0]["content"]
    assert view["history"] == []
    assert any(s["state"] and '"b3"' in s["text"] for s in view["turn"])
    assert [m["content"] for m in view["after"]] == ["not json", "Answer again, as JSON."]
    assert view["reasoning"] == "thinking" and view["cached"] is True
    assert view["purpose"] == "answer"


def test_a_turn_without_a_state_section_is_the_last_user_message() -> None:
    messages: list[ChatMessage] = [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "call 1"},
        {"role": "assistant", "content": "**Environment Observation:**\nok"},
        {"role": "user", "content": "call 2"},
    ]
    view = exchange_view(ModelExchange(messages, "ok"))
    assert [m["content"] for m in view["history"]] == ["call 1", "**Environment Observation:**\nok"]
    assert view["turn"][0]["text"] == "call 2" and view["after"] == []
