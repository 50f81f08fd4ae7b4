"""A large group's statistics are read once for the very records they were read from, and
read anew once a record is a new object (a session's write)."""

from __future__ import annotations

from typing import Any

from mcp_sim.prompting.kept_stats import FEWEST_KEPT, kept_group_stats
from mcp_sim.runtime.state_index import StateIndex
from mcp_sim.spec.world import World

NONE: frozenset[str] = frozenset()


def _things(count: int) -> list[dict[str, Any]]:
    return [{"id": f"T{i}", "kind": "ab"[i % 2], "size": i} for i in range(count)]


def _index(things: list[dict[str, Any]]) -> StateIndex:
    world = World.model_validate(
        {
            "world": "t",
            "title": "T",
            "description": "Things to sum up.",
            "state": {"things": things},
            "tools": [
                {"name": "stats", "description": "Totals.", "input_schema": {"type": "object"}}
            ],
        }
    )
    return StateIndex(world, world.state)


def test_the_same_records_are_read_once_and_each_caller_gets_its_own_copy() -> None:
    things = _things(FEWEST_KEPT)
    index = _index(things)
    first = kept_group_stats(index, "things", things, None, NONE, NONE)
    # Another call listing the very same records (a list of its own).
    again = kept_group_stats(index, "things", list(things), None, NONE, NONE)
    assert again.fields is first.fields
    again.outer = ("shelves", 3)
    assert first.outer is None
    assert again.count == FEWEST_KEPT


def test_a_record_written_anew_has_its_group_read_anew() -> None:
    things = _things(FEWEST_KEPT)
    index = _index(things)
    first = kept_group_stats(index, "things", things, None, NONE, NONE)
    # A committed write leaves a new object where the record changed; equal records that
    # are other objects are read anew too.
    written = [*things[:-1], {**things[-1], "size": 10_000}]
    after = kept_group_stats(index, "things", written, None, NONE, NONE)
    assert after.fields is not first.fields
    assert max(after.fields[("size",)].numbers) == 10_000
    assert max(first.fields[("size",)].numbers) == FEWEST_KEPT - 1
    # Keys that differ tell the same records apart too.
    keyed = kept_group_stats(index, "things", written, [t["id"] for t in written], NONE, NONE)
    assert keyed.fields is not after.fields


def test_a_small_group_is_read_on_every_call() -> None:
    things = _things(FEWEST_KEPT - 1)
    index = _index(things)
    first = kept_group_stats(index, "things", things, None, NONE, NONE)
    assert kept_group_stats(index, "things", things, None, NONE, NONE).fields is not first.fields
