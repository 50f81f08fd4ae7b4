"""What a call on an event-sourced state is shown: the entities folded from their events (a
log named unlike the zoo's bank: ``stream``/``version``/``name``/``payload``)."""

from __future__ import annotations

import json
from typing import Any

from mcp_sim.prompting.grounding import Grounding, ground
from mcp_sim.prompting.state_view import StateView
from mcp_sim.runtime.state_index import StateIndex
from mcp_sim.spec.world import World
from tests.runtime.test_event_log import order_events


def world_of(state: dict[str, Any]) -> World:
    def tool(name: str, *arguments: str) -> dict[str, Any]:
        properties = {a: {"type": "string"} for a in arguments}
        return {
            "name": name,
            "description": f"{name}.",
            "input_schema": {"type": "object", "properties": properties},
        }

    tools = [
        tool("get_order", "order_id"),
        tool("order_lines", "order_id", "until"),
        tool("find_orders", "customer", "carrier", "placed_from"),
        tool("add_item", "order_id", "sku") | {"effect": "write"},
    ]
    return World.model_validate(
        {"world": "t", "title": "T", "description": "Orders.", "state": state, "tools": tools}
    )


def view_of(tool: str, arguments: dict[str, Any], room: int = 6000) -> str:
    state = {"shop": {"name": "s"}, "log": order_events()}
    world = world_of(state)
    index = StateIndex(world, state)
    grounding = ground(
        index.overlay_of(state), state, world.tool(tool), arguments, tools=world.tools
    )
    assert grounding.events is not None
    assert not [p for p in grounding.picks if p.startswith("/log/")]
    return grounding.events.render(room)


def test_a_call_naming_an_entity_gets_its_projection_and_its_events() -> None:
    text = view_of("get_order", {"order_id": "ord-0002"})
    row = json.loads(text.split("ord-0002 (5 events, ")[1].split("): ", 1)[1].split("\n")[0])
    assert row["order_id"] == "ord-0002" and row["customer"] == "Customer 2"
    assert row["carrier"] == "gls" and row["shipped_at"].startswith("2024-03-01T10:")
    assert "ItemAdded, ItemRemoved, ReturnLinked move numbers" in text
    assert '"ItemAdded":{"count":2,"qty":3,"price":14.5' in text
    assert text.count('"stream"') == 1  # only in the heading: each event drops it
    assert '"version":5,' in text and "its 5 events, oldest first:" in text


def test_an_entity_is_shown_with_the_entities_its_events_name_and_the_totals() -> None:
    text = view_of("get_order", {"order_id": "ord-0001"})
    assert 'the entities its events name (by "original")' in text
    partner = '{"order_id":"ord-0002","customer":"Customer 2","currency":"EUR",'
    partner += '"shipping_fee":4.9,"linked":3.0}'
    assert f"  {partner}" in text.splitlines()


def test_a_write_is_told_the_numbers_the_events_it_appends_take() -> None:
    """The log numbers each order's events (a version): the next is the order's."""
    text = view_of("add_item", {"order_id": "ord-0002", "sku": "SKU-9"})
    assert 'go at the end of /log, numbered on: {"version":6}, then {"version":7}.' in text


def test_a_date_bound_folds_the_entity_as_of_that_day() -> None:
    """ord-0030's events are the last of the second of March: up to the first, none."""
    text = view_of("order_lines", {"order_id": "ord-0030", "until": "2024-03-01"})
    assert "as of 2024-03-01 (its 0 events up to the end of it)" in text
    assert "its 0 events between the call's dates" in text


def test_a_search_naming_no_entity_is_answered_from_every_projection() -> None:
    text = view_of("find_orders", {"customer": "Customer 3", "carrier": "dhl"})
    # Customer 3 placed every seventh order; every fourth is not shipped; dhl ships a third.
    found = [n for n in range(40) if n % 7 == 3 and n % 4 and n % 3 == 0]
    assert f'customer = "Customer 3"; carrier = "dhl"): {len(found)} meet all' in text
    shown = [json.loads(line[2:])["order_id"] for line in text.splitlines() if line[:3] == "- {"]
    assert shown == [f"ord-{n:04d}" for n in found]


