"""A query argument searched as constraints on the fields its operands name: a ``field:value``
matches the field's value or a part of it, a date bounds a field of epoch times, a value
ruled out excludes, free words are words to find, and an operand that neither names nor
holds a field here says nothing."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from mcp_sim.prompting.constraints import read_collection
from mcp_sim.prompting.field_names import names_collection, read_argument
from mcp_sim.prompting.field_search import FieldSearch
from mcp_sim.prompting.field_tables import FieldTables
from mcp_sim.prompting.grounding import ground
from mcp_sim.prompting.scalar_arguments import scalar_arguments
from mcp_sim.runtime.state_index import StateIndex
from mcp_sim.spec.world import World

SENDERS = ["Ana Lee <ana@lee.example>", "Bo Ng <bo@ng.example>", "Cy Ruiz <cy@ruiz.example>"]
SUBJECTS = ["Invoice 12 due", "Lunch plans", "Kickoff notes"]


def _millis(day: int) -> str:
    return str(int(datetime(2025, 3, day, 12, tzinfo=UTC).timestamp() * 1000))


def mailbox() -> World:
    messages: list[dict[str, Any]] = [
        {
            "id": f"m{i}",
            "internalDate": _millis(1 + i % 28),
            "labelIds": (["INBOX", "UNREAD"] if i % 2 else ["SENT"]) + ["Label_9"] * (i % 4 == 1),
            "isStarred": i % 5 == 0,
            "payload": {"headers": {"From": SENDERS[i % 3], "Subject": SUBJECTS[i % 3]}},
        }
        for i in range(60)
    ]
    return World.model_validate(
        {
            "world": "t",
            "title": "T",
            "description": "A mailbox.",
            "state": {
                "messages": messages,
                "labels": [
                    *({"id": n, "name": n, "type": "system"} for n in ("INBOX", "SENT", "UNREAD")),
                    {"id": "Label_9", "name": "Travel", "type": "user"},
                ],
            },
            "tools": [
                {
                    "name": "search_messages",
                    "description": "Search messages.",
                    "input_schema": {"type": "object"},
                },
                {"name": "find_mail", "description": "Find.", "input_schema": {"type": "object"}},
            ],
        }
    )


def test_operands_are_arguments_whose_names_say_their_operation() -> None:
    pairs = dict(scalar_arguments({"q": "from:ana after:2025/03/04 -in:trash sort:new x"}))
    assert pairs == {
        "from_matches": "ana",
        "after": "2025-03-04",
        "in_not": "trash",
        "sort": "new",
        "text": "x",
    }
    assert read_argument("from_matches").op == "match"
    assert read_argument("in_not").op == "ne"


def test_a_mail_query_searches_senders_subjects_and_epoch_dates() -> None:
    world = mailbox()
    index = StateIndex(world, world.state)
    query = "from:ana@lee.example subject:invoice after:2025/03/10 before:2025/03/20 is:unread"
    schema = FieldTables.of(index).schema(
        next(c for c in index.collections if c.pointer == "/messages")
    )
    reading = read_collection(schema, {"q": query})
    described = [c.describe() for c in reading.constraints]
    assert 'payload/headers/From contains "ana@lee.example"' in described
    assert 'payload/headers/Subject contains "invoice"' in described
    assert 'labelIds/* = "unread"' in described
    # The days bound the message's milliseconds since 1970 (a field of dates: see
    # :mod:`mcp_sim.prompting.epoch_times`).
    assert {c.op: c.value for c in reading.constraints if c.fields == ("internalDate",)} == {
        "min": "2025-03-10",
        "max": "2025-03-20",
    }
    overlay = index.overlay_of(world.state)
    found, *_ = FieldSearch(overlay, world.state).search(
        world.tool("search_messages"), {"q": query}
    )
    messages = world.state["messages"]
    wanted = [
        f"/messages/{i}"
        for i, m in enumerate(messages)
        if i % 3 == 0 and i % 2 and 10 <= 1 + i % 28 < 20
    ]
    assert wanted and found.full == wanted


def test_an_operand_no_field_here_names_or_holds_constrains_nothing() -> None:
    world = mailbox()
    index = StateIndex(world, world.state)
    schema = FieldTables.of(index).schema(
        next(c for c in index.collections if c.pointer == "/messages")
    )
    # ``is`` fits ``isStarred`` loosely, which holds no ``pr``: it says nothing of messages.
    reading = read_collection(schema, {"q": "is:pr from:bo@ng.example"})
    assert [c.argument for c in reading.constraints] == ["from_matches"]


def test_the_records_a_query_names_follow_those_it_finds() -> None:
    world = mailbox()
    overlay = StateIndex(world, world.state).overlay_of(world.state)
    tool = world.tool("search_messages")
    picks = ground(overlay, world.state, tool, {"q": "from:cy@ruiz.example label:SENT"}).picks
    order = list(picks)
    assert order[0].startswith("/messages/") and picks[order[0]].complete
    # The label the query names is shown, after the messages it finds.
    assert order.index("/labels/1") > order.index(order[0])


def test_a_qualifier_naming_a_collection_chooses_it_over_the_tools_name() -> None:
    assert names_collection("/data/pullRequests/edges", "pr")
    assert names_collection("/data/issues/edges", "issue")
    assert not names_collection("/data/issues/edges", "open")
    people = ["ana", "bo", "cy"]
    items = [{"number": i, "author": people[i % 3], "state": "OPEN"} for i in range(30)]
    pulls = [{"number": 100 + i, "author": people[i % 3], "state": "OPEN"} for i in range(30)]
    world = World.model_validate(
        {
            "world": "t",
            "title": "T",
            "description": "A repository.",
            "state": {"issues": items, "pullRequests": pulls},
            "tools": [
                {
                    "name": "search_issues",
                    "description": "Search issues and pull requests.",
                    "input_schema": {"type": "object"},
                }
            ],
        }
    )
    overlay = StateIndex(world, world.state).overlay_of(world.state)
    search = FieldSearch(overlay, world.state)
    found = search.search(world.tool("search_issues"), {"query": "is:pr author:bo is:open"})
    assert found[0].collection.pointer == "/pullRequests"
    assert found[0].full == [f"/pullRequests/{i}" for i in range(1, 30, 3)]


def test_a_value_naming_a_record_selects_the_records_holding_its_key() -> None:
    world = mailbox()
    overlay = StateIndex(world, world.state).overlay_of(world.state)
    search = FieldSearch(overlay, world.state)
    found, *_ = search.search(world.tool("search_messages"), {"q": "label:travel is:unread"})
    assert 'labelIds/* = ["Label_9"]' in [c.describe() for c in found.constraints]
    assert found.full == [f"/messages/{i}" for i in range(60) if i % 4 == 1]


def test_a_query_whose_value_keys_a_record_still_searches() -> None:
    world = mailbox()
    overlay = StateIndex(world, world.state).overlay_of(world.state)
    # ``unread`` keys a label, and the tool names no collection: still a search of messages.
    query = {"q": "label:travel is:unread"}
    found = FieldSearch(overlay, world.state).search(world.tool("find_mail"), query)
    assert found and found[0].collection.pointer == "/messages"
    assert found[0].full == [f"/messages/{i}" for i in range(60) if i % 4 == 1]
