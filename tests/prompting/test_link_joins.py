"""Joins through link records: a call naming one record (an owner) whose answer lists the
records of another collection (boats) that the records referring to it (charters) point to,
however a link writes its references and however the collections are kept."""

from __future__ import annotations

from typing import Any

import pytest

from mcp_sim.prompting import link_join, link_keys
from mcp_sim.prompting.field_search import FieldSearch
from mcp_sim.prompting.field_tables import FieldTables
from mcp_sim.prompting.grounding import Grounding, ground
from mcp_sim.prompting.link_join import follow
from mcp_sim.prompting.link_rows import LinkRows
from mcp_sim.prompting.records_section import records_section
from mcp_sim.runtime.state_index import StateIndex
from mcp_sim.spec.world import World


def world_of(
    state: dict[str, Any], tool: str, description: str, output: dict[str, Any] | None = None
) -> World:
    spec = {"name": tool, "description": description, "input_schema": {"type": "object"}}
    if output is not None:
        spec["output_schema"] = output
    return World.model_validate(
        {
            "world": "t",
            "title": "T",
            "description": "A hand-made state.",
            "state": state,
            "tools": [spec],
        }
    )


def refer(style: str, plural: str, ident: str) -> Any:
    if style == "url":
        return f"https://api.example.com/v2/{plural}/{ident}"
    if style == "typed":
        return {"type": plural, "id": ident}
    return ident


def charter_state(style: str, *, edges: bool = False, id_key: str = "boat_id") -> dict[str, Any]:
    """Owners; boats (an array, or GraphQL edges); charters referring to an owner and a boat,
    each written as ``style`` says, with numbers that equal boats' positions by chance."""
    owners = {f"OW-{o}": {"name": f"Owner {o}", "email": f"o{o}@x.example"} for o in range(6)}
    words = ["Alpha", "Basalt", "Cedar", "Delta", "Ember", "Fjord", "Granite", "Harbor"]
    boats = [
        {
            id_key: f"BT-{b:03d}",
            "details": {"boat_name": f"{words[b % 8]} {words[b // 8 % 8]}", "hull": "steel"},
            "length_m": 10 + b,
            "tags": ["sail", "blue"] if b % 2 else [],
            "calendar": {f"2025-01-{d:02d}": {"free": d % 2} for d in range(1, 20)},
        }
        for b in range(60)
    ]
    suffix = "_url" if style == "url" else ""
    charters = [
        {
            "charter_id": f"CH-{c}",
            f"owner{suffix}": refer(style, "owners", f"OW-{c % 6}"),
            f"boat{suffix}": refer(style, "boats", f"BT-{(c * 7) % 60:03d}"),
            "booked_on": f"2025-02-{c % 28 + 1:02d}",
            "minutes": c % 60,
        }
        for c in range(120)
    ]
    kept: Any = [{"node": b, "cursor": f"c{i}"} for i, b in enumerate(boats)] if edges else boats
    return {"owners": owners, "boats": {"edges": kept} if edges else kept, "charters": charters}


def grounded(world: World, arguments: dict[str, Any]) -> Grounding:
    index = StateIndex(world, world.state)
    tool = world.tools[0].name
    return ground(index.overlay_of(world.state), world.state, world.tool(tool), arguments)


DESCRIPTION = "The boats an owner has charters for, with the charters' dates."


def test_a_reference_written_as_a_resource_path_finds_the_records_it_names() -> None:
    world = world_of(charter_state("url"), "charters_of_owner", "An owner's charters.")
    index = StateIndex(world, world.state)
    found = FieldSearch(index.overlay_of(world.state), world.state).search(
        world.tools[0], {"owner_id": "OW-2"}
    )
    assert found[0].collection.pointer == "/charters"
    assert [c.fields for c in found[0].constraints] == [("owner_url",)]
    assert found[0].full == [f"/charters/{c}" for c in range(2, 120, 6)]


