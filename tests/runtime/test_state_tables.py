"""Tables whose rows hold no field names are read as records named by their columns: found,
keyed, indexed by value, resolved named, and kept in step by patches to cells and new rows."""

from __future__ import annotations

import copy
import json
from typing import Any

import jsonpatch
import pytest

from mcp_sim.runtime.state_collections import find_collections
from mcp_sim.runtime.state_index import StateIndex
from mcp_sim.runtime.state_paths import raw_value, resolve
from mcp_sim.runtime.state_tables import held_header, held_tables, table_at
from mcp_sim.spec.world import World

COLUMNS = ["visit_id", "patient", "date", "reason", "cost"]
ROWS = [
    [f"V{500 + i}", f"P-{i % 4}", f"2025-03-{i + 1:02d}", ["rash", "sprain"][i % 2], 20.0 + i]
    for i in range(6)
]


def world_of(state: dict[str, Any]) -> World:
    return World.model_validate(
        {"world": "t", "title": "T", "description": "A hand-made state.", "state": state}
        | {"tools": [{"name": "get", "description": "Get.", "input_schema": {"type": "object"}}]}
    )


def rows_object(columns_key: str, rows_key: str, columns: Any) -> dict[str, Any]:
    return {"tables": {"visits": {columns_key: columns, rows_key: copy.deepcopy(ROWS)}}}


ENCODINGS: dict[str, tuple[dict[str, Any], str]] = {
    "columns/rows": (rows_object("columns", "rows", COLUMNS), "/tables/visits/rows"),
    "fields/data with typed columns": (
        rows_object("fields", "data", [{"name": c, "type": "STRING"} for c in COLUMNS]),
        "/tables/visits/data",
    ),
    "header/values": (rows_object("header", "values", COLUMNS), "/tables/visits/values"),
    "schema of fields/rows": (
        rows_object("schema", "rows", {"fields": [{"name": c} for c in COLUMNS]}),
        "/tables/visits/rows",
    ),
    "pandas split": (
        {"visits": {"columns": COLUMNS, "index": list(range(6)), "data": copy.deepcopy(ROWS)}},
        "/visits/data",
    ),
}


@pytest.mark.parametrize("encoding", sorted(ENCODINGS))
def test_a_table_of_named_columns_and_bare_rows_is_a_collection_of_named_records(
    encoding: str,
) -> None:
    state, rows = ENCODINGS[encoding]
    world = world_of(copy.deepcopy(state))
    (found,) = find_collections(world, world.state)
    assert (found.pointer, found.id_field, found.size) == (rows, "visit_id", 6)
    assert found.table is not None and found.table.columns == tuple(COLUMNS)
    assert resolve(world.state, f"{rows}/3") == dict(zip(COLUMNS, ROWS[3], strict=True))
    # A cell is reached by its column's name or by its position in the row.
    assert resolve(world.state, f"{rows}/3/reason") == resolve(world.state, f"{rows}/3/3")
    assert raw_value(world.state, f"{rows}/3") == ROWS[3]
    overlay = StateIndex(world, world.state).overlay_of(world.state)
    assert [h.pointer for h in overlay.key_hits("v503")] == [f"{rows}/3"]
    assert overlay.value_hits("2025-03-04") == {f"{rows}/3": "/date"}


def test_a_list_of_rows_under_a_header_row_is_a_table_whose_records_start_below_it() -> None:
    world = world_of({"sheet": [COLUMNS, *copy.deepcopy(ROWS)]})
    (found,) = find_collections(world, world.state)
    assert (found.pointer, found.id_field, found.size) == ("/sheet", "visit_id", 6)
    assert resolve(world.state, "/sheet/1") == dict(zip(COLUMNS, ROWS[0], strict=True))
    index = StateIndex(world, world.state)
    assert sorted(index.records) == [f"/sheet/{i}" for i in range(1, 7)]
    assert index.overlay_of(world.state).value_hits("sprain") == {
        f"/sheet/{i}": "/reason" for i in (2, 4, 6)
    }


