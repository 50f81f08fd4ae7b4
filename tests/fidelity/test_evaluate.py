"""Fidelity evaluation: teacher-forced predictions of a recorded journal, the metrics, the judge,
and the reports (terminal table, JSON, self-contained HTML)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import anyio
import jsonschema
import pytest

from mcp_sim.authoring.mcp_import import import_server, write_text
from mcp_sim.cli.main import main
from mcp_sim.fidelity.eval_report import render_html, table
from mcp_sim.fidelity.evaluate import CallScore, Report, compare, evaluate, json_value, kv_f1
from mcp_sim.fidelity.judge import DIMENSIONS, Judge, judge_messages, parse_scores
from mcp_sim.journal import Journal, JournalRecord, read_journal
from mcp_sim.models.openai import EndpointSettings, OpenAICompatibleModel
from mcp_sim.prompting.native import PastCall
from mcp_sim.runtime.session import SessionStore
from mcp_sim.simulator.core import CallResult, Simulator
from mcp_sim.spec.loading import load_world
from mcp_sim.spec.world import World
from tests.conftest import BOOKSTORE, ROOT
from tests.openai_double import OpenAIDouble, RecordedRequest, Reply
from tests.reference_servers import (
    MEMORY_SESSION,
    call_all,
    memory_server,
    recording,
    uses_reference_servers,
)
from tests.scripted_model import ScriptedModel

SEARCH_RESULT = {
    "results": [
        {
            "id": "b3",
            "title": "Cartographers of Rain",
            "author": "L. Haddad",
            "price": 22.9,
            "stock": 7,
        }
    ],
    "total": 1,
}


def real(step: int, tool: str, arguments: dict[str, Any], text: str, **extra: Any) -> JournalRecord:
    return JournalRecord(
        session="rec",
        step=step,
        tool=tool,
        arguments=arguments,
        observation=text,
        is_error=extra.pop("is_error", False),
        source="real",
        **extra,
    )


RECORDING = [
    real(1, "get_book", {"book_id": "b1"}, "REAL: The Glass River, 12.50 EUR"),
    real(2, "get_book", {"book_id": "b9"}, "not_found: no book b9", is_error=True),
    real(
        3,
        "search_books",
        {"query": "rain"},
        json.dumps(SEARCH_RESULT, indent=2),
        structured=SEARCH_RESULT,
    ),
]


# --- metrics ---------------------------------------------------------------------------------


def test_key_value_f1_counts_the_leaves_two_documents_share() -> None:
    assert kv_f1({"a": 1, "b": [1, 2]}, {"a": 1, "b": [1, 2]}) == 1.0
    assert kv_f1({"a": 1, "b": [1, 2]}, {"a": 1, "b": [2, 3]}) == pytest.approx(2 / 3)
    assert kv_f1({"b": [2, 1]}, {"b": [1, 2]}) == 1.0  # order inside arrays does not matter
    assert kv_f1({"a": 1}, {"a": "1"}) == 0.0
    assert kv_f1({}, {}) == 1.0


def test_the_json_of_an_observation_is_its_structured_content_else_its_text() -> None:
    assert json_value("[1]", {"items": [1]}) == (True, {"items": [1]})
    assert json_value('{"a": 1}', None) == (True, {"a": 1})
    assert json_value("plain text", None) == (False, None)


def test_a_prediction_is_compared_on_every_metric(bookstore: World) -> None:
    reference = RECORDING[2]
    prediction = CallResult(
        text=json.dumps(SEARCH_RESULT),
        structured=SEARCH_RESULT,
        is_error=False,
        source="model",
        session="s",
        step=3,
    )
    score = compare(bookstore, reference, prediction)
    assert (score.exact, score.json_match, score.schema_valid, score.kv_f1) == (
        False,  # compact JSON is not the real, indented text
        True,
        True,
        1.0,
    )
    assert score.error_agreement
    wrong = CallResult(
        text="oops", structured=None, is_error=True, source="model", session="s", step=3
    )
    low = compare(bookstore, reference, wrong)
    assert (low.exact, low.json_match, low.schema_valid, low.kv_f1, low.error_agreement) == (
        False,
        False,
        None,  # an error prediction is not checked against the output schema
        0.0,
        False,
    )


# --- teacher forcing -------------------------------------------------------------------------


async def test_each_call_is_predicted_from_the_real_history(bookstore: World) -> None:
    model = ScriptedModel(
        ScriptedModel.answer("PREDICTED: The Glass River"),
        ScriptedModel.answer("Book b9: The Missing Volume"),
        json.dumps(SEARCH_RESULT),
    )
    simulator = Simulator(bookstore, model, sessions=SessionStore(bookstore, idle_timeout=None))
    report = await evaluate(simulator, RECORDING, journal="rec.jsonl")

    second_prompt = "\n".join(m["content"] for m in model.requests[1].messages)
    assert "REAL: The Glass River" in second_prompt
    assert "PREDICTED" not in second_prompt
    assert [(c.step, c.exact, c.error_agreement) for c in report.calls] == [
        (1, False, True),
        (2, False, False),  # the model answered an error as a success
        (3, False, True),
    ]
    assert report.calls[2].json_match is True
    overall = report.overall
    assert (overall.calls, overall.json_calls, overall.schema_calls) == (3, 1, 1)
    assert overall.error_agreement == pytest.approx(2 / 3)
    assert overall.kv_f1 == 1.0
    assert set(report.tools) == {"get_book", "search_books"}
    assert report.model == "scripted"


async def test_a_tool_the_world_lacks_counts_as_a_wrong_error(bookstore: World) -> None:
    recording = [real(1, "teleport", {}, "arrived"), RECORDING[0]]
    model = ScriptedModel(ScriptedModel.answer("The Glass River"))
    report = await evaluate(Simulator(bookstore, model), recording)
    first = report.calls[0]
    assert (first.prediction_source, first.prediction_error, first.error_agreement) == (
        "protocol_error",
        True,
        False,
    )
    assert "arrived" in model.requests[0].messages[-2]["content"]


# --- the judge -------------------------------------------------------------------------------


def judged(scores: dict[str, Any]) -> str:
    block = json.dumps({"strengths": [], "weaknesses": [], "scores": scores})
    return f"Thinking it over.\n<final_evaluation>\n```json\n{block}\n```\n</final_evaluation>"


def test_judge_scores_are_read_from_the_final_evaluation() -> None:
    five = dict.fromkeys(DIMENSIONS, 4)
    assert parse_scores(judged(five)) == five
    assert parse_scores(json.dumps({"scores": five})) == five
    clamped = parse_scores(judged({"format": 9, "factuality": 0, "realism": "3"}))
    assert clamped == {"format": 5, "factuality": 1, "consistency": 0, "realism": 3, "quality": 0}
    # An example block earlier in the text does not count; the final evaluation does.
    mixed = judged(dict.fromkeys(DIMENSIONS, 1)) + judged(five)
    assert parse_scores(mixed) == five
    assert parse_scores('<think>{"scores": {"format": 5}}</think> no verdict') is None
    assert parse_scores("I cannot decide.") is None


def test_judge_prompt_holds_context_current_turn_prediction_and_ground_truth() -> None:
    messages = judge_messages(
        [PastCall("get_book", {"book_id": "b1"}, "The Glass River")],
        "get_book",
        {"book_id": "b3"},
        "SIMULATED",
        "REAL",
    )
    user = messages[1]["content"]
    order = [
        user.index("# Context (Historical Interactions):"),
        user.index("### Turn 1"),
        user.index("The Glass River"),
        user.index("# Current Turn:"),
        user.index("### Turn 2"),
        user.index("**World Model Output (Simulated):**\n```\nSIMULATED\n```"),
        user.index("**Ground Truth (Real Output):**\n```\nREAL\n```"),
        user.index("<final_evaluation>"),
    ]
    assert order == sorted(order)


async def test_the_judge_asks_again_when_a_reply_has_no_scores() -> None:
    with OpenAIDouble() as double:
        double.script(Reply(content="hmm"), Reply(content=judged(dict.fromkeys(DIMENSIONS, 5))))
        async with OpenAICompatibleModel(EndpointSettings([double.base_url])) as model:
            scores = await Judge(model).score([], "get_book", {}, "a", "b")
        assert len(double.completion_requests) == 2
    assert scores == dict.fromkeys(DIMENSIONS, 5)


def test_judge_scores_are_reported_on_the_0_to_100_scale(bookstore: World) -> None:
    def call(step: int, judge: dict[str, int] | None) -> CallScore:
        return CallScore(
            session="s",
            step=step,
            tool="get_book",
            arguments={},
            reference="r",
            reference_error=False,
            prediction="p",
            prediction_error=False,
            prediction_source="model",
            exact=False,
            json_match=None,
            schema_valid=None,
            kv_f1=None,
            error_agreement=True,
            judge=judge,
        )

    calls = [
        call(1, dict.fromkeys(DIMENSIONS, 5)),
        call(2, {**dict.fromkeys(DIMENSIONS, 3), "quality": 0}),
        call(3, None),  # a reply that never parsed is left out
    ]
    report = Report.build(bookstore, "j", "m", calls, judge_model="judge")
    judge = report.overall.judge
    assert report.overall.judged == 2
    assert judge["format"] == pytest.approx((100 + 50) / 2)
    assert judge["quality"] == pytest.approx(100)  # only the call that scored it
    assert judge["overall"] == pytest.approx((100 + 50) / 2)


# --- the command and its reports -------------------------------------------------------------


def model_reply(request: RecordedRequest) -> Reply:
    """The world model's answers: a schema-valid search result, a text for anything else."""
    if "response_format" in request.body:
        return Reply(content=json.dumps(SEARCH_RESULT))
    return Reply(content="<predicted_observation>The Glass River</predicted_observation>")


