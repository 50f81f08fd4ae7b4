"""Fuzzing the world loader: a broken world is refused with file, line and column, never with
another exception, and a world it accepts can be served.

The worlds are mutations of the shipped ones (:mod:`tests.world_mutations`), drawn by
hypothesis with a fixed budget and derandomized, so every run tries the same examples.
``benchmarks/loader_fuzz.py`` runs the same mutations over 10,000 worlds.
"""

from __future__ import annotations

import json
import random
from datetime import timedelta
from pathlib import Path

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcp_sim.errors import SpecError
from mcp_sim.simulator.core import Simulator
from mcp_sim.spec.loading import load_world
from mcp_sim.spec.locations import LINE_BREAK
from mcp_sim.spec.world import World
from tests.scripted_model import ScriptedModel
from tests.world_mutations import mutate, seed_worlds

SEEDS = seed_worlds()


@pytest.fixture(scope="module")
def fuzz_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz") / "world.yaml"


async def serve_some_calls(world: World) -> None:
    """What ``serve`` does with a world on its first calls: each fixture's call, and each tool
    with no arguments, answered by a model that says the same thing every time."""
    answers = [ScriptedModel.answer({"ok": True})] * 40
    simulator = Simulator(world, ScriptedModel(*answers))
    calls = [(f.when.tool, f.when.arguments) for f in world.fixtures[:3]]
    calls += [(tool.name, {}) for tool in world.tools[:3]]
    for tool, arguments in calls:
        with anyio.fail_after(30):
            result = await simulator.call("fuzz", tool, arguments)
        json.dumps(result.structured)


@settings(
    max_examples=250,
    derandomize=True,
    database=None,
    # The loader's bound: a world that takes longer to load or refuse is a failure.
    deadline=timedelta(seconds=2),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(name=st.sampled_from(sorted(SEEDS)), rng=st.randoms(use_true_random=False))
def test_a_mutated_world_loads_and_serves_or_is_refused_at_a_line(
    fuzz_file: Path, name: str, rng: random.Random
) -> None:
    raw = mutate(SEEDS[name], rng)
    fuzz_file.write_bytes(raw)
    try:
        world = load_world(fuzz_file)
    except SpecError as exc:
        lines = len(LINE_BREAK.split(raw.decode("utf-8", "replace")))
        assert exc.problems
        for problem in exc.problems:
            assert problem.file == str(fuzz_file)
            assert 1 <= problem.line <= lines, problem
            assert problem.column >= 1, problem
    else:
        anyio.run(serve_some_calls, world)
