"""A recorded journal evaluated and exported from Python, as ``mcp-sim eval`` and ``mcp-sim
export`` do it: the calls chosen, the world opened with settings, the reports written beside
the journal, the rows written to a file."""

from __future__ import annotations

import json
from pathlib import Path

from mcp_sim.fidelity.eval_report import render_html, table, write_reports
from mcp_sim.fidelity.journal_eval import evaluate_journal, selected_calls
from mcp_sim.fidelity.judge import DIMENSIONS
from mcp_sim.fidelity.trajectory_export import export_journal
from mcp_sim.journal import JournalRecord, Source, read_journal
from mcp_sim.models.openai import EndpointSettings
from mcp_sim.spec.world import World
from tests.conftest import BOOKSTORE
from tests.openai_double import OpenAIDouble, Reply
from tests.scripted_model import ScriptedModel


def recorded(
    step: int, book: str, text: str, session: str = "rec", source: Source = "real"
) -> JournalRecord:
    return JournalRecord(
        session=session,
        step=step,
        tool="get_book",
        arguments={"book_id": book},
        observation=text,
        is_error=False,
        source=source,
    )


RECORDING = [
    recorded(1, "b1", "The Glass River, 12.50 EUR"),
    recorded(2, "b2", "", source="model_error"),
    recorded(3, "b2", "Cartographers of Rain, 9.00 EUR"),
    recorded(1, "b3", "Salt and Clay, 7.00 EUR", session="other"),
]


def judged(score: int) -> str:
    scores = dict.fromkeys(DIMENSIONS, score)
    block = json.dumps({"strengths": [], "weaknesses": [], "scores": scores})
    return f"<final_evaluation>\n```json\n{block}\n```\n</final_evaluation>"


def test_calls_are_chosen_by_session_and_counted_without_failed_requests() -> None:
    assert selected_calls(RECORDING) == RECORDING
    assert selected_calls(RECORDING, ("other",)) == RECORDING[3:]
    # The failed request is kept (the report counts it as skipped) but not counted.
    assert selected_calls(RECORDING, max_calls=2) == RECORDING[:3]
    assert selected_calls(RECORDING, ("rec",), 1) == RECORDING[:1]


async def test_the_report_says_which_calls_were_skipped_and_which_the_model_failed() -> None:
    calls = selected_calls(RECORDING, ("rec",))
    # One answer: the world model is gone by the second prediction.
    model = ScriptedModel(ScriptedModel.answer("The Glass River, 12.50 EUR"))
    report = await evaluate_journal(BOOKSTORE, calls, model=model, journal="real.jsonl")
    assert report.overall.calls == 2  # the recorded model_error is not predicted
    assert (report.skipped, report.model_errors) == (1, 1)
    assert [c.prediction_source for c in report.calls] == ["model", "model_error"]
    notes = table(report).splitlines()[-2:]
    assert notes[0].startswith("skipped 1 recorded call(s)")
    assert notes[1].startswith("1 prediction(s) failed")
    assert "skipped 1 recorded call(s)" in render_html(report)
    assert report.to_json()["skipped"] == 1


async def test_a_journal_is_evaluated_with_a_model_and_a_judge(tmp_path: Path) -> None:
    calls = selected_calls(RECORDING, ("rec",))
    model = ScriptedModel(
        ScriptedModel.answer("The Glass River, 12.50 EUR"),
        ScriptedModel.answer("Cartographers of Rain, 9.00 EUR"),
    )
    predictions = tmp_path / "predictions.jsonl"
    said: list[str] = []
    with OpenAIDouble(model="judge-1") as judge:
        judge.respond_with(lambda request: Reply(content=judged(5)))
        report = await evaluate_journal(
            BOOKSTORE,
            calls,
            model=model,
            journal="real.jsonl",
            predictions=predictions,
            judge=EndpointSettings(base_urls=[judge.base_url], model="judge-1"),
            say=said.append,
        )
        assert len(judge.completion_requests) == 2
    assert report.overall.calls == 2 and report.judge_model == "judge-1"
    assert [c.exact for c in report.calls] == [True, True]
    assert report.overall.judge is not None
    assert len(read_journal(predictions)) == 2  # the simulator's answers, journaled
    assert said  # the progress


async def test_the_reports_are_written_beside_the_journal_unless_placed(tmp_path: Path) -> None:
    journal = tmp_path / "real.jsonl"
    model = ScriptedModel(ScriptedModel.answer("The Glass River, 12.50 EUR"))
    report = await evaluate_journal(BOOKSTORE, RECORDING[:1], model=model)
    assert write_reports(report, journal) == (
        tmp_path / "real.eval.json",
        tmp_path / "real.eval.html",
    )
    assert json.loads((tmp_path / "real.eval.json").read_text())["overall"]["calls"] == 1
    placed = tmp_path / "reports" / "r.json", tmp_path / "reports" / "r.html"
    assert write_reports(report, journal, *placed) == placed
    assert placed[1].read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_a_journal_is_exported_as_rows_of_the_chosen_sources(
    bookstore: World, tmp_path: Path
) -> None:
    output = tmp_path / "rows" / "sft.jsonl"
    records = [*RECORDING[:1], recorded(2, "b2", "from the model", source="model")]
    assert export_journal(bookstore, records, "sft", output) == 2
    assert export_journal(bookstore, records, "sft", output, sources=["real"]) == 1
    (row,) = [json.loads(line) for line in output.read_text(encoding="utf-8").splitlines()]
    assert "The Glass River" in row["messages"][-1]["content"]