def test_mcp_sim_eval_prints_the_table_and_writes_json_and_html(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    recorded = tmp_path / "real.jsonl"
    journal = Journal(recorded)
    for record in RECORDING:
        journal.write(record)
    journal.close()
    with OpenAIDouble() as model, OpenAIDouble(model="judge-1") as judge:
        model.respond_with(model_reply)
        judge.respond_with(lambda request: Reply(content=judged(dict.fromkeys(DIMENSIONS, 4))))
        code = main(
            [
                "eval",
                "--journal",
                str(recorded),
                "--world",
                str(BOOKSTORE),
                "--model-url",
                model.base_url,
                "--seed",
                "5",
                "--judge-url",
                judge.base_url,
                "--predictions",
                str(tmp_path / "predictions.jsonl"),
            ]
        )
        assert len(judge.completion_requests) == 3
    out = capsys.readouterr().out
    assert code == 0
    data = json.loads((tmp_path / "real.eval.json").read_text())
    assert data["overall"]["calls"] == 3
    assert data["overall"]["judge"]["overall"] == pytest.approx(75.0)
    assert [c["prediction_source"] for c in data["calls"]] == ["model", "model", "model"]
    assert len(read_journal(tmp_path / "predictions.jsonl")) == 3
    lines = out.splitlines()
    assert lines[0].split()[:3] == ["tool", "calls", "exact%"]
    assert lines[-1].split()[:2] == ["all", "3"]
    assert "75.0" in lines[-1]

    page = (tmp_path / "real.eval.html").read_text()
    assert "<script" not in page and "src=" not in page and "href=" not in page
    chart = page[page.index("<svg") : page.index("</svg>") + len("</svg>")]
    svg = ElementTree.fromstring(chart)  # well-formed, so browsers draw it
    labels = [t.text for t in svg.iter("{http://www.w3.org/2000/svg}text")]
    assert {"get_book", "search_books", "all"} <= set(labels)
    # One bar per metric and group, judge included, except metrics with no calls.
    assert len(list(svg.iter("{http://www.w3.org/2000/svg}rect"))) > 3 * 3
    assert "REAL: The Glass River" in page


def test_the_table_has_a_row_per_tool_and_one_for_all(bookstore: World) -> None:
    report = Report.build(bookstore, "j", "m", [])
    assert table(report).splitlines()[-1].split()[:2] == ["all", "0"]
    assert "<svg" in render_html(report)


# --- the tiny real model on a real recording -------------------------------------------------


def leaves(value: Any, path: str = "$") -> Counter[tuple[str, str]]:
    """The test's own flattening, to recompute the F1 independently of mcp_sim.fidelity.evaluate."""
    out: Counter[tuple[str, str]] = Counter()
    if isinstance(value, dict) and value:
        for key in value:
            out.update(leaves(value[key], f"{path}.{key}"))
    elif isinstance(value, list) and value:
        for item in value:
            out.update(leaves(item, f"{path}[]"))
    else:
        out[(path, json.dumps(value, sort_keys=True))] += 1
    return out


def as_json(text: str, structured: Any) -> Any:
    if structured is not None:
        return structured
    try:
        return json.loads(text)
    except ValueError:
        return NotImplemented


def recompute(
    world: World, real: list[JournalRecord], predicted: list[JournalRecord]
) -> dict[str, float]:
    """The report's overall numbers, recomputed from the two journals."""
    pairs = list(zip(real, predicted, strict=True))
    exact = [p.observation == r.observation for r, p in pairs]
    agree = [p.is_error == r.is_error for r, p in pairs]
    matches, f1s, valid = [], [], []
    for r, p in pairs:
        ref = as_json(r.observation, r.structured)
        pred = as_json(p.observation, p.structured)
        if ref is not NotImplemented:
            same = pred is not NotImplemented and json.dumps(pred, sort_keys=True) == json.dumps(
                ref, sort_keys=True
            )
            matches.append(same)
            if pred is NotImplemented:
                f1s.append(0.0)
            else:
                a, b = leaves(pred), leaves(ref)
                common = sum((a & b).values())
                f1s.append(2 * common / (sum(a.values()) + sum(b.values())) if common else 0.0)
        tool = world.tool(r.tool)
        if tool is not None and tool.output_schema is not None and not p.is_error:
            checker = jsonschema.validators.validator_for(tool.output_schema)
            valid.append(pred is not NotImplemented and checker(tool.output_schema).is_valid(pred))
    return {
        "exact": sum(exact) / len(exact),
        "error_agreement": sum(agree) / len(agree),
        "json_match": sum(matches) / len(matches),
        "kv_f1": sum(f1s) / len(f1s),
        **({"schema_valid": sum(valid) / len(valid)} if valid else {}),
    }


@pytest.mark.real_model
@uses_reference_servers
async def test_eval_of_a_real_recording_with_the_tiny_model_reports_what_the_journals_say(
    real_model_url: str, tmp_path: Path
) -> None:
    """Record three calls against the real memory server, evaluate the tiny model on them
    (the tiny model judging too, with schema-constrained scores), and recompute the report."""
    world = tmp_path / "memory.yaml"
    recorded = tmp_path / "real.jsonl"
    journal = Journal(recorded)
    async with recording(memory_server(tmp_path), journal) as client:
        await call_all(client, [MEMORY_SESSION[0], MEMORY_SESSION[2], MEMORY_SESSION[3]])
    journal.close()
    write_text(world, await import_server(memory_server(tmp_path)))
    predictions = tmp_path / "predictions.jsonl"
    command = [
        sys.executable, "-m", "mcp_sim", "eval",
        "--journal", str(recorded), "--world", str(world),
        "--model-url", real_model_url, "--bounded-output", "--max-tokens", "512",
        "--history-budget", "3000", "--state-budget", "2000", "--timeout", "300",
        "--seed", "1", "--predictions", str(predictions),
        "--judge-url", real_model_url, "--judge-structured", "--judge-max-tokens", "128",
    ]  # fmt: skip
    done = await anyio.to_thread.run_sync(
        lambda: subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=900)
    )
    assert done.returncode == 0, done.stderr
    print(f"\n{done.stdout}", file=sys.stderr)
    report = json.loads((tmp_path / "real.eval.json").read_text())
    real_records = read_journal(recorded)
    predicted = read_journal(predictions)
    assert [(p.session, p.step) for p in predicted] == [("eval/stdio", n) for n in (1, 2, 3)]
    expected = recompute(load_world(world), real_records, predicted)
    for name, value in expected.items():
        assert report["overall"][name] == pytest.approx(value), name
    judged_calls = [c["judge"] for c in report["calls"] if c["judge"]]
    for dimension in DIMENSIONS:
        raw = [j[dimension] for j in judged_calls if j[dimension]]
        if raw:
            mean = sum((x - 1) / 4 * 100 for x in raw) / len(raw)
            assert report["overall"]["judge"][dimension] == pytest.approx(mean)
    assert re.search(r"^all\s+3\s", done.stdout, re.MULTILINE)
    assert (tmp_path / "real.eval.html").read_text().count("<details>") == 3
