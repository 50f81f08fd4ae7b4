"""Joins over an array of records of several kinds whose ids repeat across kinds: a typed
reference leads only to its own kind, however the kind field and the kinds are spelt."""

from __future__ import annotations

from typing import Any

import pytest

from mcp_sim.prompting.grounding import ground
from mcp_sim.prompting.key_names import key_names
from mcp_sim.prompting.link_rows import LinkRows
from mcp_sim.prompting.records_section import records_section
from mcp_sim.prompting.write_targets import newest_records, written_collection
from mcp_sim.runtime.state_index import StateIndex
from mcp_sim.spec.world import World

CREW = 30
VESSELS = 12


def reference(style: str, kind: str, number: int) -> Any:
    if style == "object":
        return {"variety": kind, "number": str(number)}
    return f"{kind.capitalize()}/{number}"


def fleet_state(style: str) -> dict[str, Any]:
    """Crew and vessels in one ``register`` array told apart by ``variety``, numbered from 1
    in each kind (crew 5 and vessel 5 both exist); voyages name their crew and vessel by a
    reference written as ``style`` says, and carry small numbers (a leg count) that equal
    vessels' numbers by chance."""
    crew = [
        {"variety": "sailors", "number": str(n), "given": f"Sailor {n}", "rank": "mate"}
        for n in range(1, CREW + 1)
    ]
    vessels = [
        {
            "variety": "vessels",
            "number": str(n),
            "hull": f"Hull {n}",
            "tonnage": 1000 + n,
            "home": {"port": "Oban", "berth": n % 4},
        }
        for n in range(1, VESSELS + 1)
    ]
    voyages = [
        {
            "voyage_no": f"VY-{v:04d}",
            "legs": v % 5 + 1,
            "sailed_on": f"2025-03-{v % 28 + 1:02d}",
            "links": {
                "sailors": [reference(style, "sailor", v % CREW + 1)],
                "vessel": reference(style, "vessel", v * 5 % VESSELS + 1),
            },
        }
        for v in range(240)
    ]
    return {"register": [*crew, *vessels], "voyages": voyages}


def world_of(state: dict[str, Any]) -> World:
    tool = {
        "name": "sailor_vessels",
        "description": "The vessels a sailor sails on, with the voyages.",
        "input_schema": {
            "type": "object",
            "properties": {"sailor_id": {"type": "string", "description": "Sailor number."}},
        },
    }
    return World.model_validate(
        {"world": "t", "title": "T", "description": "A fleet.", "state": state, "tools": [tool]}
    )


@pytest.mark.parametrize("style", ["object", "string"])
def test_a_join_follows_typed_references_to_their_own_kind(style: str) -> None:
    state = fleet_state(style)
    world = world_of(state)
    index = StateIndex(world, state)
    sailor = 7
    grounding = ground(
        index.overlay_of(state),
        state,
        world.tool("sailor_vessels"),
        {"sailor_id": str(sailor)},
        tools=world.tools,
    )
    assert isinstance(grounding.join, LinkRows)
    join = grounding.join.join
    assert join.targets.pointer == "/register/@vessels"
    # The vessels of the sailor's voyages; no vessel numbered like the sailor or a leg count.
    wanted = {v * 5 % VESSELS + 1 for v in range(240) if v % CREW + 1 == sailor}
    register = state["register"]
    reached = {int(register[int(p.rsplit("/", 1)[1])]["number"]) for p in join.target_pointers}
    assert reached == wanted
    for pointer in join.target_pointers:
        assert register[int(pointer.rsplit("/", 1)[1])]["variety"] == "vessels"
    links = {state["voyages"][int(p.rsplit("/", 1)[1])]["voyage_no"] for p, _ in join.rows}
    assert links == {f"VY-{v:04d}" for v in range(240) if v % CREW + 1 == sailor}


def test_a_record_written_into_the_array_is_searched_only_with_its_own_kind() -> None:
    state = fleet_state("object")
    tool = {
        "name": "find_sailors",
        "description": "Sailors by rank.",
        "input_schema": {"type": "object", "properties": {"rank": {"type": "string"}}},
    }
    world = World.model_validate(
        {"world": "t", "title": "T", "description": "A fleet.", "state": state, "tools": [tool]}
    )
    index = StateIndex(world, state)
    captain = {"variety": "sailors", "number": "31", "given": "Sailor 31", "rank": "captain"}
    # A vessel holding the same value: an item of the array, but no sailor.
    vessel = {"variety": "vessels", "number": "13", "hull": "Hull 13", "rank": "captain"}
    after = {**state, "register": [*state["register"], captain, vessel]}
    patch = [
        {"op": "add", "path": f"/register/{CREW + VESSELS}", "value": captain},
        {"op": "add", "path": f"/register/{CREW + VESSELS + 1}", "value": vessel},
    ]
    overlay = index.overlay_of(state).advance(state, after, patch)
    grounding = ground(overlay, after, world.tool("find_sailors"), {"rank": "captain"})
    (search,) = [s for s in grounding.searches if s.full]
    assert search.collection.pointer == "/register/@sailors"
    assert search.full == [f"/register/{CREW + VESSELS}"]