def test_the_links_field_is_the_one_whose_values_are_keys_of_the_targets() -> None:
    world = world_of(charter_state("typed"), "boats_of_owner", DESCRIPTION)
    index = StateIndex(world, world.state)
    tables = FieldTables.of(index)
    by_pointer = {c.pointer: c for c in index.collections}
    charters, boats = by_pointer["/charters"], by_pointer["/boats"]
    links = [f"/charters/{c}" for c in range(0, 120, 6)]
    join = follow(tables, world.state, charters, links, boats, {"ow-0"})
    assert join is not None
    # ``minutes`` equals some boats' positions, but an array's positions are no keys.
    assert join.reference == "boat/id"
    assert join.rows[1] == ("/charters/6", ["/boats/42"])


def test_each_link_is_shown_with_the_record_it_refers_to_in_the_links_order() -> None:
    for style in ("plain", "typed", "url"):
        world = world_of(charter_state(style), "boats_of_owner", DESCRIPTION)
        grounding = grounded(world, {"owner_id": "OW-1"})
        assert grounding.join is not None
        picks = list(grounding.picks.values())
        text = records_section(world.state, picks, [], 9000, None, None, grounding.join)
        rows = [line for line in text.splitlines() if line.startswith("- /charters/")]
        assert len(rows) == 20, style
        assert rows[0].startswith('- /charters/1 {"charter_id":"CH-1"')
        assert '"booked_on":"2025-02-02"' in rows[0]
        assert rows[0].endswith(
            '→ /boats/7 {"boat_id":"BT-007","details":{"boat_name":"Harbor Alpha","hull":"steel"},'
            '"length_m":17,"tags":["sail","blue"]}'
        )
        # The reference to the owner is the search's; the boat's calendar is left out.
        assert '"owner' not in rows[0] and "calendar" not in text
        assert "- Join: 20 records of /charters meet" in text


def test_a_small_room_shows_every_row_with_fewer_fields() -> None:
    world = world_of(charter_state("plain", edges=True), "boats_of_owner", DESCRIPTION)
    grounding = grounded(world, {"owner_id": "OW-1"})
    assert grounding.join is not None
    text = records_section(world.state, [], [], 3300, None, None, grounding.join)
    rows = [line for line in text.splitlines() if line.startswith("- /charters/")]
    assert len(rows) == 20
    # The target's key (in the edge's node) and its name; the link's date.
    assert rows[0] == (
        '- /charters/1 {"booked_on":"2025-02-02"} → /boats/edges/7/node '
        '{"boat_id":"BT-007","details":{"boat_name":"Harbor Alpha"}}'
    )
    assert len(text) <= 3300


def test_a_links_detail_is_given_up_before_the_records_it_refers_to() -> None:
    world = world_of(charter_state("plain", edges=True), "boats_of_owner", DESCRIPTION)
    grounding = grounded(world, {"owner_id": "OW-1"})
    assert grounding.join is not None
    text = records_section(world.state, [], [], 4000, None, None, grounding.join)
    rows = [line for line in text.splitlines() if line.startswith("- /charters/")]
    assert len(rows) == 20
    # The link's date only; every field of the boat it refers to.
    assert rows[0] == (
        '- /charters/1 {"booked_on":"2025-02-02"} → /boats/edges/7/node '
        '{"boat_id":"BT-007","details":{"boat_name":"Harbor Alpha","hull":"steel"},'
        '"length_m":17,"tags":["sail","blue"]}'
    )


def test_links_that_refer_to_no_record_of_the_named_collection_are_no_join() -> None:
    state = charter_state("plain")
    for charter in state["charters"]:
        charter["boat"] = "elsewhere"
    world = world_of(state, "boats_of_owner", DESCRIPTION)
    grounding = grounded(world, {"owner_id": "OW-1"})
    assert grounding.join is None
    assert grounding.searches[0].collection.pointer == "/charters"


def test_a_lookup_by_id_inside_graphql_edges_comes_before_the_links_naming_it() -> None:
    state = charter_state("url", edges=True, id_key="id")
    world = world_of(state, "get_boat", "A boat's record.")
    # An edge's node is the record: its id names it as a key.
    picks = list(grounded(world, {"boat_id": "BT-007"}).picks.values())
    assert (picks[0].pointer, picks[0].reason) == ("/boats/edges/7/node", "named")
    index = StateIndex(world, world.state)
    found = FieldSearch(index.overlay_of(world.state), world.state).search(
        world.tools[0], {"boat_id": "BT-007"}
    )
    # The charters naming the boat by its URL are searched by name (``boat_url`` ↔ ``boat_id``).
    assert found[0].collection.pointer == "/charters"
    assert found[0].full == ["/charters/1", "/charters/61"]


