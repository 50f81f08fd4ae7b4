"""Joins a call's answer needs beyond the records its arguments select: records referring to
a looked-up one, records of the collection the tool names that refer to those, and sequences
of nested records going from one value to another."""

from __future__ import annotations

from typing import Any

from mcp_sim.prompting.grounding import Grounding, ground
from mcp_sim.prompting.records_section import records_section
from mcp_sim.prompting.tool_asks import asked_collections
from mcp_sim.runtime.state_index import StateIndex
from mcp_sim.spec.world import World


def world_of(state: dict[str, Any], *tools: str) -> World:
    return World.model_validate(
        {
            "world": "t",
            "title": "T",
            "description": "A hand-made state.",
            "state": state,
            "tools": [
                {"name": n, "description": f"{n}.", "input_schema": {"type": "object"}}
                for n in tools
            ],
        }
    )


def grounded(world: World, tool: str, arguments: dict[str, Any]) -> Grounding:
    index = StateIndex(world, world.state)
    return ground(index.overlay_of(world.state), world.state, world.tool(tool), arguments)


def fleet_state() -> dict[str, Any]:
    """Depots; vehicles naming their depot; drivers naming the vehicle they drive."""
    depots = {f"DP{d}": {"depotCode": f"DP{d}", "city": f"City {d}"} for d in range(4)}
    vehicles = {
        f"VH-{v:04d}": {"vehicleId": f"VH-{v:04d}", "make": "Volvo", "depotCode": f"DP{v % 4}"}
        for v in range(40)
    }
    drivers = {
        f"drv{v}": {"driverId": f"drv{v}", "fullName": f"Driver {v}", "assignedVehicle": vehicle}
        for v, vehicle in enumerate(vehicles)
        if v % 5
    }
    return {"depots": depots, "vehicles": vehicles, "drivers": drivers}


def test_a_tool_naming_another_collection_gets_its_records_that_refer_to_the_found_ones() -> None:
    world = world_of(fleet_state(), "depotDrivers")
    grounding = grounded(world, "depotDrivers", {"code": "DP1"})
    drivers, vehicles = grounding.searches
    assert vehicles.collection.pointer == "/vehicles"
    assert vehicles.full == [f"/vehicles/VH-{v:04d}" for v in range(1, 40, 4)]
    # The drivers of the depot's vehicles: what the tool's name asks for, searched first.
    assert drivers.collection.pointer == "/drivers"
    assert [c.fields for c in drivers.constraints] == [("assignedVehicle",)]
    assert drivers.full == [f"/drivers/drv{v}" for v in range(1, 40, 4) if v % 5]
    picks = list(grounding.picks)
    assert picks[0] == "/depots/DP1" and picks[1] == "/drivers/drv1"
    text = records_section(world.state, list(grounding.picks.values()), grounding.searches, 9000)
    assert '"fullName":"Driver 9"' in text
    assert "… 10 in all: the keys of /vehicles]): 8 records meet it, all shown below." in text


def test_a_lookup_asking_for_a_list_also_finds_the_records_that_hold_its_key() -> None:
    world = world_of(fleet_state(), "depotVehicles")
    grounding = grounded(world, "depotVehicles", {"code": "DP2"})
    (vehicles,) = grounding.searches
    assert vehicles.collection.pointer == "/vehicles"
    assert [c.fields for c in vehicles.constraints] == [("depotCode",)]
    assert next(iter(grounding.picks)) == "/depots/DP2"


def test_the_records_a_tool_names_are_searched_beside_a_record_it_names_by_key() -> None:
    """``findVehicles(depot, fuel)`` names a depot by key, but searches vehicles."""
    state = fleet_state()
    for n, vehicle in enumerate(state["vehicles"].values()):
        vehicle["fuelType"] = ["diesel", "hvo", "lng"][n % 3]
    world = world_of(state, "findVehicles")
    grounding = grounded(world, "findVehicles", {"depot": "DP2", "fuel": "hvo"})
    vehicles = next(s for s in grounding.searches if s.collection.pointer == "/vehicles")
    assert {c.argument for c in vehicles.constraints} == {"depot", "fuel"}
    assert vehicles.full


def test_a_lookup_of_one_record_leaves_the_records_holding_its_key_out() -> None:
    """The depot's record is the answer: its vehicles (whose ``depotCode`` holds its key)
    would only cost the prompt room."""
    world = world_of(fleet_state(), "getDepot")
    grounding = grounded(world, "getDepot", {"code": "DP2"})
    assert grounding.searches == []
    assert next(iter(grounding.picks)) == "/depots/DP2"


