"""Event logs found by their shape and folded into projections, on a log named unlike the
zoo's bank (``stream``/``version``/``name``/``payload``, snake_case times)."""

from __future__ import annotations

from typing import Any

from mcp_sim.runtime.event_fold import event_logs, projections
from mcp_sim.runtime.event_log import EventLog
from mcp_sim.runtime.state_index import StateIndex
from mcp_sim.spec.world import World

CARRIERS = ["dhl", "ups", "gls"]


def order_events(orders: int = 40) -> list[dict[str, Any]]:
    """Orders placed, items added (and one removed), paid, and most of them shipped."""
    events: list[dict[str, Any]] = []

    def emit(stream: str, version: int, name: str, payload: dict[str, Any]) -> None:
        day = 1 + len(events) // 20
        at = f"2024-03-{day:02d}T10:{len(events) % 60:02d}:00Z"
        events.append(
            {"stream": stream, "version": version, "name": name, "recorded_at": at}
            | {"payload": payload}
        )

    for n in range(orders):
        stream = f"ord-{n:04d}"
        placed = {"customer": f"Customer {n % 7}", "currency": "EUR", "shipping_fee": 4.9}
        emit(stream, 1, "OrderPlaced", placed)
        emit(stream, 2, "ItemAdded", {"sku": f"SKU-{n}a", "qty": 2, "price": 10.5})
        emit(stream, 3, "ItemAdded", {"sku": f"SKU-{n}b", "qty": 1, "price": 4.0})
        emit(stream, 4, "ItemRemoved", {"sku": f"SKU-{n}a", "qty": 1, "price": 10.5})
        if n % 4:
            emit(stream, 5, "OrderShipped", {"carrier": CARRIERS[n % 3]})
    for n in range(0, orders, 5):
        emit(f"ord-{n:04d}", 6, "ShippingFeeChanged", {"fee": 0})
    for n in range(1, orders - 1, 10):
        emit(f"ord-{n:04d}", 7, "ReturnLinked", {"original": f"ord-{n + 1:04d}", "refund": 3.0})
    return events


def world_of(state: dict[str, Any]) -> World:
    tool = {"name": "get_order", "description": "An order.", "input_schema": {"type": "object"}}
    return World.model_validate(
        {"world": "t", "title": "T", "description": "Orders.", "state": state, "tools": [tool]}
    )


def test_a_log_is_found_by_the_roles_its_fields_play_whatever_their_names() -> None:
    state = {"log": order_events()}
    index = StateIndex(world_of(state), state)
    (log,) = event_logs(index.overlay_of(state))
    assert (log.pointer, log.stream, log.kind, log.payload) == ("/log", "stream", "name", "payload")
    assert (log.order, log.time, log.parts) == ("version", "recorded_at", ("sku",))
    # Another order's id in a payload refers to it; a kind named after a field sets it.
    assert log.refs == ("original",)
    assert log.aliases == (("ShippingFeeChanged", "fee", "shipping_fee"),)
    assert log.snake and log.time_key("OrderShipped") == "shipped_at"
    assert not log.counted  # each order's events are numbered, not the log's


def test_records_of_one_shape_sharing_a_field_are_no_log() -> None:
    """Orders naming their user, with a status of few values and a time, are records: their
    ``address`` objects hold the same fields whatever the status."""
    orders = [
        {
            "user_id": f"u{n % 9}",
            "status": ["new", "paid", "sent"][n % 3],
            "created_at": f"2024-01-{1 + n % 28:02d}",
            "address": {"city": f"Town {n}", "zip": f"{n:05d}"},
        }
        for n in range(200)
    ]
    state = {"orders": orders}
    index = StateIndex(world_of(state), state)
    assert event_logs(index.overlay_of(state)) == []


