"""Field-aware retrieval on small hand-made states of several shapes: argument names read as
fields and ranges, values matched to the field that holds them, records ranked with those
meeting every constraint first, the "N meet, M shown" note, joins and aggregates."""

from __future__ import annotations

from typing import Any

from mcp_sim.prompting.aggregate_calls import is_aggregate
from mcp_sim.prompting.aggregates import summarize
from mcp_sim.prompting.constraints import read_collection
from mcp_sim.prompting.field_names import name_score, read_argument, tokens
from mcp_sim.prompting.field_search import FieldSearch
from mcp_sim.prompting.field_tables import FieldTables
from mcp_sim.prompting.grounding import ground
from mcp_sim.prompting.record_fields import field_paths, path_words
from mcp_sim.prompting.records_section import records_section
from mcp_sim.prompting.search_count import count_field
from mcp_sim.prompting.search_page import Page, page_asked
from mcp_sim.runtime.state_index import StateIndex, StateOverlay
from mcp_sim.spec.world import ToolSpec, World

AIRPORTS = ["JFK", "LAX", "ORD", "SEA", "DEN", "MIA"]


def world_of(state: dict[str, Any], *tools: tuple[str, str]) -> World:
    return World.model_validate(
        {
            "world": "t",
            "title": "T",
            "description": "A hand-made state.",
            "state": state,
            "tools": [
                {"name": n, "description": d, "input_schema": {"type": "object"}} for n, d in tools
            ],
        }
    )


def overlay_of(world: World) -> StateOverlay:
    return StateIndex(world, world.state).overlay_of(world.state)


