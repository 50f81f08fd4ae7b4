"""The records of a few members too large to show, each holding an array of alike items, are
those items: one collection over every member's array, whose pointers stay real."""

from __future__ import annotations

from typing import Any

from mcp_sim.runtime import filed_records
from mcp_sim.runtime.filed_records import member_scalars
from mcp_sim.runtime.member_arrays import member_array
from mcp_sim.runtime.state_index import StateIndex
from mcp_sim.runtime.state_shape import normalize
from mcp_sim.spec.world import World


def world_of(state: dict[str, Any]) -> World:
    return World.model_validate(
        {"world": "t", "title": "T", "description": "A hand-made state.", "state": state}
        | {"tools": [{"name": "get", "description": "Get.", "input_schema": {"type": "object"}}]}
    )


def calendar(team: str, events: int) -> dict[str, Any]:
    """A calendar as jCal keeps it: positional arrays, the events in the third item."""
    items = [
        ["vevent", [["uid", {}, "text", f"{team}-{n}"], ["summary", {}, "text", f"{team} {n}"]], []]
        for n in range(events)
    ]
    return {"name": f"{team} team", "body": ["vcalendar", [["version", {}, "text", "2.0"]], items]}


def station(code: str, readings: int) -> dict[str, Any]:
    return {
        "code": code,
        "readings": [
            {"at": f"2025-01-01T{n % 24:02}:{n % 60:02}", "celsius": n / 10, "wind": n % 9}
            for n in range(readings)
        ],
    }


def test_records_nested_in_large_members_are_one_collection() -> None:
    state = {"calendars": [calendar(team, 400) for team in ("ops", "web", "data")]}
    assert member_array(state["calendars"]) == "body/2"
    index = StateIndex(world_of(state), state)
    (collection,) = index.collections
    assert (collection.pointer, collection.pages, collection.size) == ("/calendars", "body/2", 1200)
    overlay = index.overlay_of(state)
    assert list(overlay.value_hits(normalize("web-17") or "")) == ["/calendars/1/body/2/17"]
    # An event added to a calendar is a record of the collection at once.
    added = ["vevent", [["uid", {}, "text", "web-new"]], []]
    patch = [{"op": "add", "path": "/calendars/1/body/2/-", "value": added}]
    after = {"calendars": [dict(c) for c in state["calendars"]]}
    after["calendars"][1] = {
        "name": "web team",
        "body": ["vcalendar", [], [*calendar("web", 400)["body"][2], added]],
    }
    moved = overlay.advance(state, after, patch)
    assert list(moved.value_hits(normalize("web-new") or "")) == ["/calendars/1/body/2/400"]
    assert moved.record_count("/calendars") == 1201


def test_members_keyed_by_id_holding_their_records_read_alike() -> None:
    # Stations keyed by code, each holding its readings (a top-level array of objects).
    state = {"stations": {code: station(code, 600) for code in ("OSL", "BGO", "TRD")}}
    assert member_array(state["stations"]) == "readings"
    index = StateIndex(world_of(state), state)
    (collection,) = index.collections
    assert (collection.pointer, collection.size, collection.members) == ("/stations", 1800, True)
    overlay = index.overlay_of(state)
    hits = overlay.value_hits(normalize(59.9) or "")
    assert "/stations/BGO/readings/599" in hits
    patch = [{"op": "replace", "path": "/stations/TRD/readings/3/celsius", "value": -40.5}]
    after = {"stations": dict(state["stations"])}
    trd = dict(after["stations"]["TRD"])
    trd["readings"] = [dict(r) for r in trd["readings"]]
    trd["readings"][3]["celsius"] = -40.5
    after["stations"]["TRD"] = trd
    moved = overlay.advance(state, after, patch)
    assert list(moved.value_hits(normalize(-40.5) or "")) == ["/stations/TRD/readings/3"]
    # Each reading answers to its station's own fields too, before and after a change.
    for now in (overlay, moved):
        filed = now.value_hits(normalize("TRD") or "")
        assert len(filed) == 600 and "/stations/TRD/readings/3" in filed


def test_envelopes_of_different_kinds_are_no_members() -> None:
    big = [{"id": f"c{n}", "amount": n, "currency": "eur", "memo": "x" * 60} for n in range(400)]
    users = [{"email": f"u{n}@x.example", "name": f"U {n}", "bio": "y" * 60} for n in range(400)]
    state = {"charges": {"object": "list", "data": big}, "users": {"object": "list", "data": users}}
    assert member_array(state) == ""
    # A search export's hits of two kinds: alike wrappers, different sources.
    hits = {
        name: {
            "hits": {
                "total": 400,
                "hits": [{"_id": str(n), "_source": r} for n, r in enumerate(rs)],
            }
        }
        for name, rs in (("charges", big), ("users", users))
    }
    assert member_array(hits) == ""


def test_members_small_enough_to_show_stay_records() -> None:
    # Orders each holding a few lines: every order is shown whole.
    orders = [{"id": n, "lines": [{"sku": f"S{i}", "qty": i} for i in range(4)]} for n in range(50)]
    assert member_array(orders) == ""
    assert member_array([station(code, 30) for code in ("OSL", "BGO")]) == ""


def test_a_members_own_scalars_are_read_once_for_all_its_records(monkeypatch: Any) -> None:
    reads: list[str] = []

    def counted(member: Any, records: str) -> list[Any]:
        reads.append(records)
        return member_scalars(member, records)

    monkeypatch.setattr(filed_records, "member_scalars", counted)
    state = {"calendars": [calendar(team, 400) for team in ("ops", "web", "data")]}
    index = StateIndex(world_of(state), state)
    assert len(reads) == 3
    # Each event still answers to its calendar's name.
    assert "web team" in index.records["/calendars/1/body/2/17"].values
