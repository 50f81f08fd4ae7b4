"""The journal: one JSON line per answered call, flushed as it is written, so a crash loses at
most the call in flight."""

from __future__ import annotations

import io
import json
import tempfile
import threading
import weakref
from array import array
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, Literal, TextIO

from pydantic import BaseModel, ConfigDict, Field

from mcp_sim.errors import SimError

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


_LEFT_OUT_WHEN_NONE = ("latency_ms", "model_ms", "failure")
"""Fields a journal line leaves out when they are not recorded, so lines written without them
stay as they were."""


class JournalRecord(BaseModel):
    """One call: what was asked, what came back, where the answer came from, what it did to the
    state, what it cost.

    Everything but ``latency_ms`` and ``model_ms`` is a function of the session's seed, its
    calls and the model's answers, so replaying a session gives byte-identical lines; those two
    are only recorded when timing is asked for (``--journal-timing``) and left out of the line
    otherwise.
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
    model_ms: float | None = None
    """Time the call waited on the world model (answers from the cache cost none)."""
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
    failure: str | None = None
    """Why the world model gave no answer, for a ``model_error`` call: the kind of the failure
    (``model_timeout``, ``model_unavailable``, ``model_output_invalid``, ``model_error``,
    ``no_model``; see :func:`mcp_sim.simulator.metrics.error_kind`). Journals written before
    it was recorded have none."""
    content: list[dict[str, Any]] | None = None
    """The MCP content blocks of the result when they are not one text block (real answers
    with images, resource links or several texts), so a replay returns them as they were;
    ``observation`` then holds their text form."""

    def to_json(self) -> str:
        """The record as one JSON line (without the newline)."""
        exclude = {name for name in _LEFT_OUT_WHEN_NONE if getattr(self, name) is None}
        return json.dumps(self.model_dump(mode="json", exclude=exclude), ensure_ascii=False)


@dataclass(frozen=True)
class JournalSpans:
    """Where some records lie in a :class:`Journal`'s spill file (a fork's inherited calls):
    read them back with :meth:`Journal.read`."""

    spans: bytes = b""
    """Pairs of 64-bit offsets and lengths, as ``array("q")`` bytes."""

    def __add__(self, other: JournalSpans) -> JournalSpans:
        return JournalSpans(self.spans + other.spans)


class Journal:
    """Appends records to a JSONL file (when a path is given), and keeps every session's
    records for reading back (the ``sim://session/journal`` resource, the episode API, a
    verdict).

    Records are not kept in memory: each is appended, as its JSON line, to a spill file (a
    private temporary file, deleted with the journal), and only where each line lies
    is kept, 16 bytes a call, so a session of a hundred thousand calls costs 1.6 MB and not
    the records themselves. The spill is private so that nothing another process does to the
    journal file (rotating it, truncating it, a pipe) can change what is read back."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path is not None else None
        self._file: TextIO | None = None
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._file = self.path.open("a", encoding="utf-8")
        self._spill: BinaryIO | None = None
        self._spans: dict[str, array[int]] = {}
        self._lock = threading.Lock()

    def write(self, record: JournalRecord) -> None:
        line = record.to_json()
        data = line.encode("utf-8", errors="surrogatepass") + b"\n"
        with self._lock:
            spill = self._spill_file()
            spill.seek(0, io.SEEK_END)
            self._spans.setdefault(record.session, array("q")).extend((spill.tell(), len(data)))
            spill.write(data)
            if self._file is not None:
                self._file.write(line + "\n")
                self._file.flush()

    def records(self, session: str) -> list[JournalRecord]:
        """``session``'s records, in the order they were written."""
        return self.read(self.spans(session))

    def last(self, session: str) -> JournalRecord | None:
        """``session``'s last record, if it has one."""
        spans = self._spans.get(session)
        return self.read(JournalSpans(spans[-2:].tobytes()))[0] if spans else None

    def spans(self, session: str) -> JournalSpans:
        """Where ``session``'s records lie so far (later records are not added to them)."""
        spans = self._spans.get(session)
        return JournalSpans(spans.tobytes() if spans else b"")

    def read(self, spans: JournalSpans) -> list[JournalRecord]:
        """The records at ``spans`` of this journal."""
        pairs = array("q", spans.spans)
        records = []
        with self._lock:
            if self._spill is None:  # nothing written yet
                return []
            for i in range(0, len(pairs), 2):
                self._spill.seek(pairs[i])
                raw = self._spill.read(pairs[i + 1])
                data = json.loads(raw.decode("utf-8", errors="surrogatepass"))
                records.append(JournalRecord.model_validate(data))
        return records

    def restore(self, session: str, records: Iterable[JournalRecord]) -> None:
        """Hold ``records`` as ``session``'s calls so far (an episode loaded from its store),
        without writing them to the file again: they were written when they were made."""
        with self._lock:
            spill = self._spill_file()
            spill.seek(0, io.SEEK_END)
            spans = array("q")
            for record in records:
                data = record.to_json().encode("utf-8", errors="surrogatepass") + b"\n"
                spans.extend((spill.tell(), len(data)))
                spill.write(data)
            self._spans[session] = spans

    def forget(self, session: str) -> None:
        """Stop keeping ``session``'s records (their lines stay in the spill file, unread, as
        long as the journal lives, and in the journal file)."""
        self._spans.pop(session, None)

    def close(self) -> None:
        """Close the journal file. The records stay readable for as long as the journal
        lives (its spill file is closed, and deleted, with it)."""
        with self._lock:
            if self._file is not None:
                self._file.close()
                self._file = None

    def _spill_file(self) -> BinaryIO:
        if self._spill is None:
            try:
                # Open for the journal's life: records stay readable after close(), so the
                # file is closed (and deleted) when the journal is collected, without a warning.
                spill = tempfile.TemporaryFile(prefix="mcp-sim-journal-")  # noqa: SIM115
                weakref.finalize(self, spill.close)
                self._spill = spill
            except OSError:  # no writable temporary folder: keep the lines in memory
                self._spill = io.BytesIO()
        return self._spill


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


def load_journal(path: str | Path) -> list[JournalRecord]:
    """The records of the journal file at ``path`` (:func:`read_journal`); a file that cannot
    be read, or is no journal, raises a :class:`~mcp_sim.errors.SimError` that says which."""
    try:
        return read_journal(path)
    except OSError as exc:
        raise SimError(f"cannot read journal {path}: {exc.strerror}") from None
    except ValueError as exc:
        raise SimError(f"{path} is not an mcp-sim journal: {exc}") from None


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
