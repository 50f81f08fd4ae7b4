"""Replay: answers recorded in a journal, served back deterministically (``serve --replay J``).

The simulator asks the replay before anything else, so a recorded answer wins over input
validation (the real tool accepted those arguments) and over the model. A call is matched by
tool, arguments and position within its session:

- A live session replays the recorded session of the same id when there is one (a stdio
  server is always the session ``stdio``, recording or replaying). Otherwise live sessions
  take the recorded sessions in journal order as they start, the k-th new session the
  k-th recorded one (round robin), so a journal of one session serves every live session.
- The n-th call of a session takes the recorded call at position n if it has the same tool and
  arguments; otherwise the nearest unused recorded call that does, looking forward first, so
  an agent that reorders its calls still gets the recorded answers. A call the recording does
  not have goes on to the model (or fails, without one).
- A session's first call starts its replay afresh (after a reset, say).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcp_sim.journal import JournalRecord, read_journal


@dataclass(frozen=True)
class ReplayAnswer:
    """A recorded answer, as it is served back."""

    text: str
    structured: Any
    is_error: bool
    content: list[dict[str, Any]] | None


@dataclass
class _Cursor:
    """Which recorded session a live session follows, and which of its calls it has used."""

    recorded: str
    used: set[int] = field(default_factory=set)


def _canonical(arguments: dict[str, Any]) -> str:
    return json.dumps(arguments, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


class Replay:
    """Recorded answers by session, served back by :meth:`answer`."""

    def __init__(self, records: Iterable[JournalRecord]) -> None:
        self._sessions: dict[str, list[JournalRecord]] = {}
        for record in records:
            # A failed model request left no observation to serve back.
            if record.source != "model_error":
                self._sessions.setdefault(record.session, []).append(record)
        for calls in self._sessions.values():
            calls.sort(key=lambda r: r.step)
        self._order = list(self._sessions)
        self._cursors: dict[str, _Cursor] = {}
        self._started = 0

    @classmethod
    def load(cls, path: str | Path) -> Replay:
        return cls(read_journal(path))

    def __len__(self) -> int:
        return sum(len(calls) for calls in self._sessions.values())

    def answer(
        self, session: str, position: int, tool: str, arguments: dict[str, Any]
    ) -> ReplayAnswer | None:
        """The recorded answer for the ``position``-th call (1-based) of live ``session``, or
        ``None`` when the recording has no unused call with this tool and these arguments."""
        cursor = self._cursor(session, fresh=position == 1)
        if cursor is None:
            return None
        calls = self._sessions[cursor.recorded]
        wanted = _canonical(arguments)
        start = min(max(position - 1, 0), len(calls))
        for index in [*range(start, len(calls)), *reversed(range(start))]:
            record = calls[index]
            if index in cursor.used or record.tool != tool:
                continue
            if _canonical(record.arguments) != wanted:
                continue
            cursor.used.add(index)
            return ReplayAnswer(
                text=record.observation,
                structured=record.structured,
                is_error=record.is_error,
                content=record.content,
            )
        return None

    def _cursor(self, session: str, *, fresh: bool) -> _Cursor | None:
        cursor = self._cursors.get(session)
        if cursor is None:
            if session in self._sessions:
                cursor = _Cursor(session)
            elif self._order:
                cursor = _Cursor(self._order[self._started % len(self._order)])
                self._started += 1
            else:
                return None
            self._cursors[session] = cursor
        elif fresh:
            cursor.used.clear()
        return cursor
