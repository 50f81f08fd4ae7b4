"""The journal: one JSON line per call, on disk as soon as it is written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcp_sim.journal import Journal, JournalRecord, read_journal


def record(session: str = "s1", step: int = 1, **changes: object) -> JournalRecord:
    fields: dict[str, object] = {
        "session": session,
        "step": step,
        "tool": "get_book",
        "arguments": {"book_id": "b1"},
        "observation": '{"id": "b1"}',
        "structured": {"id": "b1"},
        "is_error": False,
        "source": "model",
        "latency_ms": 12.5,
        "prompt_tokens": 100,
        "completion_tokens": 20,
        "model": "tiny",
        "world": "abc",
    }
    fields.update(changes)
    return JournalRecord.model_validate(fields)


def test_each_record_is_one_json_line_flushed_at_once(tmp_path: Path) -> None:
    path = tmp_path / "journal.jsonl"
    journal = Journal(path)
    try:
        journal.write(record(step=1))
        lines = path.read_text(encoding="utf-8").splitlines()
        assert len(lines) == 1
        # Fields not recorded (no model timing, no failure) are left out of the line.
        unrecorded = {"model_ms", "failure"}
        assert json.loads(lines[0]) == record(step=1).model_dump(mode="json", exclude=unrecorded)
        journal.write(record(step=2, observation="two\nlines"))
        lines = path.read_text(encoding="utf-8").splitlines()
        assert [json.loads(line)["step"] for line in lines] == [1, 2]
        assert json.loads(lines[1])["observation"] == "two\nlines"
    finally:
        journal.close()


def test_journal_appends_to_an_existing_file(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "journal.jsonl"
    for step in (1, 2):
        journal = Journal(path)
        journal.write(record(step=step))
        journal.close()
    assert [r.step for r in read_journal(path)] == [1, 2]


def test_read_journal_round_trips_records(tmp_path: Path) -> None:
    path = tmp_path / "journal.jsonl"
    journal = Journal(path)
    written = [record(step=1), record(session="s2", step=1, source="fixture", structured=None)]
    for r in written:
        journal.write(r)
    journal.close()
    assert read_journal(path) == written


def test_read_journal_skips_a_torn_last_line(tmp_path: Path) -> None:
    path = tmp_path / "journal.jsonl"
    full = record().model_dump_json()
    path.write_text(full + "\n" + full[: len(full) // 2], encoding="utf-8")
    assert read_journal(path) == [record()]


def test_read_journal_rejects_a_broken_line_in_the_middle(tmp_path: Path) -> None:
    path = tmp_path / "journal.jsonl"
    full = record().model_dump_json()
    path.write_text(full[:10] + "\n" + full + "\n", encoding="utf-8")
    with pytest.raises(ValueError):
        read_journal(path)


def test_records_are_kept_per_session_in_memory() -> None:
    journal = Journal()
    journal.write(record(session="a", step=1))
    journal.write(record(session="b", step=1))
    journal.write(record(session="a", step=2))
    assert [r.step for r in journal.records("a")] == [1, 2]
    assert [r.session for r in journal.records("b")] == ["b"]
    assert journal.records("nobody") == []
    journal.forget("a")
    assert journal.records("a") == []


def test_records_read_back_are_the_records_written() -> None:
    journal = Journal()
    written = [
        record(step=1, observation="two\nlines and \ud800 a lone surrogate", structured=None),
        record(step=2, structured={"nested": [1, 2.5, {"x": None}]}, latency_ms=1.5),
    ]
    for r in written:
        journal.write(r)
    assert journal.records("s1") == written
    assert journal.last("s1") == written[-1]
    assert journal.last("nobody") is None


def test_records_stay_readable_after_the_journal_file_is_closed(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "journal.jsonl")
    journal.write(record(step=1))
    journal.close()
    assert [r.step for r in journal.records("s1")] == [1]


def test_spans_keep_a_sessions_records_as_they_were_when_taken() -> None:
    journal = Journal()
    journal.write(record(session="parent", step=1))
    journal.write(record(session="other", step=1))
    taken = journal.spans("parent")
    journal.write(record(session="parent", step=2))
    journal.forget("parent")
    assert [(r.session, r.step) for r in journal.read(taken)] == [("parent", 1)]
    both = taken + journal.spans("other")
    assert [(r.session, r.step) for r in journal.read(both)] == [("parent", 1), ("other", 1)]
    assert journal.records("parent") == []
