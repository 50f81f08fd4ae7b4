"""Shaping a call's prompt: building it reads the session; preparing the session is the one
step that changes it (restored turns' actions, history compaction)."""

from __future__ import annotations

import pytest

from mcp_sim.errors import SnapshotInvalid
from mcp_sim.runtime.session import Session, SessionStore, Turn
from mcp_sim.runtime.snapshot import Snapshot
from mcp_sim.simulator import recorder
from mcp_sim.simulator.core import Simulator
from mcp_sim.simulator.options import SimOptions
from mcp_sim.simulator.prompt import PromptShaper, turn_tokens, unseen_changes
from mcp_sim.spec.world import World


def session_with_turns(world: World, count: int, observation: str) -> Session:
    session = SessionStore(world).get("s")
    for i in range(count):
        # As restored from a snapshot: neither the action nor the head is kept.
        session.history.append(Turn("search_books", {"query": f"q{i}"}, observation, False))
    session.steps = count
    return session


def test_building_a_prompt_changes_nothing_in_the_session(bookstore: World) -> None:
    shaper = PromptShaper(bookstore, SimOptions(history_budget_tokens=100, keep_turns=2), 1000)
    session = session_with_turns(bookstore, 5, "x" * 300)
    history = list(session.history)
    prompt = shaper.messages(session, bookstore.tools[0], {"query": "rain"}, None, None)
    assert session.history_start == 0
    assert session.history == history and all(t.action is None for t in session.history)
    assert prompt.anchor and "rain" in prompt.head


def test_preparing_compacts_the_history_within_its_budget(bookstore: World) -> None:
    budget = 300
    shaper = PromptShaper(bookstore, SimOptions(history_budget_tokens=budget, keep_turns=2), 1000)
    session = session_with_turns(bookstore, 5, "x" * 300)
    shaper.prepare(session)
    shown = shaper.shown_history(session)
    assert session.history_start == 3 and len(shown) == 2
    assert all(t.action is not None for t in shown)
    assert sum(turn_tokens(t) for t in shown) <= budget
    prompt = shaper.messages(session, bookstore.tools[0], {"query": "rain"}, None, None)
    assert "### Turn 6" in prompt.head


def test_compaction_lets_go_of_the_turns_no_prompt_shows_again(bookstore: World) -> None:
    options = SimOptions(history_budget_tokens=300, keep_turns=2, reference_turns=3)
    shaper = PromptShaper(bookstore, options, 1000)
    session = session_with_turns(bookstore, 50, "x" * 300)
    shaper.prepare(session)
    assert session.turn_count == 50 and session.history_start == 48
    assert session.history_offset == 47 and len(session.history) == 3
    assert len(shaper.references(session, {})) == 3 * 2
    prompt = shaper.messages(session, bookstore.tools[0], {"query": "rain"}, None, None)
    assert "### Turn 51" in prompt.head


def test_a_session_restored_from_a_compacted_one_shows_the_same_prompt(
    bookstore: World,
) -> None:
    shaper = PromptShaper(bookstore, SimOptions(history_budget_tokens=300, keep_turns=2), 1000)
    session = session_with_turns(bookstore, 50, "x" * 300)
    shaper.prepare(session)
    snapshot = Snapshot.parse(session.snapshot().model_dump_json())
    restored = Session.restore("copy", bookstore, snapshot)
    shaper.prepare(restored)
    assert (restored.history_offset, restored.turn_count) == (47, 50)
    args = {"query": "rain"}
    shown = [shaper.messages(s, bookstore.tools[0], args, None, None) for s in (session, restored)]
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
    options = SimOptions(history_budget_tokens=200, keep_turns=2)
    simulator = Simulator(bookstore, None, options=options)
    for _ in range(40):
        await simulator.call("s", "search_books", {"query": "glass"})  # a pinned fixture
    session = simulator.sessions.get("s")
    assert session.turn_count == 40 and len(session.history) <= 10


def test_a_small_history_is_kept_whole(bookstore: World) -> None:
    shaper = PromptShaper(bookstore, SimOptions(), 1000)
    session = session_with_turns(bookstore, 3, "short")
    shaper.prepare(session)
    assert session.history_start == 0 and len(shaper.shown_history(session)) == 3


def test_without_an_anchor_turn_the_next_turn_shows_the_state_again(bookstore: World) -> None:
    session = session_with_turns(bookstore, 2, "short")
    assert unseen_changes(session, session.history) is None
