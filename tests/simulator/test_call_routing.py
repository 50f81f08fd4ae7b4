"""The routing decision: who answers a call, the same for calls and for the question whether
a call needs the model."""

from __future__ import annotations

import pytest

from mcp_sim.journal import JournalRecord
from mcp_sim.models.replay import Replay
from mcp_sim.perturb.planner import NO_PLAN, Plan
from mcp_sim.runtime.session import SessionStore
from mcp_sim.simulator.routing import Route, Router, decide, fixture_for
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
    ("known", "route"),
    [
        ({}, Route.MODEL),
        ({"paged": True}, Route.PAGES),
        ({"pinned": True, "paged": True}, Route.FIXTURE),
        ({"instructed": True, "pinned": True, "paged": True}, Route.MODEL),
        ({"fault": True, "instructed": True, "pinned": True}, Route.FAULT),
        ({"invalid": True, "fault": True, "pinned": True}, Route.INVALID),
        ({"replayed": True, "invalid": True, "pinned": True}, Route.REPLAY),
    ],
)
def test_decide_takes_the_first_source_that_answers(known: dict[str, bool], route: Route) -> None:
    assert decide(**{**NOTHING, **known}) is route


def unplanned() -> Plan:
    raise AssertionError("planning counts the call; a call without a plan must not be planned")


def test_invalid_arguments_are_not_planned(bookstore: World) -> None:
    routing = Router(bookstore, replay=None, pages=None).route(
        bookstore.tools[0], {"query": 3}, unplanned, session=None
    )
    assert routing.route is Route.INVALID
    assert routing.invalid is not None and routing.invalid.startswith(
        "Input validation error for search_books:"
    )


def test_a_pinned_call_is_answered_by_its_fixture(bookstore: World) -> None:
    tool = bookstore.tools[0]
    routing = Router(bookstore, replay=None, pages=None).route(
        tool, {"query": "glass"}, lambda: NO_PLAN, session=None
    )
    assert routing.route is Route.FIXTURE
    assert routing.fixture == fixture_for(tool, {"query": "glass"}, bookstore)
    assert routing.fixture is not None and routing.fixture.structured["total"] == 2


def test_an_unpinned_call_goes_to_the_model(bookstore: World) -> None:
    router = Router(bookstore, replay=None, pages=None)
    routing = router.route(bookstore.tools[0], {"query": "rain"}, lambda: NO_PLAN, session=None)
    assert routing.route is Route.MODEL
    assert router.needs_model(routing, bookstore.tools[0], {"query": "rain"})


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
    router = Router(bookstore, replay=Replay([recorded]), pages=None)
    session = SessionStore(bookstore).get("s")
    tool, args = bookstore.tools[0], {"query": "rain"}
    asked = router.route(tool, args, lambda: NO_PLAN, session=None)
    assert asked.route is Route.MODEL
    called = router.route(tool, args, unplanned, session=session)
    assert called.route is Route.REPLAY
    assert called.replayed is not None and called.replayed.text == "recorded"
    assert not router.needs_model(called, tool, args)
