"""The records a session changed, read once per state version (``changed_records``)."""

from __future__ import annotations

from typing import Any

from mcp_sim.prompting.changed_records import changed_records, changed_terms, changed_values
from mcp_sim.prompting.field_search import FieldSearch
from tests.prompting.test_field_search import overlay_of, users_state, world_of


def inserted(state: dict[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """``state`` with a user inserted first: every user after it moved (changed)."""
    new = {"user_id": "u99", "name": {"first_name": "Zed", "last_name": "Lee"}, "age": 7}
    users = [new, *state["users"]]
    return {**state, "users": users}, [{"op": "add", "path": "/users/0", "value": new}]


def test_the_changed_records_of_a_collection_are_those_it_holds_as_they_are_now() -> None:
    world = world_of(users_state(), ("find_users", "Find users."))
    state, patch = inserted(world.state)
    moved = overlay_of(world).advance(world.state, state, patch)
    records = changed_records(moved, state, "/users")
    # In the order the overlay lists them (the order of a search's hits), each as it is now.
    in_users = [p for p in moved.changed if p.startswith("/users/")]
    assert [p for p, _, _ in records] == in_users and len(in_users) == 41
    assert all(record is state["users"][int(p.rsplit("/")[-1])] for p, _, record in records)
    assert changed_records(moved, state, "/orders") == []
    ages = dict(changed_values(moved, state, "/users", "age"))
    assert ages["/users/0"] == [7] and ages["/users/1"] == [20]
    assert {"zed", "lee"} <= dict(changed_terms(moved, state, "/users"))["/users/0"]


def test_they_are_read_once_per_state_version_and_anew_after_a_write() -> None:
    world = world_of(users_state(), ("find_users", "Find users."))
    state, patch = inserted(world.state)
    moved = overlay_of(world).advance(world.state, state, patch)
    ages = changed_values(moved, state, "/users", "age")
    assert changed_values(moved, state, "/users", "age") is ages  # kept on the overlay
    # Another state object (a restore's copy) is read on its own.
    copy = {**state, "users": [dict(u) for u in state["users"]]}
    assert changed_values(moved, copy, "/users", "age") is not ages
    older = {**state, "users": [{**state["users"][0], "age": 8}, *state["users"][1:]]}
    patch = [{"op": "replace", "path": "/users/0/age", "value": 8}]
    later = moved.advance(state, older, patch)
    assert dict(changed_values(later, older, "/users", "age"))["/users/0"] == [8]
    assert dict(changed_values(moved, state, "/users", "age"))["/users/0"] == [7]


def test_a_search_after_a_write_meets_the_moved_records_as_they_are_now() -> None:
    world = world_of(users_state(), ("find_users", "Find users."))
    state, patch = inserted(world.state)
    moved = overlay_of(world).advance(world.state, state, patch)
    tool = world.tool("find_users")
    for _ in range(2):  # the second reads what the first kept
        young, *_ = FieldSearch(moved, state).search(tool, {"max_age": 20})
        assert young.full == ["/users/0", "/users/1"]
        named, *_ = FieldSearch(moved, state).search(tool, {"query": "Zed"})
        assert named.full[:1] == ["/users/0"]


def test_a_moved_records_values_are_read_once_across_state_versions(monkeypatch: Any) -> None:
    # The records an insert moved stay changed in every later version: a later write to
    # another record reads again only that record's values, not the moved ones'.
    from mcp_sim.prompting.field_tables import held_values

    world = world_of(users_state(), ("find_users", "Find users."))
    state, patch = inserted(world.state)
    moved = overlay_of(world).advance(world.state, state, patch)
    reads: list[Any] = []
    original = held_values

    def counted(key: str, record: Any, path: str) -> list[Any]:
        reads.append(record)
        return original(key, record, path)

    monkeypatch.setattr("mcp_sim.prompting.changed_records.held_values", counted)
    changed_values(moved, state, "/users", "age")
    first = len(reads)
    older = {**state, "users": [{**state["users"][0], "age": 8}, *state["users"][1:]]}
    later = moved.advance(state, older, [{"op": "replace", "path": "/users/0/age", "value": 8}])
    assert dict(changed_values(later, older, "/users", "age"))["/users/0"] == [8]
    assert first == 41 and len(reads) == first + 1
