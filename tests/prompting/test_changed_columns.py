"""The changed records meeting a constraint, found by distinct value (``changed_columns``)."""

from __future__ import annotations

from typing import Any

from mcp_sim.prompting.changed_columns import ChangedColumn, changed_column
from mcp_sim.prompting.constraints import Constraint
from mcp_sim.prompting.field_tables import value_test
from tests.prompting.test_changed_records import inserted
from tests.prompting.test_field_search import overlay_of, users_state, world_of


def constraint(op: str, value: Any) -> Constraint:
    return Constraint("status", op, value, ("status",), 1.0)


VALUES: list[tuple[str, list[Any]]] = [
    ("/r/0", ["Open"]),
    ("/r/1", ["open "]),
    ("/r/2", ["closed"]),
    ("/r/3", ["https://x.org/items/OPEN"]),
    ("/r/4", [0.0]),
    ("/r/5", [-0.0, {"a": 1}]),
    ("/r/6", [True]),
    ("/r/7", [1]),
    ("/r/8", ["closed"]),
]


def by_test(constraint: Constraint) -> set[str]:
    """What testing each record's values one by one finds."""
    test = value_test(constraint)
    return {p for p, values in VALUES if any(test(v) for v in values)}


def test_each_constraint_meets_the_records_a_test_of_each_record_meets() -> None:
    column = ChangedColumn(VALUES)
    for op, value in [
        ("eq", "OPEN"),
        ("eq", ["closed", "open"]),
        ("eq", 1),
        ("eq", 0),
        ("ne", "open"),
        ("min", 0),
        ("max", 0),
        ("prefix", "op"),
        ("contains", "items"),
    ]:
        wanted = constraint(op, value)
        assert column.meeting(wanted, value_test(wanted)) == by_test(wanted), (op, value)
    # Each distinct value is tested once for the records holding it; -0.0 apart from 0.0,
    # True apart from 1, an object on its own.
    assert len(column.holders) == 8 and len(column.unhashable) == 1
    assert column.holders[(str, "closed")][1] == {"/r/2", "/r/8"}


def test_a_column_is_grouped_once_per_state_version() -> None:
    world = world_of(users_state(), ("find_users", "Find users."))
    state, patch = inserted(world.state)
    moved = overlay_of(world).advance(world.state, state, patch)
    column = changed_column(moved, state, "/users", "age")
    assert changed_column(moved, state, "/users", "age") is column
    wanted = Constraint("age", "eq", 7, ("age",), 1.0)
    assert column.meeting(wanted, value_test(wanted)) == {"/users/0"}