def flights_state() -> dict[str, Any]:
    """Flights keyed by number, each with a calendar keyed by date (a per-record map)."""
    flights: dict[str, Any] = {}
    for i in range(36):
        origin, destination = AIRPORTS[i % 6], AIRPORTS[(i // 6 + i + 1) % 6]
        if origin == destination:
            destination = AIRPORTS[(i + 2) % 6]
        flights[f"FL{i:03d}"] = {
            "flight_number": f"FL{i:03d}",
            "origin": origin,
            "destination": destination,
            "dates": {
                f"2025-05-{d:02d}": {"status": "available", "price": 100 + i + d}
                for d in range(1, 29)
            },
        }
    return {"flights": flights}


def users_state() -> dict[str, Any]:
    """Users in an array with nested names and addresses, and orders linking to them."""
    users = [
        {
            "user_id": f"u{i}",
            "name": {"first_name": ["Ann", "Bob", "Cy"][i % 3], "last_name": ["Lee", "Ng"][i % 2]},
            "address": {"city": ["Oslo", "Rome", "Lima", "Pune"][i % 4], "zip": f"{10000 + i}"},
            "age": 20 + i,
        }
        for i in range(40)
    ]
    orders = [
        {"order_id": f"o{i}", "user_id": f"u{i % 40}", "total": 10.0 * i, "status": "paid"}
        for i in range(60)
    ]
    return {"users": users, "orders": orders}


def test_names_are_read_as_fields_and_ranges() -> None:
    assert tokens("departureDate") == tokens("departure_date") == ("departure", "date")
    assert tokens("cities") == ("city",)
    assert read_argument("min_price").op == "min"
    assert read_argument("price_max").words == ("price",)
    assert read_argument("after").op == "min" and not read_argument("after").words
    assert read_argument("title_starts").op == "prefix"
    assert read_argument("q").op == "text"
    assert read_argument("limit").control and read_argument("sort_by").control
    assert read_argument("from").ambiguous_bound
    # A bound's last word outranks a first word that is the field's own (``max_kmh``).
    upper, lower = read_argument("max_kmh_to"), read_argument("max_kmh_from")
    assert (upper.op, lower.op) == ("max", "min") and upper.words == lower.words == ("max", "kmh")
    city = path_words("address/city", "/users")
    assert name_score(("city",), city) == 1.0
    assert name_score(("address", "city"), city) == 1.0
    assert name_score(("user",), path_words("user_id", "/orders")) >= 0.9
    assert name_score(("date",), path_words("dates/#", "/flights")) == 1.0
    assert name_score(("from",), path_words("origin", "/flights")) > 0
    assert name_score(("colour",), path_words("price", "/x")) == 0.0


def test_paths_name_nested_objects_arrays_and_maps_keyed_by_date() -> None:
    paths = field_paths(flights_state()["flights"]["FL001"])
    assert "dates/#" in paths and "dates/*/price" in paths and "origin" in paths
    assert "items/*/sku" in field_paths({"items": [{"sku": "a"}, {"sku": "b"}]})


def test_trip_ends_claim_their_own_fields_and_the_date_focuses_the_calendar() -> None:
    world = world_of(flights_state(), ("search_direct_flight", "Direct flights."))
    overlay = overlay_of(world)
    arguments = {"from": "JFK", "to": "ORD", "date": "2025-05-03"}
    result, *_ = FieldSearch(overlay, world.state).search(
        world.tool("search_direct_flight"), arguments
    )
    assert result is not None
    fields = {c.argument: c.fields for c in result.constraints}
    assert fields == {"from": ("origin",), "to": ("destination",), "date": ("dates/#",)}
    flights = world.state["flights"]
    expected = [
        f"/flights/{k}"
        for k, f in flights.items()
        if f["origin"] == "JFK" and f["destination"] == "ORD"
    ]
    # Few flights go direct: trips of two legs follow them.
    assert result.full[: len(expected)] == expected and expected
    assert result.join is not None and result.join.direct == len(expected)
    focus = result.focus_of(expected[0], flights[expected[0].rsplit("/", 1)[1]])
    assert focus == {"/dates/2025-05-03"}


def test_values_without_a_fitting_name_match_the_field_that_holds_them() -> None:
    world = world_of(users_state(), ("find_user", "Find a user."))
    schema = FieldTables.of(StateIndex(world, world.state)).schema(
        next(c for c in StateIndex(world, world.state).collections if c.pointer == "/users")
    )
    reading = read_collection(schema, {"who": "Bob", "town": "Rome"})
    assert {c.argument: c.fields for c in reading.constraints} == {
        "who": ("name/first_name",),
        "town": ("address/city",),
    }


def test_records_meeting_every_constraint_come_first_and_ranges_bound() -> None:
    world = world_of(users_state(), ("find_users", "Find users."))
    overlay = overlay_of(world)
    tool = world.tool("find_users")
    arguments = {"first_name": "Ann", "city": "Oslo", "min_age": 30}
    result, *_ = FieldSearch(overlay, world.state).search(tool, arguments)
    assert result is not None
    users = world.state["users"]
    expected = [
        f"/users/{i}"
        for i, u in enumerate(users)
        if u["name"]["first_name"] == "Ann" and u["address"]["city"] == "Oslo" and u["age"] >= 30
    ]
    assert result.full == expected and expected
    assert all(met < 3 for _, met in result.partial)
    assert [met for _, met in result.partial] == sorted(
        (met for _, met in result.partial), reverse=True
    )
    grounding = ground(overlay, world.state, tool, arguments)
    picks = list(grounding.picks.values())
    complete = [p.pointer for p in picks if p.complete]
    assert complete == expected
    assert picks[: len(expected)] == [grounding.picks[p] for p in expected]


def test_the_view_says_how_many_meet_when_not_all_fit() -> None:
    world = world_of(users_state(), ("find_users", "Find users."))
    overlay = overlay_of(world)
    arguments = {"last_name": "Lee"}
    grounding = ground(overlay, world.state, world.tool("find_users"), arguments)
    picks = list(grounding.picks.values())
    roomy = records_section(world.state, picks, grounding.searches, 20_000)
    assert "20 records meet it, all shown below" in roomy
    tight = records_section(world.state, picks, grounding.searches, 2_000)
    assert "20 records meet it;" in tight and "not shown for room" in tight
    assert len(tight) <= 2_000


def test_changed_records_are_searched_as_they_are_now() -> None:
    world = world_of(users_state(), ("find_users", "Find users."))
    overlay = overlay_of(world)
    state = {**world.state, "users": [dict(u) for u in world.state["users"]]}
    state["users"][1] = {**state["users"][1], "age": 99}
    patch = [{"op": "replace", "path": "/users/1/age", "value": 99}]
    moved = overlay.advance(world.state, state, patch)
    result, *_ = FieldSearch(moved, state).search(world.tool("find_users"), {"min_age": 90})
    assert result is not None and result.full == ["/users/1"]


def test_a_linked_collection_is_searched_beside_a_lookup() -> None:
    world = world_of(users_state(), ("user_orders", "A user's orders."))
    overlay = overlay_of(world)
    result, *_ = FieldSearch(overlay, world.state).search(
        world.tool("user_orders"), {"user_id": "u3"}
    )
    assert result is not None and result.collection.pointer == "/orders"
    assert result.full == ["/orders/3", "/orders/43"]


def test_text_arguments_match_words_of_documents() -> None:
    docs = {
        f"doc-{i}": {"title": f"How to reset {t}", "body": f"Open the {t} panel and hold {w}."}
        for i, (t, w) in enumerate(
            [("router", "reset"), ("hub", "power"), ("router", "power"), ("lamp", "switch")]
        )
    }
    world = world_of({"kb": docs}, ("search_kb", "Search articles."))
    result, *_ = FieldSearch(overlay_of(world), world.state).search(
        world.tool("search_kb"), {"q": "router power"}
    )
    assert result is not None and result.full == ["/kb/doc-2"]


def test_aggregates_are_computed_from_the_state() -> None:
    world = world_of(
        users_state(),
        ("order_stats", "How many orders a status has and their total."),
        ("list_all_cities", "The cities of the users."),
    )
    overlay = overlay_of(world)
    tool = world.tool("order_stats")
    assert is_aggregate(tool)
    grounding = ground(overlay, world.state, tool, {"status": "paid"})
    assert grounding.summary is not None
    values = grounding.summary.values
    assert values["orders"] == 60
    assert values["sum_total"] == sum(10 * i for i in range(60))
    assert values["max_total"] == 590
    text = grounding.summary.render(4000)
    assert text.startswith("**Summary computed from the state**") and '"orders": 60' in text
    cities = summarize(overlay, world.state, _tool("list_all_cities", "The cities."), None)
    assert cities is None or "users" in cities.values
    users = summarize(overlay, world.state, _tool("list_users_by_city", "Users per city."), None)
    assert users is not None and users.values["cities"] == ["Lima", "Oslo", "Pune", "Rome"]
    assert users.values["city_counts"] == {
        "Lima": 10,
        "Oslo": 10,
        "Pune": 10,
        "Rome": 10,
    }


def _tool(name: str, description: str) -> ToolSpec:
    return ToolSpec.model_validate(
        {"name": name, "description": description, "input_schema": {"type": "object"}}
    )


def test_a_trip_no_record_makes_alone_is_shown_as_two_legs() -> None:
    routes = [("JFK", "ORD"), ("ORD", "SEA"), ("JFK", "DEN"), ("DEN", "SEA"), ("LAX", "MIA")]
    routes += [("MIA", "LAX"), ("JFK", "MIA"), ("SEA", "JFK"), ("ORD", "LAX"), ("LAX", "DEN")]
    flights = {
        f"FL{i:03d}": {
            "flight_number": f"FL{i:03d}",
            "origin": a,
            "destination": b,
            "dates": {f"2025-05-{d:02d}": {"price": 100 + d} for d in range(1, 20)},
        }
        for i, (a, b) in enumerate(routes * 3)
    }
    world = world_of({"flights": flights}, ("search_onestop_flight", "One-stop flights."))
    arguments = {"from": "JFK", "to": "SEA", "date": "2025-05-07"}
    overlay = overlay_of(world)
    tool = world.tool("search_onestop_flight")
    result, *_ = FieldSearch(overlay, world.state).search(tool, arguments)
    assert result is not None and result.join is not None
    assert result.join.middle == ["den", "ord"]
    legs = [
        (flights[p.rsplit("/", 1)[1]]["origin"], flights[p.rsplit("/", 1)[1]]["destination"])
        for p in result.full
    ]
    assert sorted(set(legs)) == [("DEN", "SEA"), ("JFK", "DEN"), ("JFK", "ORD"), ("ORD", "SEA")]
    grounding = ground(overlay, world.state, tool, arguments)
    text = records_section(world.state, list(grounding.picks.values()), grounding.searches, 30_000)
    assert "make two legs" in text and '"2025-05-07":{"price":107}' in text


def test_people_in_a_tree_are_found_at_any_depth() -> None:
    def unit(code: str, depth: int, people: list[tuple[str, int]]) -> dict[str, Any]:
        members = [
            {"emp_id": f"{code}-{i}", "name": n, "grade": g} for i, (n, g) in enumerate(people)
        ]
        below = [unit(f"{code}{k}", depth + 1, people) for k in range(2)] if depth < 3 else []
        return {"code": code, "members": members, "units": below}

    people = [("Ana Lee", 3), ("Bob Ng", 7), ("Ana Ng", 9)]
    state = {"divisions": [unit(f"D{i}", 1, people) for i in range(3)]}
    world = world_of(state, ("find_people", "People by name and grade."))
    overlay = overlay_of(world)
    result, *_ = FieldSearch(overlay, world.state).search(
        world.tool("find_people"), {"name_starts": "Ana", "min_grade": 5}
    )
    assert result.nested == "members"
    assert "/divisions/0/members/2" in result.full
    assert "/divisions/2/units/1/units/0/members/2" in result.full
    assert len(result.full) == 3 * 7  # one per unit: 3 divisions of 1 + 2 + 4 units
    assert all(p.endswith("/members/2") for p in result.full)


def test_dates_bound_timestamps_and_name_their_day() -> None:
    events = [
        {
            "event_id": f"e{i}",
            "kind": ["talk", "demo"][i % 2],
            "at": f"2025-05-{1 + i % 9:02d}T1{i % 10}:00:00",
        }
        for i in range(30)
    ]
    world = world_of({"events": events}, ("find_events", "Events by kind and time."))
    search = FieldSearch(overlay_of(world), world.state)
    tool = world.tool("find_events")
    day, *_ = search.search(tool, {"at": "2025-05-03"})
    assert day.full == [f"/events/{i}" for i in range(30) if 1 + i % 9 == 3]
    window, *_ = search.search(
        tool, {"kind": "demo", "after": "2025-05-08", "before": "2025-05-09"}
    )
    expected = [
        f"/events/{i}" for i, e in enumerate(events) if e["kind"] == "demo" and 1 + i % 9 >= 8
    ]
    assert window.full == expected and expected


def test_a_nested_record_changed_by_a_write_is_searched_as_it_is_now() -> None:
    def units() -> list[dict[str, Any]]:
        return [
            {"code": f"U{k}", "members": [{"emp_id": f"e{i}", "grade": i % 5} for i in range(8)]}
            for k in range(4)
        ]

    world = world_of({"units": units()}, ("find_people", "People by grade."))
    overlay = overlay_of(world)
    now = {"units": units()}
    now["units"][2]["members"][0]["grade"] = 9
    patch = [{"op": "replace", "path": "/units/2/members/0/grade", "value": 9}]
    moved = overlay.advance(world.state, now, patch)
    result, *_ = FieldSearch(moved, now).search(world.tool("find_people"), {"min_grade": 9})
    assert result.nested == "members" and result.full == ["/units/2/members/0"]


def test_where_a_value_sits_is_looked_up_in_unchanged_records_and_walked_in_changed_ones() -> None:
    world = world_of(flights_state(), ("search_flights", "Flights."))
    overlay = overlay_of(world)
    flights = {k: {**f, "dates": dict(f["dates"])} for k, f in world.state["flights"].items()}
    flights["FL000"]["dates"]["2025-06-01"] = {"status": "available", "price": 90}
    patch = [{"op": "add", "path": "/flights/FL000/dates/2025-06-01", "value": {"price": 90}}]
    state = {"flights": flights}
    moved = overlay.advance(world.state, state, patch)
    tool = world.tool("search_flights")
    result, *_ = FieldSearch(moved, state).search(tool, {"date": "2025-05-03"})
    assert result.places is not None
    (constraint,) = result.constraints
    assert result.places.of("/flights/FL001", "dates/#", constraint) == ["/dates/2025-05-03"]
    assert result.places.of("/flights/FL000", "dates/#", constraint) is None
    for pointer in ("/flights/FL000", "/flights/FL001"):
        record = flights[pointer.rsplit("/", 1)[1]]
        assert result.focus_of(pointer, record) == {"/dates/2025-05-03"}
    (changed, *_) = FieldSearch(moved, state).search(tool, {"date": "2025-06-01"})
    assert changed.full == ["/flights/FL000"]
    assert changed.focus_of("/flights/FL000", flights["FL000"]) == {"/dates/2025-06-01"}


def test_an_argument_that_rules_a_value_out_keeps_the_other_records() -> None:
    assert read_argument("city_not") == read_argument("notCity")
    assert read_argument("cityNotIn").op == "ne" and read_argument("city_not").words == ("city",)
    world = world_of(users_state(), ("find_users", "Find users."))
    overlay = overlay_of(world)
    arguments = {"first_name": "Ann", "city_not": "Oslo", "last_name_not": ["Ng"]}
    grounding = ground(overlay, world.state, world.tool("find_users"), arguments)
    (search,) = grounding.searches
    users = world.state["users"]
    expected = [
        f"/users/{i}"
        for i, u in enumerate(users)
        if u["name"]["first_name"] == "Ann"
        and u["address"]["city"] != "Oslo"
        and u["name"]["last_name"] != "Ng"
    ]
    assert search.full == expected and expected
    described = "; ".join(c.describe() for c in search.reading.constraints)
    assert 'address/city ≠ "Oslo"' in described and 'is none of ["Ng"]' in described


def test_a_search_answering_its_records_beside_their_count_is_shown_the_count() -> None:
    world = world_of(users_state(), ("find_users", "Find users."))
    plain_tool = world.tool("find_users")
    assert plain_tool is not None
    tool = plain_tool.model_copy(
        update={"output_schema": {"type": "object", "required": ["matches", "totalCount"]}}
    )
    overlay = overlay_of(world)
    grounding = ground(overlay, world.state, tool, {"last_name": "Lee"})
    picks = list(grounding.picks.values())
    section = records_section(world.state, picks, grounding.searches, 2_000)
    assert '"totalCount": 20' in section and "20 records meet it" in section
    plain = ground(overlay, world.state, plain_tool, {"last_name": "Lee"})
    assert "totalCount" not in records_section(world.state, picks, plain.searches, 2_000)
    listed = {"type": "object", "properties": {"count": {"type": "array"}}}
    assert count_field(tool.model_copy(update={"output_schema": listed})) is None


def test_the_page_a_search_asks_for_is_shown_first() -> None:
    world = world_of(users_state(), ("find_users", "Find users."))
    overlay = overlay_of(world)
    lees = [
        f"/users/{i}" for i, u in enumerate(world.state["users"]) if u["name"]["last_name"] == "Lee"
    ]
    arguments = {"last_name": "Lee", "limit": 5, "offset": 5}
    grounding = ground(overlay, world.state, world.tool("find_users"), arguments)
    (search,) = grounding.searches
    assert search.full[:5] == lees[5:10] and sorted(search.full) == sorted(lees)
    section = records_section(
        world.state, list(grounding.picks.values()), grounding.searches, 3_000
    )
    assert "the page asked for is records 6 to 10 of them, shown first" in section
    paged = {
        "type": "object",
        "properties": {
            "page": {"type": "integer", "description": "The 0-based page."},
            "per_page": {"type": "integer", "description": "How many (default 4)."},
            "size_min": {"type": "integer"},
        },
    }
    tool = world.tool("find_users")
    assert tool is not None
    zero_based = tool.model_copy(update={"input_schema": paged})
    assert page_asked(zero_based, {"page": 2, "size_min": 3}) == Page(8, 4)
    assert page_asked(tool, {"page": 2, "page_size": 3}) == Page(3, 3)
    assert page_asked(tool, {"size_min": 3}) is None


def test_a_loose_name_names_no_field_whose_known_values_lack_the_value() -> None:
    trips = [
        {"trip_id": f"t{i}", "vehicle": {"type": "vehicles", "id": f"v{i % 9}"}, "km": i}
        for i in range(60)
    ]
    state = {"trips": trips}
    world = world_of(state, ("filter_vehicles", "Find vehicles."))
    index = StateIndex(world, world.state)
    schema = FieldTables.of(index).schema(next(c for c in index.collections))
    assert read_collection(schema, {"power_type": "diesel"}).constraints == ()
    (kept,) = read_collection(schema, {"power_type": "vehicles"}).constraints
    assert kept.fields == ("vehicle/type",)


def test_an_argument_naming_an_object_matches_the_value_inside_that_object() -> None:
    # A person's name is held as the assignee's, the reporter's and a history author's; the
    # argument names the object (``assignee``), not the leaf (``displayName``).
    people = ["Ana Berg", "Ola Dahl", "Kim Moe", "Eva Lund"]

    def person(n: int) -> dict[str, Any]:
        return {"accountId": f"acc-{n % 4}", "displayName": people[n % 4]}

    tickets = [
        {
            "key": f"T-{n}",
            "assignee": person(n),
            "reporter": person(n + 1),
            "history": [{"author": person(n + 2), "change": "status"}],
        }
        for n in range(40)
    ]
    world = world_of({"tickets": tickets}, ("assigned_work", "A person's assigned tickets."))
    index = StateIndex(world, world.state)
    schema = FieldTables.of(index).schema(index.collections[0])
    reading = read_collection(schema, {"assignee": "Kim Moe"})
    assert {c.argument: c.fields for c in reading.constraints} == {
        "assignee": ("assignee/displayName",)
    }


def test_words_no_record_holds_whole_are_sought_inside_coded_fields() -> None:
    """A catalogue whose fields go by codes no argument's name fits: a title word and a
    surname's start, which no record holds whole, are sought at a word's start inside the
    short values; the records holding both come first."""
    words, names = ["indigo", "amber", "kelp", "vale"], ["Laine", "Petrov", "Quist"]
    records = [
        {"ti": f"{words[i % 4].title()} {words[(i + 1) % 4]} :", "ma": f"{names[i % 3]}, Uma,"}
        for i in range(60)
    ]
    world = world_of({"records": records}, ("search_catalog", "Records by word and author."))
    result, *_ = FieldSearch(overlay_of(world), world.state).search(
        world.tool("search_catalog"), {"title_word": "indigo", "author": "Lain"}
    )
    expected = [
        f"/records/{i}"
        for i, r in enumerate(records)
        if "indigo" in r["ti"].lower() and r["ma"].startswith("Lain")
    ]
    assert expected and result.full == expected
