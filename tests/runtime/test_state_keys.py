"""Flat key-value exports (``station:OSL-07``, ``BOAT#X``) read as collections by key pattern."""

from __future__ import annotations

import copy
from typing import Any

import jsonpatch
import pytest

from mcp_sim.prompting.field_tables import FieldTables
from mcp_sim.runtime.state_collections import find_collections
from mcp_sim.runtime.state_index import StateIndex
from mcp_sim.runtime.state_keys import KeyPattern, key_patterns
from mcp_sim.runtime.state_paths import resolve
from mcp_sim.spec.world import World


def world_of(state: dict[str, Any]) -> World:
    return World.model_validate(
        {"world": "t", "title": "T", "description": "A hand-made state.", "state": state}
        | {"tools": [{"name": "get", "description": "Get.", "input_schema": {"type": "object"}}]}
    )


def store(separator: str = ":") -> dict[str, Any]:
    s = separator
    return {
        f"station{s}OSL-07": {"name": "Torggata", "capacity": "20"},
        f"station{s}OSL-07{s}docked": ["B10442", "B10443"],
        f"station{s}OSL-08": {"name": "Aker", "capacity": "12"},
        f"station{s}OSL-08{s}docked": ["B10444"],
        f"bike{s}B10442": {"model": "Cargo", "battery": "78"},
        f"bike{s}B10443": {"model": "Urban 3", "battery": "40"},
        f"rider{s}42{s}profile": {"name": "Ann Berg", "plan": "annual"},
        f"rider{s}42{s}rides": ["900123"],
        f"rider{s}43{s}profile": {"name": "Bo Li", "plan": "monthly"},
        f"ride{s}900123": {"bike": "B10442", "rider": "42", "minutes": "14"},
        f"seq{s}ride": "900123",
    }


@pytest.mark.parametrize("separator", [":", "#", "|", "/", "."])
def test_each_key_pattern_of_a_flat_store_is_a_collection_keyed_by_the_id_part(
    separator: str,
) -> None:
    world = world_of(store(separator))
    found = {c.pointer: c for c in find_collections(world, world.state)}
    s = separator.replace("/", "~1")
    assert {f"/station{s}*", f"/station{s}*{s}docked", f"/bike{s}*", f"/rider{s}*{s}rides"} <= set(
        found
    )
    assert found[f"/bike{s}*"].size == 2
    overlay = StateIndex(world, world.state).overlay_of(world.state)
    assert [h.pointer for h in overlay.key_hits("b10442")] == [f"/bike{s}B10442"]
    # A numeric argument (``rider_id: 42``) finds each of the rider's records.
    assert {h.pointer for h in overlay.key_hits("42")} == {
        f"/rider{s}42{s}profile",
        f"/rider{s}42{s}rides",
    }
    # The whole stored key names its record too.
    assert [h.pointer for h in overlay.key_hits(f"bike{separator}b10442")] == [f"/bike{s}B10442"]
    assert overlay.value_hits("78") == {f"/bike{s}B10442": "/battery"}
    assert set(resolve(world.state, f"/bike{s}*")) == {
        f"bike{separator}B10442",
        f"bike{separator}B10443",
    }
    assert overlay.pointers(f"/bike{s}*") == [f"/bike{s}B10442", f"/bike{s}B10443"]


def test_an_added_key_and_an_appended_list_item_reindex_their_records() -> None:
    world = world_of(store())
    index = StateIndex(world, world.state)
    patch: list[dict[str, Any]] = [
        {"op": "add", "path": "/ride:900124", "value": {"bike": "B10443", "minutes": "9"}},
        {"op": "add", "path": "/rider:42:rides/-", "value": "900124"},
        {"op": "replace", "path": "/bike:B10443/battery", "value": "7"},
    ]
    after = jsonpatch.apply_patch(world.state, patch, in_place=False)
    moved = index.overlay_of(world.state).advance(world.state, after, patch)
    for overlay in (moved, index.overlay_of(copy.deepcopy(after))):
        assert [h.pointer for h in overlay.key_hits("900124")] == ["/ride:900124"]
        assert overlay.value_hits("900124") == {
            "/ride:900124": "",
            "/rider:42:rides": "/1",
        }
        assert overlay.value_hits("7") == {"/bike:B10443": "/battery"}
        assert overlay.record_count("/ride:*") == 2 and overlay.record_count("/bike:*") == 2
        assert "/ride:900124" in overlay.pointers("/ride:*")


@pytest.mark.parametrize(
    "value",
    [
        {f"u{i}": {"name": f"N{i}", "age": i} for i in range(6)},
        {f"2024-05-0{i}": {"high": i, "low": -i} for i in range(1, 7)},
        {f"2024.05.0{i}": {"high": i} for i in range(1, 7)},
        {"src/app.py": "x", "src/db.py": "y", "docs/index.md": "z", "tests/test_app.py": "t"},
        {f"user:{i}": {"name": f"N{i}"} for i in range(2)},
        {f"{w}:{i}": i for i, w in enumerate("abcdefghijklmnopqrstu")},
    ],
)
def test_objects_keyed_by_plain_ids_dates_or_paths_are_not_flat_stores(value: Any) -> None:
    assert key_patterns(value) is None
    world = world_of({"things": value})
    assert all("*" not in c.pointer for c in find_collections(world, world.state))


def test_numbers_stored_as_strings_bound_a_range_as_numbers() -> None:
    world = world_of(store())
    index = StateIndex(world, world.state)
    bikes = next(c for c in index.collections if c.pointer == "/bike:*")
    ordered = FieldTables.of(index).ordered(bikes, "battery")
    assert ordered.bounded("min", 50) == {"/bike:B10442"}
    assert ordered.bounded("max", 50) == {"/bike:B10443"}


def test_upper_case_types_with_a_hash_are_a_store_too() -> None:
    value: dict[str, Any] = {f"BOAT#X{i}": {"name": f"B{i}"} for i in range(3)}
    value |= {f"DOCK#D{i}": {"berths": i} for i in range(3)}
    assert key_patterns(value) == [KeyPattern("BOAT#"), KeyPattern("DOCK#")]
