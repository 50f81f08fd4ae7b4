"""The journal: one JSON line per answered call, flushed as it is written, so a crash loses at
most the call in flight."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal, TextIO

from pydantic import BaseModel, ConfigDict, Field

Source = Literal[
    "model", "fixture", "validation", "model_error", "perturbation", "real", "replay", "memory"
]
"""Where an answer came from: the world model, a pinned fixture, input validation, a failed
model request, a fault the server made (``perturbation``), the real tool (``mcp-sim record``),
a recorded answer served back (replay), or a world's page store (``memory``: pages and results
it has already shown, and the errors of addresses that do not exist)."""
CacheUse = Literal["hit", "miss", "partial"]
"""How the answer cache served a call's model requests: all from the cache, none, or some."""
PatchStatus = Literal["none", "unchanged", "committed", "rejected"]
"""What a call did to the state: nothing asked (read calls, fixtures, errors), an empty or no-op
patch, a committed patch (the version went up), or a patch that could not be committed."""


class JournalRecord(BaseModel):
    """One call: what was asked, what came back, where the answer came from, what it did to the
    state, what it cost.

    Everything but ``latency_ms`` is a function of the session's seed, its calls and the model's
    answers, so replaying a session gives byte-identical lines; ``latency_ms`` is only recorded
    when timing is asked for (``--journal-timing``) and left out of the line otherwise.
    """

    model_config = ConfigDict(frozen=True)

    session: str
    step: int
    tool: str
    arguments: dict[str, Any]
    observation: str
    structured: Any = None
    is_error: bool
    source: Source
    latency_ms: float | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    model: str = ""
    world: str = ""
    version: int = 0
    """The state version the observation was produced against."""
    now: str | None = None
    """The virtual time the call was answered at (worlds with a clock)."""
    patch_status: PatchStatus = "none"
    patch: list[dict[str, Any]] | None = None
    """The committed patch, or the last rejected proposal when it was at least JSON."""
    patch_error: str | None = None
    """Why the state change was rejected."""
    regenerated: bool = False
    """The first answer contradicted the state and the call was asked again."""
    violations: list[str] = Field(default_factory=list)
    """Contradictions left in the answer given."""
    consistency: dict[str, int] = Field(default_factory=dict)
    """The session's consistency counts after this call (worlds with entities)."""
    perturbations: list[dict[str, Any]] = Field(default_factory=list)
    """Perturbations injected into this call, each with its profile, rule and what it did
    (see :meth:`mcp_sim.perturb.planner.Fired.record`); empty for an unperturbed call, so every error
    of a call without them is organic."""
    cache: CacheUse | None = None
    """How the answer cache (``--cache``) served this call's model requests; ``None`` when
    no cache is used or the call asked the model nothing."""
    content: list[dict[str, Any]] | None = None
    """The MCP content blocks of the result when they are not one text block (real answers
    with images, resource links or several texts), so a replay returns them as they were;
    ``observation`` then holds their text form."""

    def to_json(self) -> str:
        """The record as one JSON line (without the newline)."""
        exclude = {"latency_ms"} if self.latency_ms is None else None
        return json.dumps(self.model_dump(mode="json", exclude=exclude), ensure_ascii=False)


class Journal:
    """Appends records to a JSONL file (when a path is given) and keeps each session's records in
    memory for the ``sim://session/journal`` resource."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path is not None else None
        self._file: TextIO | None = None
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._file = self.path.open("a", encoding="utf-8")
        self._by_session: dict[str, list[JournalRecord]] = {}
        self._write_lock = threading.Lock()

    def write(self, record: JournalRecord) -> None:
        self._by_session.setdefault(record.session, []).append(record)
        if self._file is not None:
            line = record.to_json()
            with self._write_lock:
                self._file.write(line + "\n")
                self._file.flush()

    def records(self, session: str) -> list[JournalRecord]:
        return list(self._by_session.get(session, []))

    def restore(self, session: str, records: Iterable[JournalRecord]) -> None:
        """Hold ``records`` as ``session``'s calls so far (an episode loaded from its store),
        without writing them to the file again: they were written when they were made."""
        self._by_session[session] = list(records)

    def forget(self, session: str) -> None:
        self._by_session.pop(session, None)

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


def read_journal(path: str | Path) -> list[JournalRecord]:
    """Read a journal file back (skipping a torn last line left by a crash)."""
    records: list[JournalRecord] = []
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    for i, line in enumerate(lines):
        if not line.strip():
            continue
        try:
            records.append(JournalRecord.model_validate_json(line))
        except ValueError:
            if i == len(lines) - 1:
                break
            raise
    return records


def answered_by_session(records: Iterable[JournalRecord]) -> dict[str, list[JournalRecord]]:
    """The calls that have an observation (not ``model_error``), by session, in call order:
    the history each session's model saw."""
    sessions: dict[str, list[JournalRecord]] = {}
    for record in records:
        if record.source != "model_error":
            sessions.setdefault(record.session, []).append(record)
    for calls in sessions.values():
        calls.sort(key=lambda r: r.step)
    return sessions
