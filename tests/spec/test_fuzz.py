"""Fuzzing the world loader: a broken world is refused with file, line and column, never with
another exception, and a world it accepts can be served.

The worlds are mutations of the shipped ones (:mod:`tests.world_mutations`), drawn by
hypothesis with a fixed budget and derandomized, so every run tries the same examples.
``benchmarks/loader_fuzz.py`` runs the same mutations over 10,000 worlds.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcp_sim.errors import SpecError
from mcp_sim.spec.loading import load_world
from mcp_sim.spec.locations import LINE_BREAK
from tests.world_mutations import mutate, seed_worlds, serve_some_calls

SEEDS = seed_worlds()


@pytest.fixture(scope="module")
def fuzz_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz") / "world.yaml"


@st.composite
def mutated_worlds(draw: st.DrawFn) -> bytes:
    """A shipped world broken by one to three mutations (made while drawing, so the hang
    guard below times only the loading)."""
    name = draw(st.sampled_from(sorted(SEEDS)))
    return mutate(SEEDS[name], draw(st.randoms(use_true_random=False)))


@settings(
    max_examples=250,
    derandomize=True,
    database=None,
    # A hang guard, not a speed bound (a shared CI machine is too noisy for one): an alias
    # bomb or a catastrophic regex that slipped through would take minutes. The 2 s bound is
    # measured by benchmarks/loader_fuzz.py over 10,000 worlds.
    deadline=timedelta(seconds=30),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(raw=mutated_worlds())
def test_a_mutated_world_loads_and_serves_or_is_refused_at_a_line(
    fuzz_file: Path, raw: bytes
) -> None:
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
