"""One install step: a subprocess whose output goes to the install log, with a heartbeat.

pip and the converter run for minutes; every few seconds the step reports how long it has
run and the last informative line of its output, so a waiting user sees it move.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from mcp_sim.engine.logs import tail
from mcp_sim.engine.progress import EngineProgress
from mcp_sim.errors import EngineError

_HEARTBEAT_S = 10.0


def latest_activity(log: Path) -> str:
    """The last informative line of a step's output, shortened for a heartbeat."""
    for line in reversed(tail(log, 40).splitlines()):
        line = line.strip()
        if line.startswith(("WARNING", "DEPRECATION", "Looking in", "$ ")):
            continue
        if line.startswith("Processing /"):
            line = "Processing " + line.split()[1].rsplit("/", 1)[-1]
        # pip prints nothing while it unpacks wheels after these lines; the last one would
        # be stale news ("Successfully uninstalled setuptools") for minutes.
        elif line.startswith("Installing collected packages:"):
            line = f"unpacking {line.count(',') + 1} packages"
        elif line.startswith(
            ("Attempting uninstall", "Found existing", "Uninstalling", "Successf")
        ):
            line = "unpacking packages"
        return line if len(line) <= 72 else line[:69] + "..."
    return ""


def duration(seconds: float) -> str:
    """``2 min 5 s`` or ``40 s``."""
    minutes, secs = divmod(int(seconds), 60)
    return f"{minutes} min {secs} s" if minutes else f"{secs} s"


def run_step(
    command: Sequence[str],
    *,
    label: str,
    log: Path,
    progress: EngineProgress,
    env: Mapping[str, str] | None = None,
    hint: str = "",
) -> None:
    """Run one install step, its output appended to ``log``, with a heartbeat to progress.

    Raises :class:`EngineError` with the tail of ``log`` (and ``hint``) when it fails.
    """
    log.parent.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    with log.open("ab") as sink:
        sink.write(f"\n$ {subprocess.list2cmdline(list(command))}\n".encode())
        sink.flush()
        try:
            process = subprocess.Popen(
                list(command),
                stdin=subprocess.DEVNULL,
                stdout=sink,
                stderr=subprocess.STDOUT,
                env=dict(env) if env is not None else None,
            )
        except OSError as exc:
            raise EngineError(f"{label}: cannot run {command[0]}: {exc}") from exc
        next_beat = started + _HEARTBEAT_S
        try:
            while (code := process.poll()) is None:
                time.sleep(0.25)
                now = time.monotonic()
                if now >= next_beat:
                    activity = latest_activity(log)
                    detail = f" ({activity})" if activity else ""
                    progress(f"  {label}… {duration(now - started)}{detail}")
                    next_beat = now + _HEARTBEAT_S
        except BaseException:
            process.kill()
            process.wait()
            raise
    if code != 0:
        message = f"{label} failed (exit code {code}); last lines of {log}:\n{tail(log)}"
        raise EngineError(f"{message}\n{hint}" if hint else message)