def test_a_write_naming_a_record_of_a_kind_by_its_nested_name_adds_none() -> None:
    """Cranes and berths keep their names in ``meta`` (no id field): ``crane="C-4"`` names the
    one crane holding it in the yard named too (another yard has a C-4), so the write
    changes it, and no newest records are shown."""
    cranes = [
        {"sort": "Crane", "meta": {"name": f"C-{n}", "yard": "north"}, "spec": {"lift_t": 40 + n}}
        for n in range(20)
    ] + [{"sort": "Crane", "meta": {"name": "C-4", "yard": "south"}, "spec": {"lift_t": 30}}]
    berths = [
        {"sort": "Berth", "meta": {"name": f"B-{n}"}, "depth": {"min_m": 8, "max_m": 9 + n}}
        for n in range(20)
    ]
    state = {"kind": "List", "items": [*cranes, *berths]}
    tool = {"name": "rate_crane", "description": "Set a crane's lift.", "effect": "write"}
    world = World.model_validate(
        {
            "world": "t",
            "title": "T",
            "description": "A yard.",
            "state": state,
            "tools": [tool | {"input_schema": {"type": "object"}}],
        }
    )
    overlay = StateIndex(world, state).overlay_of(state)
    assert written_collection(overlay, {"crane": "C-4", "yard": "north", "lift_t": 50})
    assert newest_records(overlay, {"crane": "C-4", "yard": "north", "lift_t": 50}) == []


def single_table() -> dict[str, Any]:
    """A single-table store: spaces, members and bookings keyed by composite keys
    (``SPACE#S3``, ``MEMBER#1042``), a booking filed under its member's partition key and
    naming its space in an index key."""
    spaces = [
        {"PK": f"SPACE#S{s}", "SK": "#META", "type": "Space", "label": f"Desk {s}"}
        for s in range(8)
    ]
    members = [
        {"PK": f"MEMBER#{1000 + m}", "SK": "#PROFILE", "type": "Member", "fullName": f"Member {m}"}
        for m in range(30)
    ]
    bookings = [
        {
            "PK": f"MEMBER#{1000 + b % 30}",
            "SK": f"BOOKING#2025-03-{b % 28 + 1:02d}#{5000 + b}",
            "GSI1PK": f"SPACE#S{b % 8}",
            "type": "Booking",
            "hours": b % 6 + 1,
        }
        for b in range(240)
    ]
    return {"Items": [*spaces, *members, *bookings]}


def test_a_composite_key_naming_a_kind_and_an_id_refers_to_that_record() -> None:
    state = single_table()
    spec = {
        "name": "space_bookers",
        "description": "The members who booked a space, with how many bookings each.",
        "input_schema": {
            "type": "object",
            "properties": {"member_id": {"type": "integer"}, "space_id": {"type": "string"}},
        },
    }
    world = World.model_validate(
        {"world": "t", "title": "T", "description": "d", "state": state, "tools": [spec]}
    )
    index = StateIndex(world, world.state)
    grounding = ground(
        index.overlay_of(world.state), world.state, world.tools[0], {"space_id": "S3"}
    )
    assert isinstance(grounding.join, LinkRows)
    join = grounding.join.join
    assert (join.links.pointer, join.targets.pointer) == ("/Items/@Booking", "/Items/@Member")
    assert join.reference == "PK"
    # Bookings 3, 11, 19, ... are of space S3, each by member b % 30.
    members = {f"/Items/{8 + b % 30}" for b in range(3, 240, 8)}
    assert set(join.target_pointers) == members
    names = key_names(world, index)
    # Spelt as the records spell their fields (``fullName``).
    assert names["/Items/@Member"] == "memberId"
    text = records_section(world.state, [], [], 12000, None, names, grounding.join)
    # Each member's key, which only its composite key holds, is written as the tools name it.
    assert '- /Items/11 (key "memberId":1003)' in text