def test_the_view_of_a_large_log_holds_the_projection_within_its_budget() -> None:
    state = {"shop": {"name": "s"}, "log": order_events(400)}
    world = world_of(state)
    view = StateView(world, budget_tokens=3000)
    text = view.render(
        state, None, [], tool=world.tool("get_order"), arguments={"order_id": "ord-0007"}
    )
    assert len(text) < 3000 * 3
    assert "**Event log /log**" in text and '"order_id":"ord-0007"' in text


def test_an_entity_numbered_in_the_log_is_named_by_its_number_as_text_too() -> None:
    events: list[dict[str, Any]] = [
        {"seq": n, "type": "created", "id": n, "at": f"2025-01-{n % 28 + 1:02d}T00:00:00Z"}
        | {"data": {"boat_no": n, "name": f"Boat {n}"} if n % 2 else {"port": "Hull"}}
        for n in range(1, 81)
    ]
    for event in events[1::2]:
        event |= {"type": "moored", "id": event["id"] - 1}
    state = {"boats": {"events": events}}
    world = world_of(state)
    index = StateIndex(world, state)
    tool = world.tool("get_order")
    grounding = ground(index.overlay_of(state), state, tool, {"number": "7"}, tools=world.tools)
    assert grounding.events is not None and grounding.events.named == [7]
    assert '{"boat_no":7,"name":"Boat 7",' in grounding.events.render(4000)


def test_a_search_whose_arguments_name_no_field_reads_the_entities_as_records() -> None:
    """``buyer`` names no field of the orders: the usual field-aware search over the folded
    entities ties it to ``customer`` by its value."""
    state = {"shop": {"name": "s"}, "log": order_events(400)}
    world = world_of(state)
    index = StateIndex(world, state)
    arguments = {"buyer": "Customer 3", "carrier": "dhl"}
    tool = world.tool("find_orders")
    grounding = ground(index.overlay_of(state), state, tool, arguments, tools=world.tools)
    assert grounding.folded is not None and grounding.events is not None
    (found,) = grounding.folded.searches
    wanted = [n for n in range(400) if n % 7 == 3 and n % 4 and n % 3 == 0]
    assert found.full == [f"/entities/ord-{n:04d}" for n in wanted]
    view = StateView(world, budget_tokens=3000)
    text = view.render(state, None, [], tool=tool, arguments=arguments)
    assert "the entities folded from /log, as records at /entities/ID" in text
    assert f"- /entities/ord-{wanted[0]:04d}: " in text


def test_an_aggregate_naming_another_collection_sums_up_its_records_not_the_entities() -> None:
    """A ranking of the beds beside a log of harvests that name their bed: the beds are
    summed up, not the harvests folded from the log."""
    beds = [{"bed_id": f"bed_{n}", "ph": 5 + (n * 7 % 30) / 10} for n in range(30)]
    harvests: list[dict[str, Any]] = []
    for n in range(300):
        at = f"2025-01-{n % 28 + 1:02d}T00:00:00Z"
        created = {"id": 1000 + n, "bed_url": f"/beds/bed_{n % 30}", "weight": 100.0 + n}
        updated = {"on": "2025-11-14", "weight": 120.0 + n, "grade": "AB"[n % 2]}
        harvests += [
            {"seq": 2 * n + 1, "type": "created", "id": 1000 + n, "at": at, "data": created},
            {"seq": 2 * n + 2, "type": "updated", "id": 1000 + n, "at": at, "data": updated},
        ]
    state = {"beds": beds, "harvests": {"events": harvests}}
    spec = {
        "name": "top_beds_by_ph",
        "description": "The n beds with the largest ph.",
        "input_schema": {"type": "object", "properties": {"n": {"type": "integer"}}},
    }
    world = World.model_validate(
        {"world": "t", "title": "T", "description": "Beds.", "state": state, "tools": [spec]}
    )
    overlay = StateIndex(world, state).overlay_of(state)
    grounding = Grounding(overlay, state, world.tools)
    grounding.fold(world.tool("top_beds_by_ph"), {"n": 3})
    assert grounding.events is None and grounding.folded is None
