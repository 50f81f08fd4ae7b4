"""The answer source: who answers a call, the same for calls and for the question whether
a call needs the model."""

from __future__ import annotations

import pytest

from mcp_sim.journal import JournalRecord
from mcp_sim.models.replay import Replay
from mcp_sim.perturb.planner import NO_PLAN, Plan
from mcp_sim.runtime.session import SessionStore
from mcp_sim.simulator.answer_sources import AnswerSource, SourceChooser, choose_source, fixture_for
from mcp_sim.spec.world import World

NOTHING = {
    "replayed": False,
    "invalid": False,
    "fault": False,
    "instructed": False,
    "pinned": False,
    "paged": False,
}


@pytest.mark.parametrize(
    ("known", "source"),
    [
        ({}, AnswerSource.MODEL),
        ({"paged": True}, AnswerSource.PAGES),
        ({"pinned": True, "paged": True}, AnswerSource.FIXTURE),
        ({"instructed": True, "pinned": True, "paged": True}, AnswerSource.MODEL),
        ({"fault": True, "instructed": True, "pinned": True}, AnswerSource.FAULT),
        ({"invalid": True, "fault": True, "pinned": True}, AnswerSource.INVALID),
        ({"replayed": True, "invalid": True, "pinned": True}, AnswerSource.REPLAY),
    ],
)
def test_the_first_source_that_answers_is_chosen(
    known: dict[str, bool], source: AnswerSource
) -> None:
    assert choose_source(**{**NOTHING, **known}) is source


def unplanned() -> Plan:
    raise AssertionError("planning counts the call; a call without a plan must not be planned")


def test_invalid_arguments_are_not_planned(bookstore: World) -> None:
    choice = SourceChooser(bookstore, replay=None, pages=None).choose(
        bookstore.tools[0], {"query": 3}, unplanned, session=None
    )
    assert choice.source is AnswerSource.INVALID
    assert choice.invalid is not None and choice.invalid.startswith(
        "Input validation error for search_books:"
    )


def test_a_pinned_call_is_answered_by_its_fixture(bookstore: World) -> None:
    tool = bookstore.tools[0]
    choice = SourceChooser(bookstore, replay=None, pages=None).choose(
        tool, {"query": "glass"}, lambda: NO_PLAN, session=None
    )
    assert choice.source is AnswerSource.FIXTURE
    assert choice.fixture == fixture_for(tool, {"query": "glass"}, bookstore)
    assert choice.fixture is not None and choice.fixture.structured["total"] == 2


def test_an_unpinned_call_goes_to_the_model(bookstore: World) -> None:
    chooser = SourceChooser(bookstore, replay=None, pages=None)
    choice = chooser.choose(bookstore.tools[0], {"query": "rain"}, lambda: NO_PLAN, session=None)
    assert choice.source is AnswerSource.MODEL
    assert chooser.needs_model(choice, bookstore.tools[0], {"query": "rain"})


def test_a_recording_answers_a_call_but_not_a_question(bookstore: World) -> None:
    recorded = JournalRecord(
        session="s",
        step=1,
        tool="search_books",
        arguments={"query": "rain"},
        observation="recorded",
        is_error=False,
        source="model",
    )
    chooser = SourceChooser(bookstore, replay=Replay([recorded]), pages=None)
    session = SessionStore(bookstore).get("s")
    tool, args = bookstore.tools[0], {"query": "rain"}
    asked = chooser.choose(tool, args, lambda: NO_PLAN, session=None)
    assert asked.source is AnswerSource.MODEL
    called = chooser.choose(tool, args, unplanned, session=session)
    assert called.source is AnswerSource.REPLAY
    assert called.replayed is not None and called.replayed.text == "recorded"
    assert not chooser.needs_model(called, tool, args)
