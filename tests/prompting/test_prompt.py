"""The native prompt format: a static system prompt, history as turns, the current call last."""

from __future__ import annotations

import json
import re

import pytest

from mcp_sim.models.base import ChatMessage
from mcp_sim.prompting.answer_format import extract_observation
from mcp_sim.prompting.answer_shape import AnswerShape
from mcp_sim.prompting.native import (
    OBSERVATION_MARKER,
    PastCall,
    TurnContext,
    build_messages,
    estimate_tokens,
    render_system,
)
from mcp_sim.spec.loading import load_world, parse_world
from mcp_sim.spec.world import World
from tests.conftest import BOOKSTORE

HISTORY = [
    PastCall("get_book", {"book_id": "b1"}, '{"id": "b1", "title": "The Glass River"}'),
    PastCall("cancel_order", {"order_id": "ord_1"}, "not_found: no such order"),
]


def action_of(content: str) -> dict[str, object]:
    """The JSON action inside a rendered turn."""
    match = re.search(r"\*\*Action:\*\*\n```json\n(.*?)\n```", content, re.DOTALL)
    assert match is not None, content
    action: dict[str, object] = json.loads(match.group(1))
    return action


def messages_for(
    world: World, *, structured: bool = False, history: list[PastCall] = HISTORY
) -> list[ChatMessage]:
    tool = world.tool("get_book")
    assert tool is not None
    shape = AnswerShape(structured, envelope=False, writes=False, response_schema=None)
    return build_messages(
        world, history, tool, {"book_id": "b3"}, {"orders": ["ord_9"]}, shape=shape
    )


def test_system_prompt_is_identical_across_calls_and_sessions(bookstore: World) -> None:
    first = messages_for(bookstore, history=[])
    later = messages_for(bookstore, structured=True)
    tool = bookstore.tools[0]
    other_session = build_messages(
        load_world(BOOKSTORE),
        HISTORY[:1],
        tool,
        {"query": "x"},
        {"books": []},
        shape=AnswerShape.of(tool, None),
    )
    assert first[0]["role"] == "system"
    assert first[0]["content"] == later[0]["content"] == other_session[0]["content"]
    assert first[0]["content"] == render_system(bookstore)


def test_system_prompt_never_contains_the_session_state(bookstore: World) -> None:
    system = messages_for(bookstore)[0]["content"]
    assert "ord_9" not in system


def test_system_prompt_carries_the_world_description_and_canon(bookstore: World) -> None:
    system = render_system(bookstore)
    assert bookstore.title in system
    assert bookstore.description.strip() in system
    for fact in bookstore.canon:
        assert fact in system


def test_tools_are_rendered_in_the_native_layout(bookstore: World) -> None:
    system = render_system(bookstore)
    headings = re.findall(r"^### (\d+)\. (\S+)$", system, re.MULTILINE)
    assert headings == [(str(i), t.name) for i, t in enumerate(bookstore.tools, 1)]
    first_tool = system[system.index("### 1. search_books") :]
    assert first_tool.startswith(
        "### 1. search_books\n#### **Description**:\n"
        f"{bookstore.tools[0].description}\n\n#### **Parameters**:\n"
    )
    assert "- **query** `string` (REQUIRED): Keywords to search for\n" in system
    assert "- **max_results** `integer` (Optional): Maximum number of results" in system
    assert "- **book_id** `string` (REQUIRED): The book id, e.g. b1\n" in system


def test_parameter_types_cover_unions_and_enums() -> None:
    world = parse_world(
        """\
world: w
title: W
tools:
  - name: t
    description: D
    input_schema:
      type: object
      properties:
        size: {enum: [small, large], description: How big}
        limit: {type: [integer, "null"]}
        either: {anyOf: [{type: string}, {type: number}]}
"""
    )
    system = render_system(world)
    assert '- **size** `enum` (Optional): How big (one of: "small", "large")' in system
    assert "- **limit** `integer|null` (Optional)" in system
    assert "- **either** `string|number` (Optional)" in system


def test_history_is_rendered_as_turns(bookstore: World) -> None:
    messages = messages_for(bookstore)
    turns = messages[1:-1]
    assert [m["role"] for m in turns] == ["user", "assistant"] * len(HISTORY)
    for number, (past, user, assistant) in enumerate(
        zip(HISTORY, turns[::2], turns[1::2], strict=True), 1
    ):
        assert user["content"].startswith(f"### Turn {number}\n**Action:**\n```json\n")
        assert action_of(user["content"]) == {"name": past.tool, "arguments": past.arguments}
        assert assistant["content"] == f"{OBSERVATION_MARKER}\n{past.observation}"


