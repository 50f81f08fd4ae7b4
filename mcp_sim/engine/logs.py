"""The engine's logs: the readable tail of one, and pruning old server logs."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

_KEPT_LOGS = 5
_LOG_TAIL_LINES = 25


def tail(path: Path, lines: int = _LOG_TAIL_LINES) -> str:
    """The last non-blank lines of a log, as a terminal would have shown them."""
    try:
        with path.open("rb") as handle:
            handle.seek(0, os.SEEK_END)
            handle.seek(max(0, handle.tell() - 64 * 1024))
            text = handle.read().decode("utf-8", errors="replace")
    except OSError:
        return ""
    # tqdm redraws with carriage returns; only the last state of each line matters.
    cleaned = [line.rsplit("\r", 1)[-1] for line in text.splitlines()]
    return "\n".join([line for line in cleaned if line.strip()][-lines:])


def prune_logs(folder: Path, keep: int = _KEPT_LOGS) -> None:
    """Delete all but the ``keep`` newest server logs in ``folder``."""
    logs = sorted(folder.glob("vllm-*.log"), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in logs[keep:]:
        with contextlib.suppress(OSError):
            old.unlink()