def test_a_lookup_by_a_field_named_like_it_keeps_the_records_that_name_it() -> None:
    """A user's orders (``user_id``) stay beside the user's lookup, but the orders of the
    user an order's lookup finds are no list the call asks for."""
    users = {
        f"u{u}": {"name": f"User {u}", "orders": [f"#W{u}{o}" for o in range(3)]} for u in range(6)
    }
    orders = {
        f"#W{u}{o}": {"order_id": f"#W{u}{o}", "user_id": f"u{u}", "total": o}
        for u in range(6)
        for o in range(3)
    }
    world = world_of({"users": users, "orders": orders}, "get_user_details", "get_order_details")
    (found,) = grounded(world, "get_user_details", {"user_id": "u2"}).searches
    assert found.collection.pointer == "/orders" and len(found.full) == 3
    searches = grounded(world, "get_order_details", {"order_id": "#W21"}).searches
    assert [s.collection.pointer for s in searches] == ["/users"]


def test_many_keys_are_described_by_the_first_few() -> None:
    state = fleet_state()
    state["vehicles"] |= {
        f"VH-{v:04d}": {"vehicleId": f"VH-{v:04d}", "make": "MAN", "depotCode": "DP1"}
        for v in range(100, 130)
    }
    state["drivers"] |= {
        f"drv{v}": {"driverId": f"drv{v}", "fullName": f"D {v}", "assignedVehicle": f"VH-{v:04d}"}
        for v in range(100, 130)
    }
    world = world_of(state, "depotDrivers")
    drivers = grounded(world, "depotDrivers", {"code": "DP1"}).searches[0]
    described = drivers.constraints[0].describe()
    assert described.startswith('assignedVehicle = ["VH-0001", "VH-0005", "VH-0009", "VH-0013"')
    assert described.endswith("… 40 in all: the keys of /vehicles]")


def parcels_state() -> dict[str, Any]:
    """Parcels whose events pass facilities in several orders."""
    routes = [["A", "B"], ["B", "A"], ["A", "C", "B"], ["C", "A", "A", "B"], ["A", "C"]]
    parcels = {
        f"P{i}": {
            "service": "economy",
            "events": [{"at": f"2025-01-0{1 + k}", "facility": f} for k, f in enumerate(route)],
        }
        for i, route in enumerate(routes * 3)
    }
    facilities = [{"code": code, "city": f"City {code}"} for code in "ABC"]
    return {"facilities": facilities, "parcels": parcels}


def test_a_movement_from_one_place_to_another_searches_whole_sequences_in_order() -> None:
    world = world_of(parcels_state(), "lane_parcels")
    grounding = grounded(world, "lane_parcels", {"origin": "A", "destination": "B"})
    (search,) = grounding.searches
    # Two values of one field of the events: no single event meets both, a parcel can.
    assert search.nested is None and search.collection.pointer == "/parcels"
    straight = [f"/parcels/P{i}" for i in (0, 3, 5, 8, 10, 13)]
    through = [f"/parcels/P{i}" for i in (2, 7, 12)]
    backwards = [f"/parcels/P{i}" for i in (1, 6, 11)]
    assert search.full == straight + through + backwards


def test_a_tool_naming_a_collection_gets_its_records_the_entries_found_name() -> None:
    accounts = [{"number": str(1000 + 10 * a), "label": f"Account {a}"} for a in range(8)]
    journal = {
        f"JE{e}": {
            "memo": f"Entry {e}",
            "postings": [
                {"account": str(1000 + 10 * (e % 8)), "amount": 5.0},
                {"account": str(1000 + 10 * ((e * 3 + 1) % 8)), "amount": -5.0},
            ],
        }
        for e in range(24)
    }
    world = world_of({"accounts": accounts, "journal": journal}, "counter_accounts")
    grounding = grounded(world, "counter_accounts", {"account": "1020"})
    named, postings = grounding.searches
    assert postings.nested == "postings" and len(postings.full) == 6
    # The accounts on the other side of the account's entries, in order.
    assert named.collection.pointer == "/accounts"
    others = {(e * 3 + 1) % 8 for e in range(24) if e % 8 == 2} | {
        e % 8 for e in range(24) if (e * 3 + 1) % 8 == 2
    }
    assert named.full == [f"/accounts/{a}" for a in sorted(others - {2})]


def test_a_tool_asks_for_the_collections_it_names_in_the_plural_or_answers_a_list_of() -> None:
    collections = ["/depots", "/vehicles", "/drivers", "/service_logs"]
    assert asked_collections("depotDrivers", "The drivers of a depot.", None, collections) == {
        "/drivers"
    }
    assert asked_collections("getDepot", "A depot's record.", None, collections) == set()
    assert asked_collections("list_service_logs", "", None, collections) == {"/service_logs"}
    report = {"type": "object", "properties": {"vehicles": {"type": "array"}}}
    assert asked_collections("depot_report", "A depot.", report, collections) == {"/vehicles"}
    listed = asked_collections("find", "Find.", {"type": "array"}, collections)
    assert listed == set(collections)
