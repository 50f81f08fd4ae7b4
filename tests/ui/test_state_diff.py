"""A patch as the workbench shows it: each operation with the value before and after it."""

from __future__ import annotations

import json
from typing import Any

from mcp_sim.ui.state_diff import MAX_VALUE_CHARS, patch_diff

STATE: dict[str, Any] = {
    "books": [{"id": "b1", "stock": 3}, {"id": "b2", "stock": 0}],
    "orders": [],
    "meta": {"open": True},
}


def test_each_operation_shows_what_it_changed() -> None:
    rows = patch_diff(
        [
            {"op": "replace", "path": "/books/0/stock", "value": 1},
            {"op": "add", "path": "/orders/-", "value": {"id": "o1"}},
            {"op": "add", "path": "/meta/note", "value": "gift"},
            {"op": "remove", "path": "/books/1"},
            {"op": "test", "path": "/meta/open", "value": True},
        ],
        STATE,
    )
    assert [(r["op"], r["path"]) for r in rows] == [
        ("replace", "/books/0/stock"),
        ("add", "/orders/-"),
        ("add", "/meta/note"),
        ("remove", "/books/1"),
    ]
    assert rows[0]["before"] == {"json": "3"} and rows[0]["after"] == {"json": "1"}
    assert rows[1]["before"] == {"absent": True} and rows[1]["after"] == {"json": '{"id": "o1"}'}
    assert rows[2]["before"] == {"absent": True} and rows[2]["after"] == {"json": '"gift"'}
    assert rows[3]["before"] == {"json": '{"id": "b2", "stock": 0}'}
    assert rows[3]["after"] == {"absent": True}
    # The state the diff was made from is never changed.
    assert STATE["books"][0]["stock"] == 3 and len(STATE["books"]) == 2


def test_operations_apply_one_at_a_time_so_indexes_mean_what_they_meant() -> None:
    rows = patch_diff(
        [
            {"op": "remove", "path": "/books/0"},
            # After the removal, index 0 is b2.
            {"op": "replace", "path": "/books/0/stock", "value": 9},
            {"op": "add", "path": "/books/0", "value": {"id": "b0"}},
        ],
        STATE,
    )
    assert rows[1]["before"] == {"json": "0"}
    assert rows[2]["before"] == {"absent": True}  # an insertion into an array
    assert rows[2]["after"] == {"json": '{"id": "b0"}'}


def test_move_and_copy_name_where_the_value_came_from() -> None:
    rows = patch_diff([{"op": "move", "from": "/meta/open", "path": "/meta/closed"}], STATE)
    assert rows == [
        {
            "op": "move",
            "path": "/meta/closed",
            "from": "/meta/open",
            "before": {"json": "true"},
            "after": {"json": "true"},
        }
    ]


def test_a_proposal_that_does_not_apply_says_where_it_stops() -> None:
    rows = patch_diff(
        [
            {"op": "replace", "path": "/books/0/stock", "value": 2},
            {"op": "replace", "path": "/books/7/stock", "value": 1},
            {"op": "replace", "path": "/orders", "value": []},
        ],
        STATE,
    )
    assert len(rows) == 2
    assert rows[1]["path"] == "/books/7/stock" and "error" in rows[1]


def test_long_values_are_cut_with_their_length() -> None:
    big = {"books": [{"id": f"b{i}", "title": "x" * 50} for i in range(500)]}
    rows = patch_diff([{"op": "replace", "path": "/books", "value": []}], big)
    before = rows[0]["before"]
    assert len(before["json"]) == MAX_VALUE_CHARS
    assert before["cut"] == len(json.dumps(big["books"], sort_keys=True))
