"""A long session stays bounded: two thousand calls on one session, answered by the model,
grow the server's memory by far less than what they return, while its journal keeps every
call and its prompt keeps what it can show. (``benchmarks/long_session.py`` measures the
same over stdio, as resident memory.)"""

from __future__ import annotations

import gc
import json
import tracemalloc

from mcp_sim.models.base import Completion, CompletionRequest, ProgressCallback
from mcp_sim.simulator.core import Simulator
from mcp_sim.spec.loading import load_world
from tests.conftest import ROOT

LOOKUP = ROOT / "benchmarks" / "worlds" / "lookup.yaml"
"""One read-only tool, answered by the model as text."""

CALLS = 2000
WARM_UP = 300
OBSERVATION = json.dumps({"results": [{"id": f"b{i}", "title": "x" * 40} for i in range(8)]})
BYTES_PER_CALL = 1024
"""The growth allowed per call, averaged: a sixth of what a call kept before (history and
journal records whole in memory, about 6 KB for an answer of this size)."""


class InstantModel:
    """Answers every request at once with the same observation, and keeps nothing."""

    async def complete(
        self, request: CompletionRequest, progress: ProgressCallback | None = None
    ) -> Completion:
        content = f"<predicted_observation>\n{OBSERVATION}\n</predicted_observation>"
        return Completion(content=content, model="instant")

    async def aclose(self) -> None:
        pass


async def test_two_thousand_calls_on_one_session_keep_memory_bounded() -> None:
    simulator = Simulator(load_world(LOOKUP), InstantModel())

    async def calls(first: int, last: int) -> None:
        for i in range(first, last):
            await simulator.call("soak", "lookup", {"key": f"key {i:05d}"})

    await calls(0, WARM_UP)
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        await calls(WARM_UP, CALLS)
        gc.collect()
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert grown / (CALLS - WARM_UP) < BYTES_PER_CALL
    session = simulator.sessions.get("soak")
    assert session.turn_count == CALLS and len(session.history) < 100
    records = simulator.journal.records("soak")
    assert [r.step for r in records] == list(range(1, CALLS + 1))
    assert records[-1].observation == OBSERVATION