def test_columns_kept_as_arrays_of_equal_length_are_a_table_of_rows() -> None:
    people = {"id": ["u1", "u2", "u3"], "name": ["Ann", "Bo", "Cy"], "age": [31, 45, 27]}
    world = world_of({"people": people})
    (found,) = find_collections(world, world.state)
    assert (found.pointer, found.id_field, found.size) == ("/people", "id", 3)
    assert resolve(world.state, "/people/1") == {"id": "u2", "name": "Bo", "age": 45}
    overlay = StateIndex(world, world.state).overlay_of(world.state)
    assert overlay.value_hits("bo") == {"/people/1": "/name"}
    assert [h.pointer for h in overlay.key_hits("u3")] == ["/people/2"]


def test_columns_mapping_row_labels_to_values_are_a_table_of_labelled_rows() -> None:
    people = {"id": {"0": "u1", "1": "u2", "2": "u3"}, "name": {"0": "Ann", "1": "Bo", "2": "Cy"}}
    world = world_of({"people": people})
    (found,) = find_collections(world, world.state)
    assert (found.pointer, found.id_field, found.size) == ("/people", "id", 3)
    assert resolve(world.state, "/people/2") == {"id": "u3", "name": "Cy"}
    patch: list[dict[str, Any]] = [
        {"op": "replace", "path": "/people/name/1", "value": "Bea"},
        {"op": "add", "path": "/people/id/7", "value": "u7"},
        {"op": "add", "path": "/people/name/7", "value": "Di"},
    ]
    for overlay in advanced(world, patch):
        assert overlay.value_hits("bea") == {"/people/1": "/name"}
        assert [h.pointer for h in overlay.key_hits("u7")] == ["/people/7"]


def test_rows_without_an_id_column_are_keyed_by_their_labels_or_a_column_of_codes() -> None:
    labelled = {"columns": ["city", "count"], "index": ["r-a", "r-b"], "data": [["X", 1], ["Y", 2]]}
    coded = {"columns": ["ref", "city"], "rows": [["K-1", "X"], ["K-2", "X"], ["K-3", "Y"]]}
    world = world_of({"labelled": labelled, "coded": coded})
    found = {c.pointer: c for c in find_collections(world, world.state)}
    assert found["/labelled/data"].id_field is None and found["/coded/rows"].id_field == "ref"
    overlay = StateIndex(world, world.state).overlay_of(world.state)
    assert [h.pointer for h in overlay.key_hits("r-b")] == ["/labelled/data/1"]
    assert [h.pointer for h in overlay.key_hits("k-2")] == ["/coded/rows/1"]


@pytest.mark.parametrize(
    "value",
    [
        [[1, 2], [3, 4]],
        [["a", "a"], ["b", "c"], ["d", "e"]],
        [["car", "auto"], ["big", "large"]],
        {"a": [1, 2, 3], "b": [1, 2]},
        {"a": [{"x": 1}, {"x": 2}], "b": [1, 2]},
        {"columns": ["a", "b"], "rows": [{"a": 1}]},
        {"u1": {"name": "A", "age": 3}, "u2": {"name": "B", "age": 4}},
    ],
)
def test_arrays_that_are_not_tables_are_left_as_they_are(value: Any) -> None:
    assert table_at(value) is None


def test_objects_beside_a_list_of_columns_resolve_as_they_are() -> None:
    state = {"report": {"columns": ["a", "b"], "data": [{"a": 1}, [1, 2, 3]]}}
    assert resolve(state, "/report/data/0") == {"a": 1}
    assert resolve(state, "/report/data/1") == [1, 2, 3]


def advanced(world: World, patch: list[dict[str, Any]]) -> tuple[Any, Any]:
    """The overlay moved on by ``patch``, and one rebuilt from the state it leaves."""
    index = StateIndex(world, world.state)
    after = jsonpatch.apply_patch(world.state, patch, in_place=False)
    moved = index.overlay_of(world.state).advance(world.state, after, patch)
    return moved, index.overlay_of(copy.deepcopy(after))


def test_a_patched_cell_and_an_appended_row_are_the_records_they_change() -> None:
    world = world_of(copy.deepcopy(ENCODINGS["columns/rows"][0]))
    rows = "/tables/visits/rows"
    patch: list[dict[str, Any]] = [
        {"op": "replace", "path": f"{rows}/2/3", "value": "migraine"},
        {"op": "add", "path": f"{rows}/-", "value": ["V900", "P-9", "2025-04-01", "cough", 9]},
    ]
    moved, rebuilt = advanced(world, patch)
    assert moved.size == rebuilt.size
    for overlay in (moved, rebuilt):
        assert overlay.value_hits("migraine") == {f"{rows}/2": "/reason"}
        assert [h.pointer for h in overlay.key_hits("v900")] == [f"{rows}/6"]
        assert overlay.record_count(rows) == 7 and f"{rows}/2" not in overlay.value_hits("rash")