def test_an_identifier_held_by_few_records_of_the_named_collection_names_them() -> None:
    """Edges keep their ids inside, so no key names a boat, and a boat the schema's sample
    left out is found by no field's values: the value index finds it."""
    boats = [
        {"node": {"id": f"BT-{b:04d}", "name": f"Boat {b}", "rig": f"rig-{b % 5}"}}
        for b in range(450)
    ]
    world = world_of({"boats": {"edges": boats}}, "get_boat", "A boat's record.")
    grounding = grounded(world, {"boat_id": "BT-0001"})
    first = next(iter(grounding.picks.values()))
    assert (first.pointer, first.reason) == ("/boats/edges/1/node", "named")
    # A value 90 records share names none of them: a search's.
    pick = grounded(world, {"rig": "rig-1"}).picks.get("/boats/edges/1/node")
    assert pick is None or pick.reason != "named"


def test_a_record_several_links_refer_to_is_shown_once() -> None:
    state = charter_state("plain")
    for charter in state["charters"]:
        charter["boat"] = "BT-003" if charter["owner"] == "OW-1" else charter["boat"]
    world = world_of(state, "boats_of_owner", DESCRIPTION)
    grounding = grounded(world, {"owner_id": "OW-1"})
    assert grounding.join is not None
    text = records_section(world.state, [], [], 9000, None, None, grounding.join)
    rows = [line for line in text.splitlines() if line.startswith("- /charters/")]
    assert rows[0].endswith(
        '→ /boats/3 {"boat_id":"BT-003","details":{"boat_name":"Delta Alpha","hull":"steel"},'
        '"length_m":13,"tags":["sail","blue"]}'
    )
    assert all(row.endswith("→ /boats/3 (as above)") for row in rows[1:]) and len(rows) == 20


def test_the_fields_the_output_schema_names_stay_when_room_is_short() -> None:
    row = {"type": "object", "properties": {"boat_id": {}, "length_m": {}, "on": {}}}
    output = {"type": "object", "properties": {"boats": {"type": "array", "items": row}}}
    state = charter_state("plain", edges=True)
    world = world_of(state, "boats_of_owner", "An owner's boats.", output)
    grounding = grounded(world, {"owner_id": "OW-1"})
    assert grounding.join is not None
    text = records_section(world.state, [], [], 3600, None, None, grounding.join)
    rows = [line for line in text.splitlines() if line.startswith("- /charters/")]
    assert len(rows) == 20
    assert rows[0].endswith(
        '→ /boats/edges/7/node {"boat_id":"BT-007","details":{"boat_name":"Harbor Alpha"},'
        '"length_m":17}'
    )


def test_a_typed_reference_no_two_links_share_is_still_a_reference() -> None:
    """Each charter names its own boat (``boat/id`` is unique), and an edge's ``node/id`` is
    a charter's own id: only the second is no reference."""
    state = charter_state("typed")
    charters = [
        {
            "node": {
                "id": f"CH-{c}",
                "owner": c["owner"],
                "boat": {"type": "boats", "id": f"BT-{n:03d}"},
                "on": "2025-01-01",
                "hours": 3,
            }
        }
        for n, c in enumerate(state["charters"][:60])
    ]
    state["charters"] = {"edges": charters}
    world = world_of(state, "boats_of_owner", DESCRIPTION)
    grounding = grounded(world, {"owner_id": "OW-1"})
    assert isinstance(grounding.join, LinkRows)
    assert grounding.join.join.reference == "boat/id"
    assert grounding.join.join.rows[0] == ("/charters/edges/1/node", ["/boats/1"])


