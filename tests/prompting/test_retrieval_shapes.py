"""Retrieval on shapes the first searches missed: values deep inside a tree, the entry a
nested match sits in, and the keys of records that do not hold their own key."""

from __future__ import annotations

from typing import Any

from mcp_sim.prompting.grounding import Grounding, ground
from mcp_sim.prompting.key_names import key_label, key_names, key_shape
from mcp_sim.prompting.records_section import records_section
from mcp_sim.prompting.shown_records import record_pointers
from mcp_sim.prompting.tree_paths import descend, enclosing
from mcp_sim.runtime.state_index import StateIndex
from mcp_sim.spec.world import World


def world_of(state: dict[str, Any], tools: list[dict[str, Any]]) -> World:
    return World.model_validate(
        {"world": "t", "title": "T", "description": "A hand-made state.", "state": state}
        | {"tools": tools}
    )


def tool(name: str, **arguments: str) -> dict[str, Any]:
    properties = {a: {"type": "string", "description": d} for a, d in arguments.items()}
    return {
        "name": name,
        "description": f"{name}.",
        "input_schema": {"type": "object", "properties": properties},
    }


def tree_state(depth: int) -> dict[str, Any]:
    """Divisions of units nested ``depth`` levels, each unit with one person."""

    def unit(code: str, level: int) -> dict[str, Any]:
        below = [unit(f"{code}{k}", level + 1) for k in range(2)] if level < depth else []
        person = {"emp_id": f"E-{code}", "name": f"Person {code}", "grade": level}
        return {"code": code, "name": f"Unit {code}", "members": [person], "units": below}

    return {"company": {"divisions": [unit(f"D{i}", 1) for i in range(3)]}}


def view_of(world: World, name: str, arguments: dict[str, Any]) -> str:
    index = StateIndex(world, world.state)
    overlay = index.overlay_of(world.state)
    grounding = ground(overlay, world.state, world.tool(name), arguments)
    picks = list(grounding.picks.values())
    names = key_names(world, index)
    return records_section(world.state, picks, grounding.searches, 30_000, None, names)


def test_a_value_a_dozen_levels_down_a_tree_names_its_record() -> None:
    world = world_of(tree_state(7), [tool("get_employee", employee_id="Employee id.")])
    deepest = "D1" + "0" * 6
    index = StateIndex(world, world.state)
    assert "/company/divisions/1" in index.values[f"e-{deepest}".casefold()]
    text = view_of(world, "get_employee", {"employee_id": f"E-{deepest}"})
    assert f'"name":"Person {deepest}"' in text


def test_a_nested_match_is_shown_with_the_entry_it_sits_in() -> None:
    world = world_of(tree_state(4), [tool("find_people", emp_id="Employee id.")])
    text = view_of(world, "find_people", {"emp_id": "E-D2010"})
    person = "/company/divisions/2/units/0/units/1/units/0/members/0"
    unit = "/company/divisions/2/units/0/units/1/units/0"
    assert f"- {person}: " in text
    # The unit the person is in: its scalar fields, its people and sub-units outlined.
    line = next(x for x in text.splitlines() if x.startswith(f"- {unit} "))
    assert '"code":"D2010"' in line and '"name":"Unit D2010"' in line
    assert '"members":"<outlined: array of 1 items>"' in line and "Person D2010" not in line
    assert enclosing(person, "/company/divisions") == unit
    assert enclosing("/company/divisions/2/members/0", "/company/divisions") == (
        "/company/divisions/2"
    )


def catalog_world() -> World:
    catalog = {
        f"{'ABC'[i % 3]}{10000 + i}-{i % 90 + 10}": {"name": f"Item {i}", "cost": i}
        for i in range(30)
    }
    flights = {f"HAT{i:03d}": {"origin": "JFK", "seats": i} for i in range(20)}
    depots = {f"DP{i:02d}": {"depotCode": f"DP{i:02d}", "city": f"C{i}"} for i in range(5)}
    tools = [
        tool("item_info", sku="Stock-keeping unit, e.g. C10234-55."),
        tool("find_items", name_prefix="Start of the name."),
        tool("get_flight", flight_number="Flight number."),
        tool("get_depot", code="Depot code, e.g. DP03."),
    ]
    return world_of({"catalog": catalog, "flights": flights, "depots": depots}, tools)


