"""Shaping a call's prompt: building it reads the session; preparing the session is the one
step that changes it (restored turns' actions, history compaction)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from mcp_sim.errors import SnapshotInvalid
from mcp_sim.prompting.answer_shape import AnswerShape
from mcp_sim.runtime.session import Session, SessionStore, Turn
from mcp_sim.runtime.snapshot import Snapshot
from mcp_sim.settings import Settings
from mcp_sim.simulator import recorder
from mcp_sim.simulator.core import Simulator
from mcp_sim.simulator.prompt import PromptShaper, turn_tokens, unseen_changes
from mcp_sim.spec.world import World

TEXT = AnswerShape(structured=False, envelope=False, writes=False, response_schema=None)


def session_with_turns(world: World, count: int, observation: str) -> Session:
    session = SessionStore(world).get("s")
    for i in range(count):
        # As restored from a snapshot: neither the action nor the head is kept.
        session.history.append(Turn("search_books", {"query": f"q{i}"}, observation, False))
    session.steps = count
    return session


def test_building_a_prompt_changes_nothing_in_the_session(bookstore: World) -> None:
    shaper = PromptShaper(bookstore, Settings.of(history_budget=100, keep_turns=2).prompt, 1000)
    session = session_with_turns(bookstore, 5, "x" * 300)
    history = list(session.history)
    prompt = shaper.messages(session, bookstore.tools[0], {"query": "rain"}, None, None, TEXT)
    assert session.history_start == 0
    assert session.history == history and all(t.action is None for t in session.history)
    assert prompt.anchor and "rain" in prompt.head


def test_preparing_compacts_the_history_within_its_budget(bookstore: World) -> None:
    budget = 300
    shaper = PromptShaper(
        bookstore,
        Settings.of(history_budget=budget, keep_turns=2, history_keep_share=1.0).prompt,
        1000,
    )
    session = session_with_turns(bookstore, 5, "x" * 300)
    shaper.prepare(session)
    shown = shaper.shown_history(session)
    assert session.history_start == 3 and len(shown) == 2
    assert all(t.action is not None for t in shown)
    assert sum(turn_tokens(t) for t in shown) <= budget
    prompt = shaper.messages(session, bookstore.tools[0], {"query": "rain"}, None, None, TEXT)
    assert "### Turn 6" in prompt.head


def test_compaction_lets_go_of_the_turns_no_prompt_shows_again(bookstore: World) -> None:
    options = Settings.of(
        history_budget=300, keep_turns=2, reference_turns=3, history_keep_share=1.0
    ).prompt
    shaper = PromptShaper(bookstore, options, 1000)
    session = session_with_turns(bookstore, 50, "x" * 300)
    shaper.prepare(session)
    assert session.turn_count == 50 and session.history_start == 48
    assert session.history_offset == 47 and len(session.history) == 3
    assert len(shaper.references(session, {})) == 3 * 2
    prompt = shaper.messages(session, bookstore.tools[0], {"query": "rain"}, None, None, TEXT)
    assert "### Turn 51" in prompt.head


def test_a_session_restored_from_a_compacted_one_shows_the_same_prompt(
    bookstore: World,
) -> None:
    shaper = PromptShaper(
        bookstore,
        Settings.of(history_budget=300, keep_turns=2, history_keep_share=1.0).prompt,
        1000,
    )
    session = session_with_turns(bookstore, 50, "x" * 300)
    shaper.prepare(session)
    snapshot = Snapshot.parse(session.snapshot().model_dump_json())
    restored = Session.restore("copy", bookstore, snapshot)
    shaper.prepare(restored)
    assert (restored.history_offset, restored.turn_count) == (47, 50)
    args = {"query": "rain"}
    shown = [
        shaper.messages(s, bookstore.tools[0], args, None, None, TEXT) for s in (session, restored)
    ]
    assert shown[0].messages == shown[1].messages


def test_a_snapshot_that_lets_go_past_its_compaction_is_refused(bookstore: World) -> None:
    session = session_with_turns(bookstore, 5, "short")
    damaged = session.snapshot().model_copy(update={"history_offset": 2})
    with pytest.raises(SnapshotInvalid, match="history_offset"):
        Session.restore("copy", bookstore, damaged)


async def test_calls_the_model_does_not_answer_are_compacted_too(
    bookstore: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(recorder, "KEPT_TURNS_LIMIT", 10)
    options = Settings.of(history_budget=200, keep_turns=2)
    simulator = Simulator(bookstore, None, settings=options)
    for _ in range(40):
        await simulator.call("s", "search_books", {"query": "glass"})  # a pinned fixture
    session = simulator.sessions.get("s")
    assert session.turn_count == 40 and len(session.history) <= 10


def test_a_small_history_is_kept_whole(bookstore: World) -> None:
    shaper = PromptShaper(bookstore, Settings.of().prompt, 1000)
    session = session_with_turns(bookstore, 3, "short")
    shaper.prepare(session)
    assert session.history_start == 0 and len(shaper.shown_history(session)) == 3


def test_without_an_anchor_turn_the_next_turn_shows_the_state_again(bookstore: World) -> None:
    session = session_with_turns(bookstore, 2, "short")
    assert unseen_changes(session, session.history) is None


def session_after_an_anchor(world: World, count: int) -> Session:
    """An anchor turn, then ``count`` turns that each committed one change."""
    session = SessionStore(world).get("s")
    session.history.append(
        Turn("search_books", {}, "x" * 300, False, head="### Turn 1", anchor=True)
    )
    for i in range(count):
        change = [{"op": "add", "path": f"/notes{i}", "value": i}]
        head = f"### Turn {i + 2}\n**Action:** {'y' * 300}"
        turn = Turn("search_books", {"query": f"q{i}"}, "x" * 300, False, version=i)
        session.history.append(replace(turn, head=head, change=change))
        session.state[f"notes{i}"] = i
    session.version = session.steps = count
    return session


def test_a_compaction_keeps_the_anchor_and_folds_the_turns_after_it(bookstore: World) -> None:
    shaper = PromptShaper(bookstore, Settings.of(history_budget=1000).prompt, 1000)
    session = session_after_an_anchor(bookstore, 6)
    shaper.prepare(session)
    assert (session.history_start, session.history_resume) == (0, 7)
    assert [t.head for t in shaper.shown_history(session)] == ["### Turn 1"]
    prompt = shaper.messages(session, bookstore.tools[0], {"query": "rain"}, None, None, TEXT)
    assert prompt.messages[1]["content"] == "### Turn 1"  # the prefix up to it stays cached
    assert prompt.head.startswith("### Turn 8\n*(Turns 2 to 7 are not shown")
    # The next turn shows every change the folded turns committed.
    assert all(f'"/notes{i}"' in prompt.head for i in range(6)) and not prompt.anchor
    restored = Session.restore(
        "copy", bookstore, Snapshot.parse(session.snapshot().model_dump_json())
    )
    assert restored.history_resume == 7
    again = shaper.messages(restored, bookstore.tools[0], {"query": "rain"}, None, None, TEXT)
    assert again.messages == prompt.messages


def test_changes_too_large_to_fold_drop_the_anchor_too(bookstore: World) -> None:
    shaper = PromptShaper(bookstore, Settings.of(history_budget=1000, turn_budget=60).prompt, 1000)
    session = session_after_an_anchor(bookstore, 6)
    shaper.prepare(session)
    assert session.history_resume == 0 and session.history_start > 0
    prompt = shaper.messages(session, bookstore.tools[0], {"query": "rain"}, None, None, TEXT)
    assert prompt.anchor