def test_current_turn_carries_state_action_and_tag_instruction(bookstore: World) -> None:
    current = messages_for(bookstore)[-1]
    assert current["role"] == "user"
    content = current["content"]
    # The native skeleton: the turn's sections, then the action, then what belongs to this
    # call alone (the instruction), which the history will not keep.
    assert content.startswith(f"### Turn {len(HISTORY) + 1}\n**Current World State:**")
    assert action_of(content) == {"name": "get_book", "arguments": {"book_id": "b3"}}
    state_match = re.search(
        r"\*\*Current World State:\*\*\n```json\n(.*?)\n```", content, re.DOTALL
    )
    assert state_match is not None
    assert json.loads(state_match.group(1)) == {"orders": ["ord_9"]}
    assert content.index("**Action:**") > state_match.end()
    closing = content.rsplit("```", 1)[1]
    assert "<predicted_observation></predicted_observation>" in closing


def test_history_turn_shown_with_its_head_repeats_it_exactly(bookstore: World) -> None:
    head = "### Turn 1\n**Current Time:** 2026-01-01T00:00:00Z\n\n**Action:**\n```json\n{}\n```"
    history = [PastCall("get_book", {"book_id": "b1"}, "{}", head=head), HISTORY[1]]
    messages = messages_for(bookstore, history=history)
    assert messages[1]["content"] == head
    assert messages[3]["content"].startswith("### Turn 2\n**Action:**")


def test_a_given_head_is_the_current_turn_up_to_its_closing_part(bookstore: World) -> None:
    tool = bookstore.tool("get_book")
    assert tool is not None
    head = "### Turn 3\n**Action:**\n```json\n{}\n```"
    messages = build_messages(
        bookstore,
        HISTORY,
        tool,
        {"book_id": "b3"},
        {"orders": []},
        shape=AnswerShape.of(tool, None),
        context=TurnContext(head=head, sections=["**Known Pages:** none"]),
        simulation_instruction="Answer slowly.",
    )
    content = messages[-1]["content"]
    assert content.startswith(head + "\n\n# Simulation Instruction for This Call")
    assert content.index("Answer slowly.") < content.index("**Known Pages:** none")
    assert "Current World State" not in content


def test_structured_turn_asks_for_json_instead_of_tags(bookstore: World) -> None:
    content = messages_for(bookstore, structured=True)[-1]["content"]
    assert "<predicted_observation>" not in content
    instruction = content.rsplit("```", 1)[1]
    assert "JSON" in instruction


@pytest.mark.parametrize("shape", ["tags", "structured", "envelope", "patch"])
def test_the_closing_part_every_call_recomputes_stays_short(shape: str) -> None:
    # What follows a call's action is never kept in its history, so a prefix cache
    # recomputes it on every call: it says what to answer and in which form, no more (the
    # conventions are in the cached system part).
    answer = AnswerShape(
        structured=shape == "structured",
        envelope=shape == "envelope",
        writes=shape == "patch",
        response_schema=None,
    )
    world = load_world(BOOKSTORE)
    tool = world.tools[0]
    content = build_messages(world, [], tool, {}, {}, shape=answer)[-1]["content"]
    closing = content.rsplit("```", 1)[1]
    assert estimate_tokens(closing) <= 125, closing
    assert "observation" in closing or "JSON" in closing
    assert ("<state_patch>" in closing) == (shape == "patch")


def test_first_call_has_only_system_and_current_turn(bookstore: World) -> None:
    messages = messages_for(bookstore, history=[])
    assert [m["role"] for m in messages] == ["system", "user"]
    assert messages[1]["content"].startswith("### Turn 1\n**Current World State:**")


@pytest.mark.parametrize(
    ("answer", "observation"),
    [
        ("<predicted_observation>ok</predicted_observation>", "ok"),
        (
            'Reasoning first.\n<predicted_observation>\n{"a": 1}\n</predicted_observation>',
            '{"a": 1}',
        ),
        (
            "<think>draft <predicted_observation>wrong</predicted_observation></think>"
            "<predicted_observation>right</predicted_observation>",
            "right",
        ),
        (
            "orphan thinking <predicted_observation>wrong</predicted_observation></think>\n"
            "<predicted_observation>right</predicted_observation>",
            "right",
        ),
        ("reasoning only</think>\nbare answer", "bare answer"),
        (
            "<predicted_observation>first</predicted_observation> hmm, no: "
            "<predicted_observation>second</predicted_observation>",
            "second",
        ),
        ("<predicted_observation>cut off mid-sen", "cut off mid-sen"),
        ("  no tags at all\n", "no tags at all"),
        (
            f"<predicted_observation>{OBSERVATION_MARKER}\nlisting</predicted_observation>",
            "listing",
        ),
        (f"{OBSERVATION_MARKER}\nplain", "plain"),
    ],
    ids=[
        "one-block",
        "reasoning-before-block",
        "think-block-removed",
        "orphan-think-close",
        "orphan-think-close-no-tags",
        "last-block-wins",
        "unclosed-block-runs-to-end",
        "no-tags-whole-text",
        "marker-stripped-in-block",
        "marker-stripped-bare",
    ],
)
def test_extract_observation(answer: str, observation: str) -> None:
    assert extract_observation(answer) == observation
