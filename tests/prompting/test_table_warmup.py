"""A large world's tables built in the background: calls find them ready, never wait for the
build, and see the same prompts whoever built a table."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from mcp_sim.prompting.field_tables import FieldTables
from mcp_sim.prompting.state_view import StateView
from mcp_sim.prompting.table_warmup import Step, TableWarmup, warm_steps
from mcp_sim.runtime import long_lived
from mcp_sim.spec.world import World
from tests.world_generator import make_world, record_calls

BUDGET = 6000
WAIT_S = 60.0


@pytest.fixture(scope="module")
def clinic() -> tuple[World, list[tuple[str, dict[str, Any]]]]:
    spec = make_world("clinic", 0.3, seed=4)
    calls = [(c.tool, c.arguments) for c in record_calls("clinic", spec["state"], 4, 2)]
    return World.model_validate(spec), calls


def views(view: StateView, world: World, calls: list[tuple[str, dict[str, Any]]]) -> list[str]:
    """The state section of each call's anchor on the starting state."""
    return [
        view.render(world.state, None, [], tool=world.tool(tool), arguments=arguments)
        for tool, arguments in calls
    ]


def nothing() -> None:
    """A warm-up's finish that leaves the test process's garbage collector as it is."""


def test_the_warmup_builds_the_tables_the_calls_read(
    clinic: tuple[World, list[tuple[str, dict[str, Any]]]],
) -> None:
    world, calls = clinic
    cold = StateView(world, BUDGET)
    expected = views(cold, world, calls)
    assert FieldTables.of(cold.index).labels, "the calls read field tables"

    warm = StateView(world, BUDGET)
    warmup = TableWarmup(warm_steps(world, warm.index), finish=nothing)
    warmup.thread.start()
    assert warmup.wait(WAIT_S) and warmup.error is None
    tables = FieldTables.of(warm.index)
    built = {name: dict(table) for name, table in vars(tables).items() if isinstance(table, dict)}

    assert views(warm, world, calls) == expected
    # Every table the calls read was there already: none was built by a call.
    for name, table in built.items():
        assert getattr(tables, name).keys() == table.keys(), name
    assert built["labels"].keys() >= FieldTables.of(cold.index).labels.keys()


def test_a_call_before_the_warmup_reaches_a_table_builds_it_without_waiting(
    clinic: tuple[World, list[tuple[str, dict[str, Any]]]],
) -> None:
    world, calls = clinic
    expected = views(StateView(world, BUDGET), world, calls)
    view = StateView(world, BUDGET)
    gate, reached = threading.Event(), threading.Event()

    def held() -> None:
        """A table build that lasts until the test lets it end."""
        reached.set()
        gate.wait(WAIT_S)

    def steps() -> Iterator[Step]:
        yield held
        yield from warm_steps(world, view.index)

    warmup = TableWarmup(steps(), finish=nothing)
    warmup.thread.start()
    assert reached.wait(WAIT_S)
    # The warm-up is stuck in its first build: the calls build what they need themselves.
    assert views(view, world, calls) == expected
    assert warmup.built == 0 and not warmup.done.is_set()
    tables = FieldTables.of(view.index)
    by_calls = dict(tables.labels)
    assert by_calls

    gate.set()
    assert warmup.wait(WAIT_S) and warmup.error is None
    # The warm-up found the calls' tables built and kept them.
    assert all(tables.labels[key] is table for key, table in by_calls.items())
    assert len(tables.labels) > len(by_calls)


def test_calls_beside_the_warmup_see_the_prompts_of_calls_without_it(
    clinic: tuple[World, list[tuple[str, dict[str, Any]]]],
) -> None:
    world, calls = clinic
    expected = views(StateView(world, BUDGET), world, calls)
    for _ in range(3):
        view = StateView(world, BUDGET)
        warmup = TableWarmup(warm_steps(world, view.index), finish=nothing)
        warmup.thread.start()
        assert views(view, world, calls) == expected
        assert warmup.wait(WAIT_S) and warmup.error is None


def test_a_failed_build_stops_the_warmup_and_leaves_the_rest_to_the_calls() -> None:
    finished: list[bool] = []

    def broken() -> None:
        raise ValueError("a table that cannot be built")

    warmup = TableWarmup(iter([broken]), finish=lambda: finished.append(True))
    warmup.thread.start()
    assert warmup.wait(WAIT_S)
    assert isinstance(warmup.error, ValueError) and warmup.built == 0 and not finished
    assert warmup.seconds is not None


def test_only_a_large_world_is_warmed_and_its_tables_then_kept_out_of_scans(
    clinic: tuple[World, list[tuple[str, dict[str, Any]]]], monkeypatch: pytest.MonkeyPatch
) -> None:
    world, _ = clinic
    small = StateView(world, BUDGET)
    assert small.index is not None and small.warmup is None

    monkeypatch.setattr(long_lived, "LARGE_STATE_CHARS", 1000)
    view = StateView(world, BUDGET)
    try:
        _ = view.index
        assert view.warmup is not None
        assert view.warmup.wait(WAIT_S) and view.warmup.error is None
        # The tables built after the index's freeze are out of the scans too.
        labels = next(iter(FieldTables.of(view.index).labels.values()))
        tracked = {id(o) for o in gc.get_objects()}
        assert id(labels) not in tracked
    finally:
        gc.unfreeze()


def test_the_warmup_starts_no_build_while_a_call_builds_its_prompt() -> None:
    built = threading.Event()
    warmup = TableWarmup(iter([built.set]), finish=nothing)
    with warmup.paused(), warmup.paused():
        warmup.thread.start()
        # A bounded wait for a build that must not come while calls are building.
        assert not built.wait(0.2)
    assert built.wait(WAIT_S) and warmup.wait(WAIT_S) and warmup.built == 1


def test_a_view_told_not_to_warm_leaves_every_table_to_the_calls(
    clinic: tuple[World, list[tuple[str, dict[str, Any]]]], monkeypatch: pytest.MonkeyPatch
) -> None:
    world, calls = clinic
    monkeypatch.setattr(long_lived, "LARGE_STATE_CHARS", 1000)
    cold = StateView(world, BUDGET, warm=False)
    try:
        assert cold.index is not None and cold.warmup is None
        assert not FieldTables.of(cold.index).labels
        assert all(views(cold, world, calls[:2]))
        assert cold.warmup is None and FieldTables.of(cold.index).schemas
    finally:
        gc.unfreeze()