def test_links_are_no_join_when_the_named_records_meet_more_of_the_arguments() -> None:
    models, stations = ["Cargo", "Urban", "Glide"], ["ST-01", "ST-02", "ST-03", "ST-04"]
    bikes = [
        {"bike_id": f"B{b:03d}", "model": models[b % 3], "station": stations[b % 4]}
        for b in range(48)
    ]
    rides = [
        {"ride_id": f"R{r:04d}", "bike": f"B{r * 7 % 48:03d}", "from": stations[r % 4]}
        for r in range(200)
    ]
    places = {s: {"name": f"Square {s}", "capacity": 20} for s in stations}
    state = {"bikes": bikes, "rides": rides, "stations": places}
    world = world_of(state, "find_bikes", "Bikes matching filters.")
    grounding = grounded(world, {"model": "Cargo", "station": "ST-02"})
    # The station's rides refer to bikes too, but the bikes themselves meet both arguments.
    assert grounding.join is None
    found = next(s for s in grounding.searches if s.collection.pointer == "/bikes")
    assert found.full == [f"/bikes/{b}" for b in range(48) if b % 3 == 0 and b % 4 == 1]


def test_records_asked_for_each_once_are_shown_once_with_their_count_of_links() -> None:
    description = "The boats an owner has chartered, each once, with their number of charters."
    world = world_of(charter_state("typed"), "boats_of_owner", description)
    grounding = grounded(world, {"owner_id": "OW-1"})
    assert grounding.join is not None
    text = records_section(world.state, [], [], 9000, None, None, grounding.join)
    # Owner 1's 20 charters refer to 10 boats, two each: each boat once, counted.
    lines = [line for line in text.splitlines() if line.startswith("- /boats/")]
    assert len(lines) == 10
    assert lines[0].startswith('- /boats/7 {"boat_id":"BT-007"')
    assert lines[0].endswith('{"charters": 2} ← /charters/1, /charters/61')
    assert "referring (by boat/id) to 10 /boats records, each shown once" in text
    # Asked for the charters themselves, each charter is a row.
    rows = grounded(
        world_of(charter_state("typed"), "boats_of_owner", DESCRIPTION), {"owner_id": "OW-1"}
    )
    assert rows.join is not None
    listed = records_section(world.state, [], [], 9000, None, None, rows.join)
    assert sum(1 for line in listed.splitlines() if line.startswith("- /charters/")) == 20


def test_counting_each_records_links_follows_the_links_past_those_rows_show(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(link_join, "MOST_LINKS", 5)
    description = "The boats an owner has chartered, each once, with their number of charters."
    world = world_of(charter_state("plain"), "boats_of_owner", description)
    grounding = grounded(world, {"owner_id": "OW-1"})
    assert isinstance(grounding.join, LinkRows) and len(grounding.join.join.rows) == 5
    text = records_section(world.state, [], [], 9000, None, None, grounding.join)
    # Every one of the 20 charters is counted: 10 boats, two charters each.
    lines = [line for line in text.splitlines() if line.startswith("- /boats/")]
    assert len(lines) == 10 and all('{"charters": 2}' in line for line in lines)


def test_whole_numbers_in_the_range_of_numbered_keys_refer_only_when_named_so() -> None:
    # Visits refer to a member by a number; their ``weight_kg`` values lie in the members'
    # range by chance, and more of them than of ``member`` (a guest's is 0) are members' keys.
    members = {str(m): {"name": f"Member {m}", "level": m % 3} for m in range(1, 80)}
    visits = {
        f"V{v}": {"member": str(v % 7 + 1) if v % 4 else "0", "weight_kg": str(v + 1), "gym": "G"}
        for v in range(60)
    }
    world = world_of({"members": members, "visits": visits}, "gym_members", "Members.")
    index = StateIndex(world, world.state)
    tables = FieldTables.of(index)
    by_pointer = {c.pointer: c for c in index.collections}
    links = [f"/visits/V{v}" for v in range(60)]
    join = follow(tables, world.state, by_pointer["/visits"], links, by_pointer["/members"], set())
    assert join is not None
    assert join.reference == "member"
    assert link_keys.may_refer("weight_kg", ["12"], {"member"}) is False
    assert link_keys.may_refer("member_no", [12], {"person"}) is True
