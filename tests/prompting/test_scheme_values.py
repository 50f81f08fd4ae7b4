"""Searches and lookups by values the state writes otherwise: a bare address against a
``mailto:`` URI, a record named by a value no sample showed to be a key, a value two fields
hold tied to the one the argument's name names."""

from __future__ import annotations

from typing import Any

from mcp_sim.prompting.grounding import ground
from mcp_sim.prompting.records_section import records_section
from mcp_sim.runtime.state_index import StateIndex
from mcp_sim.spec.world import World


def world_of(state: dict[str, Any], name: str, **arguments: str) -> World:
    properties = {a: {"type": "string", "description": d} for a, d in arguments.items()}
    tool = {
        "name": name,
        "description": f"{name}.",
        "input_schema": {"type": "object", "properties": properties},
    }
    return World.model_validate(
        {"world": "t", "title": "T", "description": "Events.", "state": state, "tools": [tool]}
    )


def view_of(world: World, name: str, arguments: dict[str, Any]) -> str:
    overlay = StateIndex(world, world.state).overlay_of(world.state)
    grounding = ground(overlay, world.state, world.tool(name), arguments)
    picks = list(grounding.picks.values())
    return records_section(world.state, picks, grounding.searches, 30_000)


def event(n: int) -> dict[str, Any]:
    people = [f"p{(n + k) % 40}" for k in range(8)]
    attendees = [
        {"cn": f"Person {p}", "role": "REQ-PARTICIPANT", "value": f"mailto:{p}@example.org"}
        for p in people
    ]
    return {
        # A recurring event's instances share theirs: the field is no key.
        "handle": f"{n * 7919 % 100000 if n > 9 else 0:05d}-{n if n > 9 else 0}@cal.example.org",
        "summary": f"Meeting {n}",
        "status": "CONFIRMED",
        "attendee": attendees,
    }


def test_a_bare_address_finds_the_events_whose_attendee_uri_holds_it() -> None:
    world = world_of({"events": [event(n) for n in range(200)]}, "find_events", attendee="Email.")
    text = view_of(world, "find_events", {"attendee": "p3@example.org"})
    holding = [n for n in range(200) if any((n + k) % 40 == 3 for k in range(8))]
    assert f"{len(holding)} records meet it" in text
    assert "mailto:p3@example.org" in text


def test_a_record_alone_holding_an_unsampled_value_is_shown_whole() -> None:
    # Filed under a name the tool's does not share: no key, sample or name leads to it.
    items = [event(n) for n in range(1500)]
    world = world_of({"agenda": items}, "get_event", event_id="The event's id.")
    text = view_of(world, "get_event", {"event_id": items[1377]["handle"]})
    assert "/agenda/1377: " in text
    assert "mailto:p17@example.org" in text


def test_a_value_two_fields_hold_is_tied_to_the_one_the_arguments_name_names() -> None:
    events = [event(n) | {"organizer": event(n + 1)["attendee"][0]} for n in range(200)]
    world = world_of({"events": events}, "find_events", organizer="Email.", status="Status.")
    text = view_of(world, "find_events", {"organizer": "p3@example.org", "status": "CONFIRMED"})
    assert 'organizer/value = "p3@example.org"' in text
    assert "attendee/*/value" not in text
    assert "5 records meet all of them" in text