def test_a_patched_column_item_and_an_appended_one_are_the_rows_they_change() -> None:
    world = world_of({"people": {"id": ["u1", "u2", "u3"], "name": ["Ann", "Bo", "Cy"]}})
    patch = [
        {"op": "replace", "path": "/people/name/1", "value": "Bea"},
        {"op": "add", "path": "/people/id/-", "value": "u4"},
        {"op": "add", "path": "/people/name/-", "value": "Di"},
    ]
    moved, rebuilt = advanced(world, patch)
    # A row kept across columns is sized as a list of its values: near, not exact.
    assert abs(moved.size - rebuilt.size) <= 2
    for overlay in (moved, rebuilt):
        assert overlay.value_hits("bea") == {"/people/1": "/name"} and not overlay.value_hits("bo")
        assert [h.pointer for h in overlay.key_hits("u4")] == ["/people/3"]
        assert overlay.value_hits("di") == {"/people/3": "/name"}


def test_a_single_column_named_as_such_is_a_table_of_one_field_records() -> None:
    world = world_of({"tags": {"columns": ["tag"], "rows": [["T-1"], ["T-2"], ["T-3"]]}})
    (found,) = find_collections(world, world.state)
    assert (found.pointer, found.id_field, found.size) == ("/tags/rows", "tag", 3)
    assert resolve(world.state, "/tags/rows/1") == {"tag": "T-2"}
    # Shape alone does not make a table of one column: a list of one-item lists is a list.
    assert table_at([["a"], ["b"], ["c"]]) is None


def test_a_changed_cell_of_a_row_of_cells_is_the_row_it_belongs_to() -> None:
    cells = [{"f": [{"v": str(v)} for v in row]} for row in ROWS]
    world = world_of({"job": {"schema": {"fields": [{"name": c} for c in COLUMNS]}, "rows": cells}})
    rows = "/job/rows"
    assert resolve(world.state, f"{rows}/2/f/3/v") == "rash"
    patch: list[dict[str, Any]] = [{"op": "replace", "path": f"{rows}/2/f/3/v", "value": "flu"}]
    moved, rebuilt = advanced(world, patch)
    for overlay in (moved, rebuilt):
        assert overlay.value_hits("flu") == {f"{rows}/2": "/reason"}
        assert resolve(overlay.state, f"{rows}/2")["reason"] == "flu"


def test_objects_side_by_side_each_holding_a_table_under_its_header_are_its_tables() -> None:
    def sheet(name: str, header: list[str]) -> dict[str, Any]:
        rows = [header, *([f"{name}-{n}", n] for n in range(5))]
        return {"range": f"{name}!A1:B6", "majorDimension": "ROWS", "values": rows}

    ranges = [sheet("Orders", ["Order ID", "Qty"]), sheet("Parts", ["SKU", "Stock"])]
    assert held_tables(ranges)
    assert held_header(ranges[0]["values"]) and not held_header(ranges[0])
    # A member that is a record of its own (nested objects), or one holding no table: no.
    assert not held_tables([*ranges, {"range": "x", "values": [["a"]], "meta": {}}])
    assert not held_tables([ranges[0], {"id": 1, "name": "x"}])


def test_a_header_tables_cell_of_json_text_is_read_as_the_value_it_holds() -> None:
    rows: list[list[Any]] = [["Bed ID", "Species", "Checks"]]
    rows += [
        [f"B{n}", "basil", json.dumps([{"date": f"2025-01-0{n}", "ph": 6 + n}])] for n in (1, 2, 3)
    ]
    rows.append(["B4", "kale", "[not json"])
    state = {"beds": rows}
    assert resolve(state, "/beds/2") == {
        "Bed ID": "B2",
        "Species": "basil",
        "Checks": [{"date": "2025-01-02", "ph": 8}],
    }
    assert resolve(state, "/beds/4")["Checks"] == "[not json"
    index = StateIndex(world_of(state), state)
    assert "/beds/3" in index.values["2025-01-03"]