def test_the_tools_name_the_key_of_records_that_do_not_hold_it() -> None:
    assert key_shape("C10234-55") == key_shape("B11109-41") == "A9-9"
    assert key_shape("HAT001") == "A9" and key_shape("s2023") == "a9"
    world = catalog_world()
    names = key_names(world, StateIndex(world, world.state))
    # By the example's shape (sku), by name (flight_number); depots hold their own code.
    assert names == {"/catalog": "sku", "/flights": "flight_number"}
    assert key_label("/catalog/A10000-10", names) == ' (key "sku":"A10000-10")'
    assert key_label("/depots/DP01", names) == ""


def test_a_searched_record_is_shown_with_its_key_named_and_still_known_by_pointer() -> None:
    world = catalog_world()
    text = view_of(world, "find_items", {"name_prefix": "Item 2"})
    assert '- /catalog/C10002-12 (key "sku":"C10002-12"): {"cost":2' in text
    assert "/catalog/C10002-12" in record_pointers(text)
    outlined = '- /catalog/A1-2 (key "sku":"A1-2") (large parts outlined): {"a":1}'
    assert record_pointers(outlined) == ()


def test_a_path_argument_names_the_entry_it_leads_to_not_a_namesake_elsewhere() -> None:
    def folder(names: list[str]) -> dict[str, Any]:
        return {"type": "dir", "children": {n: {"type": "file", "size": len(n)} for n in names}}

    inner = folder(["deep.txt"])
    top = folder(["x.log"]) | {"children": {"x.log": {"type": "file"}, "basalt22": inner}}
    root = {f"d{i}": folder([f"f{i}.txt"]) for i in range(8)}
    root |= {"alpha82": top, "basalt22": folder(["decoy.txt"])}
    world = world_of({"root": {"children": root}}, [tool("ls", path="Absolute path.")])
    text = view_of(world, "ls", {"path": "/alpha82/basalt22"})
    assert text.index("/root/children/alpha82") < text.index("deep.txt")
    assert "decoy.txt" not in text
    units = {"code": "D1", "units": [{"code": "U7", "units": [{"code": "U9", "n": 1}]}]}
    assert descend(units, ["U7", "U9"]) == "/units/0/units/0"
    assert descend(top, ["basalt22", "deep.txt"]) == "/children/basalt22/children/deep.txt"
    assert descend(top, ["nowhere"]) is None


def test_a_text_search_shows_records_whose_own_text_has_the_words_first() -> None:
    articles = []
    for i in range(40):
        own = i % 4 == 3  # every fourth article has the word in its summary
        summary = "Reset the router when its lamp blinks." if own else "Reset the router."
        body = "Wait until the lamp blinks." if not own else "Nothing more."
        articles.append({"slug": f"a-{i}", "summary": summary, "sections": [{"body": body}]})
    world = world_of({"kb": {"articles": articles}}, [tool("search_articles", q="Words.")])
    index = StateIndex(world, world.state)
    overlay = index.overlay_of(world.state)
    grounding = ground(overlay, world.state, world.tool("search_articles"), {"q": "blinks"})
    result = grounding.searches[0]
    assert len(result.full) == 40  # every article has the word somewhere
    assert result.full[:10] == [f"/kb/articles/{i}" for i in range(3, 40, 4)]


def onestop(flights: dict[str, Any], arguments: dict[str, Any]) -> Grounding:
    world = world_of({"flights": flights}, [tool("search_onestop", origin="", destination="")])
    index = StateIndex(world, world.state)
    return ground(
        index.overlay_of(world.state), world.state, world.tool("search_onestop"), arguments
    )


def ends_of(flights: dict[str, Any], pointers: list[str]) -> list[tuple[str, str]]:
    return [
        (flights[p.rsplit("/", 1)[1]]["origin"], flights[p.rsplit("/", 1)[1]]["destination"])
        for p in pointers
    ]