def test_an_entity_is_folded_from_its_events_and_refolded_when_events_are_appended() -> None:
    state: dict[str, Any] = {"log": order_events()}
    index = StateIndex(world_of(state), state)
    overlay = index.overlay_of(state)
    log: EventLog = event_logs(overlay)[0]
    folded = projections(overlay, log)
    order = folded.folded["ord-0001"]
    assert order.count == 6 and order.first == "2024-03-01T10:04:00Z"
    assert order.fields == {
        "customer": "Customer 1",
        "currency": "EUR",
        "shipping_fee": 4.9,
        "placed_at": "2024-03-01T10:04:00Z",
        "carrier": "ups",
        "shipped_at": "2024-03-01T10:08:00Z",
    }
    # The kinds that move the numbers are told apart, each with its sums.
    assert folded.moving == {"ItemAdded", "ItemRemoved", "ReturnLinked"}
    assert order.refs == {"ord-0002": {"ReturnLinked": {"count": 1, "refund": 3.0}}}
    assert folded.folded["ord-0005"].fields["shipping_fee"] == 0
    assert order.kinds["ItemAdded"] | {"last_at": ""} == {
        "count": 2,
        "qty": 3,
        "price": 14.5,
        "last_at": "",
    }
    assert order.kinds["ItemRemoved"]["qty"] == 1
    # A kind that moves no number is counted, its settings not summed.
    assert order.kinds["OrderPlaced"] == {"count": 1, "last_at": "2024-03-01T10:04:00Z"}
    assert order.parts["sku"]["SKU-1a"]["removed_at"] == "2024-03-01T10:07:00Z"
    assert "shipped_at" not in folded.folded["ord-0000"].fields
    event = {"stream": "ord-0000", "version": 8, "name": "OrderShipped"}
    event |= {"recorded_at": "2024-03-20T10:00:00Z", "payload": {"carrier": "dhl"}}
    appended = {"log": [*state["log"], event]}
    patch = [{"op": "add", "path": "/log/-", "value": event}]
    later = projections(overlay.advance(state, appended, patch), log)
    assert later.folded["ord-0000"].fields["carrier"] == "dhl"
    assert later.folded["ord-0001"] is order
    assert projections(overlay, log) is folded


def test_records_logged_as_created_then_updated_fold_to_their_latest_values() -> None:
    """A log of records by number (``created`` with some fields and older values, then
    ``updated`` with the rest): the payload's own id field names the id, and a number set
    once at creation and once at the update is no flow."""
    events: list[dict[str, Any]] = []
    for n in range(1, 41):
        created = {"boat_no": n, "name": f"Boat {n}", "length": n + 1}
        for kind, data in (("created", created), ("updated", {"length": n, "port": "Hull"})):
            at = f"2025-01-01T00:{len(events) % 60:02d}:00Z"
            events.append({"seq": len(events) + 1, "type": kind, "id": n, "at": at, "data": data})
    state = {"boats": {"events": events}}
    index = StateIndex(world_of(state), state)
    overlay = index.overlay_of(state)
    (log,) = event_logs(overlay)
    assert (log.stream, log.own, log.refs, log.parts) == ("id", "boat_no", (), ())
    folded = projections(overlay, log)
    assert folded.moving == set()
    assert folded.folded[7].fields == {
        "boat_no": 7,
        "name": "Boat 7",
        "length": 7,
        "created_at": "2025-01-01T00:12:00Z",
        "port": "Hull",
        "updated_at": "2025-01-01T00:13:00Z",
    }


def test_records_sorted_by_number_and_sharing_a_year_are_no_log() -> None:
    """Boats by id, many built in one year, their berths keyed by their home port's piers:
    the shape of a log (a repeating number, a field of few names, an object whose fields
    the name decides, a growing number) but no time and no id field the "events" share."""
    ports = {"Hull": ["north", "south"], "Leith": ["east"], "Wick": ["inner", "outer"]}
    boats = [
        {
            "Id": n,
            "Built": 1990 + n % 30,
            "HomePort": port,
            "Berths": {pier: n % 7 for pier in ports[port]},
        }
        for n in range(300)
        for port in [list(ports)[n % 3]]
    ]
    state = {"boats": boats}
    index = StateIndex(world_of(state), state)
    assert event_logs(index.overlay_of(state)) == []
