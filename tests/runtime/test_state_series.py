"""A series keyed by time, exported in one object beside a directory of its sources: the
readings (a source's entry at a time) are the series' records, keyed ``TIME/SOURCE``, and the
directory is a collection of its own."""

from __future__ import annotations

from typing import Any

import jsonpatch

from mcp_sim.runtime.state_collections import find_collections
from mcp_sim.runtime.state_index import StateIndex
from mcp_sim.runtime.state_series import odd_keys, time_key
from tests.prompting.test_retrieval_shapes import tool, view_of, world_of


def meter_log(days: int = 12) -> dict[str, Any]:
    """Daily meter counts by meter, beside the meters' register and the export's header."""
    meters = {f"M{100 + m}": {"site": f"Site {m}", "phase": m % 3} for m in range(6)}
    state: dict[str, Any] = {"register": meters, "header": {"unit": "kWh", "source": "x"}}
    for d in range(1, days + 1):
        state[f"2024-06-{d:02d}"] = {code: {"kwh": d * 10 + m} for m, code in enumerate(meters)}
    return state


def test_times_of_several_forms_are_time_keys_and_words_are_not() -> None:
    for key in ("2024-06", "2024-06-01", "2024-06-01T06:00", "2024-06-01 06:00:00Z"):
        assert time_key(key), key
    for key in ("register", "M100", "2024", "06-01-2024"):
        assert not time_key(key), key


def test_a_series_beside_its_register_is_two_collections() -> None:
    state = meter_log()
    assert sorted(odd_keys(state)) == ["header", "register"]
    world = world_of(state, [tool("meter_info", meter="Meter code.")])
    found = {c.pointer: c for c in find_collections(world, state)}
    assert set(found) == {"", "/register"}
    assert found[""].size == 72 and found[""].odd == {"header", "register"}
    assert found[""].slots and not found["/register"].slots
    index = StateIndex(world, state)
    owner = index.collection_of("/register/M103/site")
    assert owner is not None and owner.pointer == "/register"
    assert "/register" not in index.records and "/2024-06-03/M103" in index.records
    assert index.records["/2024-06-03/M103"].key == "2024-06-03/M103"
    # A reading answers to its time (the series' key), not to its source alone.
    assert {h.pointer for h in index.keys["2024-06-03"]} == {
        f"/2024-06-03/M{100 + m}" for m in range(6)
    }


def test_a_lookup_of_a_source_shows_its_register_entry_first() -> None:
    world = world_of(meter_log(), [tool("meter_info", meter="Meter code.")])
    text = view_of(world, "meter_info", {"meter": "M103"})
    records = [line for line in text.splitlines() if line.startswith("- /")]
    assert records[0].startswith("- /register/M103") and '"site":"Site 3"' in records[0]


def test_an_object_of_mostly_words_is_no_series() -> None:
    assert odd_keys({"a": {}, "b": {}, "2024-01-01": {}, "2024-01-02": {}}) == []
    assert odd_keys({f"2024-01-{d:02d}": {} for d in range(1, 9)}) == []


def test_a_time_written_whole_or_in_part_moves_its_readings() -> None:
    world = world_of(meter_log(), [tool("meter_info", meter="Meter code.")])
    index = StateIndex(world, world.state)
    start = index.overlay_of(world.state)
    patch: list[dict[str, Any]] = [
        {"op": "add", "path": "/2024-07-01", "value": {"M100": {"kwh": 5}, "M101": {"kwh": 6}}},
        {"op": "replace", "path": "/2024-06-02/M104/kwh", "value": 999},
    ]
    after = jsonpatch.apply_patch(world.state, patch, in_place=False)
    moved = start.advance(world.state, after, patch)
    assert set(moved.changed) == {"/2024-07-01/M100", "/2024-07-01/M101", "/2024-06-02/M104"}
    assert moved.record_count("") == 74
    removed: list[dict[str, Any]] = [{"op": "remove", "path": "/2024-06-05"}]
    gone = moved.advance(after, jsonpatch.apply_patch(after, removed, in_place=False), removed)
    assert gone.record_count("") == 68 and gone.changed["/2024-06-05/M103"] is None
