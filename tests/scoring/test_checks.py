"""The rule checks of a world's tasks: state predicates and call patterns, one by one."""

from __future__ import annotations

from typing import Any

import pytest

from mcp_sim.journal import JournalRecord
from mcp_sim.scoring.checks import includes, journal_check, state_check
from mcp_sim.spec.verify import Check

START = {
    "orders": [{"id": "o1", "sku": "tent", "quantity": 1}],
    "stock": {"tent": 5, "stove": 0},
    "note": "first order shipped",
    "flag": True,
}
FINAL = {
    "orders": [
        {"id": "o1", "sku": "tent", "quantity": 1},
        {"id": "o2", "sku": "tent", "quantity": 2},
    ],
    "stock": {"tent": 3, "stove": 0},
    "note": "first order shipped; second placed",
    "flag": 1,
}


def check(**fields: Any) -> Check:
    return Check.model_validate({"name": "c", **fields})


@pytest.mark.parametrize(
    ("fields", "passed"),
    [
        ({"state": "/stock/tent", "equals": 3}, True),
        ({"state": "/stock/tent", "equals": 3.0}, True),
        ({"state": "/stock/tent", "equals": 5}, False),
        ({"state": "/flag", "equals": True}, False),  # 1 is not true
        ({"state": "/orders/1", "equals": {"id": "o2", "sku": "tent"}}, False),  # equals is whole
        ({"state": "/orders/1", "exists": True}, True),
        ({"state": "/orders/2", "exists": True}, False),
        ({"state": "/orders/2", "absent": True}, True),
        ({"state": "/stock/tent", "absent": True}, False),
        ({"state": "/orders", "contains": {"sku": "tent", "quantity": 2}}, True),
        ({"state": "/orders", "contains": {"sku": "stove"}}, False),
        ({"state": "/note", "contains": "second placed"}, True),
        ({"state": "/stock", "contains": "stove"}, True),  # an object contains its keys
        ({"state": "/orders", "count": 2}, True),
        ({"state": "/orders", "count": {"min": 3}}, False),
        ({"state": "/orders", "count": {"max": 2}}, True),
        ({"state": "/stock/tent", "count": 1}, False),  # a number has no count
        ({"state": "/stock/tent", "less_than": {"$start": "/stock/tent"}}, True),
        ({"state": "/stock/tent", "greater_than": {"$start": "/stock/tent"}}, False),
        ({"state": "/stock/stove", "less_than": {"$start": "/stock/stove"}}, False),
        ({"state": "/stock/tent", "greater_than": "2"}, False),  # no comparing across types
        ({"state": "/stock/tent", "changed": True}, True),
        ({"state": "/stock/stove", "changed": False}, True),
        ({"state": "/orders/0", "equals": {"$start": "/orders/0"}}, True),
        ({"state": "/orders/1", "changed": True}, True),  # appeared
        ({"state": "/missing", "equals": None}, False),  # nothing there is not null
        ({"state": "/stock/tent", "equals": {"$start": "/nowhere"}}, False),
    ],
)
def test_state_predicates(fields: dict[str, Any], passed: bool) -> None:
    result = state_check(check(**fields), START, FINAL)
    assert result.passed is passed, result.detail
    assert result.detail.startswith(fields["state"]) or "starting state" in result.detail


def test_includes_matches_objects_by_the_keys_given_and_the_rest_exactly() -> None:
    assert includes({"a": 1, "b": {"c": 2, "d": 3}}, {"b": {"c": 2}})
    assert not includes({"a": 1}, {"a": 1, "b": None})
    assert includes([1, 2], [1, 2]) and not includes([1, 2, 3], [1, 2])
    assert not includes(True, 1) and not includes(0, False)


def record(step: int, tool: str, is_error: bool = False, **arguments: Any) -> JournalRecord:
    return JournalRecord(
        session="e1",
        step=step,
        tool=tool,
        arguments=arguments,
        observation="ok",
        is_error=is_error,
        source="model",
    )


CALLS = [
    record(1, "search", query="tent"),
    record(2, "order", sku="stove", quantity=1, is_error=True),
    record(3, "order", sku="tent", quantity=2),
    record(4, "get", id="o2"),
]


@pytest.mark.parametrize(
    ("fields", "passed"),
    [
        ({"called": {"tool": "order", "arguments": {"sku": "tent"}}}, True),
        ({"called": {"tool": "order"}, "times": {"min": 2, "max": 2}}, True),
        ({"called": {"tool": "order", "is_error": False}, "times": {"max": 1}}, True),
        ({"called": {"tool": "order", "arguments": {"sku": "tent", "quantity": 3}}}, False),
        ({"called": {"tool": "cancel"}}, False),
        ({"not_called": {"tool": "cancel"}}, True),
        ({"not_called": {"tool": "order", "arguments": {"sku": "stove"}}}, False),
        ({"not_called": {"tool": "order", "arguments": {"sku": "stove"}, "is_error": False}}, True),
        ({"order": [{"tool": "search"}, {"tool": "order"}, {"tool": "get"}]}, True),
        ({"order": [{"tool": "order", "arguments": {"sku": "tent"}}, {"tool": "search"}]}, False),
        ({"order": [{"tool": "get"}, {"tool": "get"}]}, False),  # one call, not two
    ],
)
def test_call_patterns(fields: dict[str, Any], passed: bool) -> None:
    result = journal_check(check(**fields), CALLS)
    assert result.passed is passed, result.detail


def test_details_say_what_was_found() -> None:
    called = journal_check(check(called={"tool": "order"}), CALLS)
    assert called.detail.startswith("2 calls of order (steps 2, 3); wanted at least 1")
    never = journal_check(check(not_called={"tool": "order", "arguments": {"sku": "stove"}}), CALLS)
    assert "was called at step 2" in never.detail
    ordered = journal_check(check(order=[{"tool": "search"}, {"tool": "get"}]), CALLS)
    assert ordered.detail == "in order at steps 1, 4"
    counted = state_check(check(state="/orders", count={"min": 3}), START, FINAL)
    assert counted.detail == "/orders: 2 items (wanted at least 3)"
