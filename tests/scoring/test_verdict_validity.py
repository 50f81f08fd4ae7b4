"""A verdict says whether its reward scores the agent: every call simulated or not (model
errors, timeouts, injected faults counted apart) and what the world model spent, live and from
the journal alike."""

from __future__ import annotations

import json
from pathlib import Path

from mcp_sim.errors import ModelTimeout
from mcp_sim.journal import Journal, JournalRecord, read_journal
from mcp_sim.models.base import Completion, CompletionRequest, ProgressCallback
from mcp_sim.scoring.journal_scoring import score_journal
from mcp_sim.scoring.trajectory_counts import ModelUsage, SimulationCounts
from mcp_sim.scoring.verdict import choose_task, score
from mcp_sim.settings import Settings
from mcp_sim.simulator.core import Simulator
from mcp_sim.spec.world import World
from tests.runtime.test_state import ORDER_2
from tests.scripted_model import ScriptedModel

ORDER = {"customer": "ola@example.no", "sku": "p-tent2", "quantity": 2}


class TimingOutModel(ScriptedModel):
    """A scripted model that times out once its script is spent: the world model going slow
    mid-episode, which only a timeout can stand for without waiting in a test."""

    async def complete(
        self, request: CompletionRequest, progress: ProgressCallback | None = None
    ) -> Completion:
        if not self.answers:
            raise ModelTimeout("the model did not answer within 60 s")
        return await super().complete(request, progress)


def first_answer() -> str:
    return ScriptedModel.answer(ORDER_2, [{"op": "add", "path": "/orders/-", "value": ORDER_2}])


async def test_a_model_outage_mid_episode_marks_the_verdict_invalid(
    shop: World, tmp_path: Path
) -> None:
    journal = tmp_path / "j.jsonl"
    simulator = Simulator(shop, ScriptedModel(first_answer()), journal=Journal(journal))
    await simulator.call("e1", "create_order", ORDER)
    down = await simulator.call("e1", "get_order", {"order_id": "ord_00002"})
    assert down.source == "model_error" and down.failure == "model_unavailable"
    records = simulator.journal.records("e1")
    name, task = choose_task(shop, "tent-for-ola")
    final = simulator.sessions.get("e1").state
    verdict = await score(name, task, start=shop.state, final=final, records=records)

    assert not verdict.valid
    assert verdict.simulation == SimulationCounts(calls=2, model_errors=1)
    assert verdict.usage.prompt_tokens == records[0].prompt_tokens > 0
    assert verdict.usage.completion_tokens == records[0].completion_tokens > 0
    assert verdict.usage.model_seconds is None  # not timed, not measured by the caller
    shown = verdict.as_dict()
    assert shown["valid"] is False
    assert shown["simulation"] == {
        "calls": 2,
        "model_errors": 1,
        "timeouts": 0,
        "injected_faults": 0,
    }
    assert set(shown["usage"]) == {"prompt_tokens", "completion_tokens", "model_seconds"}

    simulator.journal.close()
    offline = await score_journal(shop, read_journal(journal), task="tent-for-ola")
    assert offline["valid"] is False and offline["simulation"] == shown["simulation"]


async def test_a_timeout_is_counted_apart_and_timed_journals_give_model_seconds(
    shop: World, tmp_path: Path
) -> None:
    journal = tmp_path / "j.jsonl"
    timed = Settings.of(journal_timing=True)
    model = TimingOutModel(first_answer())
    simulator = Simulator(shop, model, journal=Journal(journal), settings=timed)
    await simulator.call("e1", "create_order", ORDER)
    await simulator.call("e1", "get_order", {"order_id": "ord_00002"})
    simulator.journal.close()

    lines = [json.loads(line) for line in journal.read_text(encoding="utf-8").splitlines()]
    assert "failure" not in lines[0] and lines[1]["failure"] == "model_timeout"
    assert lines[0]["model_ms"] >= 0
    verdict = await score_journal(shop, read_journal(journal), task="tent-for-ola")
    assert verdict["valid"] is False
    assert verdict["simulation"]["timeouts"] == 1 and verdict["simulation"]["model_errors"] == 0
    measured = sum(line["model_ms"] for line in lines) / 1000
    assert verdict["usage"]["model_seconds"] == round(measured, 6)
    assert simulator.sessions.get("e1").model_seconds >= lines[0]["model_ms"] / 1000


def record(step: int, **fields: object) -> JournalRecord:
    return JournalRecord.model_validate(
        {
            "session": "e1",
            "step": step,
            "tool": "get_order",
            "arguments": {},
            "observation": "",
            "is_error": False,
            "source": "model",
            **fields,
        }
    )


def test_injected_faults_are_counted_and_leave_the_verdict_valid() -> None:
    fault = {"profile": "flaky", "rule": "error", "did": "503"}
    records = [
        record(1, source="perturbation", is_error=True, perturbations=[fault]),
        record(2, perturbations=[fault]),
        record(3, prompt_tokens=10, completion_tokens=4, model_ms=250.0),
    ]
    counts = SimulationCounts.of(records)
    assert counts == SimulationCounts(calls=3, injected_faults=2) and counts.simulated
    assert ModelUsage.of(records) == ModelUsage(10, 4, 0.25)
    assert ModelUsage.of(records, model_seconds=1.5).model_seconds == 1.5


def test_a_record_without_the_new_fields_keeps_its_line() -> None:
    line = record(1).to_json()
    assert "failure" not in line and "model_ms" not in line and "latency_ms" not in line