def test_a_trip_of_two_legs_lists_each_first_leg_with_the_legs_it_meets() -> None:
    routes = [("JFK", "ORD"), ("ORD", "SEA"), ("JFK", "DEN"), ("DEN", "SEA"), ("LAX", "MIA")]
    flights = {
        f"FL{i:03d}": {"origin": a, "destination": b, "price": i}
        for i, (a, b) in enumerate(routes * 8)
    }
    join = onestop(flights, {"origin": "JFK", "destination": "SEA"}).searches[0].join
    assert join is not None and join.middle == ["den", "ord"]
    # As a nested-loop join lists trips: the first leg, then the legs it meets; every way
    # through before many of one, each middle keeping at most four records of each leg.
    assert (
        ends_of(flights, join.records)
        == ([("JFK", "ORD")] + [("ORD", "SEA")] * 4 + [("JFK", "DEN")] + [("DEN", "SEA")] * 4)
        + [("JFK", "ORD"), ("JFK", "DEN")] * 3
    )


def test_a_second_leg_leaves_after_the_first_lands() -> None:
    legs = [("JFK", "ORD", "09:00", "11:00"), ("ORD", "SEA", "10:00", "13:00")]
    legs += [("ORD", "SEA", "12:00", "15:00"), ("JFK", "SEA", "08:00", "14:00")]
    flights = {
        f"FL{i}": {"origin": a, "destination": b, "departure_time": d, "arrival_time": t}
        for i, (a, b, d, t) in enumerate(legs)
    }
    search = onestop(flights, {"origin": "JFK", "destination": "SEA"}).searches[0]
    assert search.join is not None and search.join.direct == 1
    # The direct flight first, then the one trip whose second leg leaves after the first lands.
    assert search.full == ["/flights/FL3", "/flights/FL0", "/flights/FL2"]
    note = search.join.describe()
    assert note.startswith("1 record meets all of them; 2 more records make two legs")
    assert "departure_time after the first leg's arrival_time" in note


def test_a_name_on_one_end_of_a_movement_tests_that_ends_fields() -> None:
    def party(city: str) -> dict[str, Any]:
        return {"name": f"P {city}", "address": {"city": city, "country": "NO"}}

    cities = ["Oslo", "Bergen", "Molde"]
    parcels = {
        f"T{i}": {
            "weight_kg": i,
            "sender": party(cities[i % 3]),
            "recipient": party(cities[(i + 1) % 3]),
        }
        for i in range(30)
    }
    world = world_of({"parcels": parcels}, [tool("search_parcels", to_city="", from_city="")])
    index = StateIndex(world, world.state)
    grounding = ground(
        index.overlay_of(world.state),
        world.state,
        world.tool("search_parcels"),
        {"to_city": "Molde", "from_city": "Bergen"},
    )
    search = grounding.searches[0]
    fields = [c.fields for c in search.constraints]
    assert fields == [("recipient/address/city",), ("sender/address/city",)]
    assert search.full == [f"/parcels/T{i}" for i in range(1, 30, 3)]


def test_a_flat_store_record_is_found_by_its_id_part_and_shown_with_its_key_named() -> None:
    state: dict[str, Any] = {f"bike:B1044{i}": {"model": "Cargo", "battery": "7"} for i in range(4)}
    state |= {f"rider:4{i}:profile": {"name": f"Rider {i}"} for i in range(4)}
    tools = [tool("get_bike", bike_id="Bike id."), tool("get_rider", rider_id="Rider id.")]
    world = world_of(state, tools)
    assert key_names(world, StateIndex(world, world.state)) == {
        "/bike:*": "bike_id",
        "/rider:*:profile": "rider_id",
    }
    text = view_of(world, "get_bike", {"bike_id": "B10442"})
    assert '- /bike:B10442 (key "bike_id":"B10442"): {"battery":"7"' in text
    text = view_of(world, "get_rider", {"rider_id": "42"})
    assert '- /rider:42:profile (key "rider_id":42): {"name":"Rider 2"}' in text
