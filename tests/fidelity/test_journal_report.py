"""``mcp-sim report``: per tool, injected faults by kind, organic errors, and what the agent did
after each fault."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mcp_sim.cli.main import main
from mcp_sim.fidelity.journal_report import build_report, render_table
from mcp_sim.journal import Journal, JournalRecord


def perturbation(kind: str, rule: int = 0) -> dict[str, Any]:
    return {"profile": "p", "rule": rule, "kind": kind, "by": "server", "call": 1, "spec": {}}


def record(
    session: str,
    step: int,
    tool: str,
    arguments: dict[str, Any],
    *kinds: str,
    is_error: bool = False,
) -> JournalRecord:
    faulted = any(k != "latency" for k in kinds)
    return JournalRecord(
        session=session,
        step=step,
        tool=tool,
        arguments=arguments,
        observation="...",
        is_error=is_error or faulted,
        source="perturbation" if faulted else "model",
        latency_ms=1.0,
        perturbations=[perturbation(k) for k in kinds],
    )


B1, B2 = {"book_id": "b1"}, {"book_id": "b2"}
AN_EPISODE = [
    record("a", 1, "get_book", B1, "error"),
    record("a", 2, "get_book", B1),  # retried, recovered
    record("a", 3, "search_books", {"query": "rain"}, "timeout"),
    record("a", 4, "search_books", {"query": "snow"}),  # changed arguments, recovered
    record("a", 5, "place_order", {"book_id": "b1"}, "rate_limit"),
    record("a", 6, "get_book", B2, is_error=True),  # moved on; an organic error
    record("a", 7, "cancel_order", {"order_id": "o1"}, "latency"),  # latency is no fault
    record("a", 8, "cancel_order", {"order_id": "o1"}, "latency", "empty"),  # then stopped
    record("b", 1, "get_book", {}, is_error=True),  # organic (bad arguments)
]


def test_faults_are_counted_by_kind_per_tool_and_organic_errors_apart() -> None:
    report = build_report(AN_EPISODE)
    tools = {name: stats.as_dict() for name, stats in report.tools.items()}
    assert tools["get_book"]["calls"] == 4
    assert tools["get_book"]["injected"] == {"error": 1}
    assert tools["get_book"]["organic_errors"] == 2
    assert tools["cancel_order"]["injected"] == {"empty": 1, "latency": 2}
    assert tools["cancel_order"]["faults"] == 1
    assert report.total.faults == 4
    assert report.total.organic_errors == 2
    assert report.sessions == 2


def test_each_fault_gets_the_agents_next_move_in_its_session() -> None:
    report = build_report(AN_EPISODE)
    assert [(f.tool, f.kind, f.reaction, f.recovered) for f in report.faults] == [
        ("get_book", "error", "retried", True),
        ("search_books", "timeout", "changed_args", True),
        ("place_order", "rate_limit", "moved_on", False),
        ("cancel_order", "empty", "stopped", False),
    ]
    assert report.total.as_dict()["reactions"] == {
        "retried": 1,
        "changed_args": 1,
        "moved_on": 1,
        "stopped": 1,
    }


def test_sessions_are_read_in_step_order_whatever_the_order_of_lines() -> None:
    shuffled = AN_EPISODE[::-1]
    assert build_report(shuffled).faults == build_report(AN_EPISODE).faults


def test_a_retry_that_fails_again_is_not_a_recovery() -> None:
    report = build_report(
        [
            record("a", 1, "get_book", B1, "error"),
            record("a", 2, "get_book", B1, "error"),
            record("a", 3, "search_books", {"query": "x"}),
        ]
    )
    assert [(f.reaction, f.recovered) for f in report.faults] == [
        ("retried", False),
        ("moved_on", False),
    ]


def test_the_table_has_a_row_per_tool_and_a_total() -> None:
    table = render_table(build_report(AN_EPISODE))
    lines = table.splitlines()
    assert lines[0].split()[:3] == ["tool", "calls", "injected"]
    rows = {line.split()[0]: line for line in lines[2:] if line and not line[0].isdigit()}
    assert set(rows) == {"cancel_order", "get_book", "place_order", "search_books", "(all"}
    assert "empty 1, latency 2" in rows["cancel_order"]
    assert "2 session(s), 9 call(s), 4 injected fault(s), 2 organic error(s)." in table


def write_journal(path: Path) -> Path:
    journal = Journal(path)
    for r in AN_EPISODE:
        journal.write(r)
    journal.close()
    return path


def test_report_command_prints_the_table_or_json(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = write_journal(tmp_path / "j.jsonl")
    assert main(["report", str(path)]) == 0
    assert capsys.readouterr().out.strip() == render_table(build_report(AN_EPISODE))
    assert main(["report", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["total"]["faults"] == 4
    assert data["tools"]["place_order"]["reactions"]["moved_on"] == 1
    assert data["faults"][0] == {
        "session": "a",
        "step": 1,
        "tool": "get_book",
        "kind": "error",
        "profile": "p",
        "rule": 0,
        "reaction": "retried",
        "recovered": True,
    }


def test_report_command_on_a_missing_or_foreign_file_exits_1(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert main(["report", str(tmp_path / "absent.jsonl")]) == 1
    foreign = tmp_path / "foreign.jsonl"
    foreign.write_text('{"hello": 1}\n{"hello": 2}\n', encoding="utf-8")
    assert main(["report", str(foreign)]) == 1
    assert "journal" in capsys.readouterr().err
