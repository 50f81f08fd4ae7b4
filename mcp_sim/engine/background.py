"""The engine that stays up: one embedded vLLM per user, started in the background by
``mcp-sim engine start``, found by every later command, stopped by ``mcp-sim engine stop``.

The running engine is described by a state file under the engine home, written atomically
once the server answers ``/health``. Starting and stopping hold an exclusive lock on a file
next to it, so that two starts cannot both launch a server: the second waits for the first
and then finds it running. A state file whose process group is gone (the machine rebooted,
the engine was killed) is stale and is removed the next time the lock is taken.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx2

from mcp_sim.engine.command_lines import LOOPBACK
from mcp_sim.engine.install_state import engine_status, read_json
from mcp_sim.engine.paths import EnginePaths
from mcp_sim.engine.process_group import group_alive, stop_detached_group
from mcp_sim.engine.progress import EngineProgress, ignore_progress
from mcp_sim.engine.vllm_server import VLLMServer
from mcp_sim.engine.warm_up import warm_up
from mcp_sim.models.base import CompletionRequest

ServerFactory = Callable[[EngineProgress], VLLMServer]


@dataclass(frozen=True)
class RunningEngine:
    """What the state file says about an engine started in the background."""

    pid: int
    """The supervisor's pid, which is also the id of the engine's process group."""
    port: int
    model: str
    log: str
    started_at: str

    @property
    def base_url(self) -> str:
        return f"http://{LOOPBACK}:{self.port}/v1"

    @property
    def health_url(self) -> str:
        return f"http://{LOOPBACK}:{self.port}/health"

    @property
    def alive(self) -> bool:
        return group_alive(self.pid)

    def healthy(self) -> bool:
        """Whether the engine answers ``/health`` now."""
        try:
            with httpx2.Client(timeout=2.0, trust_env=False) as client:
                return client.get(self.health_url).status_code == 200
        except httpx2.HTTPError:
            return False

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RunningEngine | None:
        try:
            return cls(
                pid=int(data["pid"]),
                port=int(data["port"]),
                model=str(data["model"]),
                log=str(data["log"]),
                started_at=str(data["started_at"]),
            )
        except (KeyError, TypeError, ValueError):
            return None


def recorded_engine(home: Path | None = None) -> RunningEngine | None:
    """The engine the state file names, alive or not (no lock taken)."""
    data = read_json(EnginePaths.resolve(home).running_state)
    return None if data is None else RunningEngine.from_json(data)


def running_engine(home: Path | None = None) -> RunningEngine | None:
    """The background engine, when one is recorded, alive and answering ``/health``."""
    engine = recorded_engine(home)
    if engine is None or not engine.alive or not engine.healthy():
        return None
    return engine


@contextlib.contextmanager
def _locked(paths: EnginePaths, *, wait: bool = True) -> Iterator[bool]:
    """Hold the engine's lock; yields False instead when ``wait`` is off and another process
    holds it (an engine is starting or stopping)."""
    lock = paths.running_lock
    lock.parent.mkdir(parents=True, exist_ok=True)
    with lock.open("a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _live_or_cleaned(paths: EnginePaths) -> RunningEngine | None:
    """Under the lock: the recorded engine if its group is alive, else remove a stale state."""
    engine = recorded_engine(paths.home)
    if engine is not None and engine.alive:
        return engine
    with contextlib.suppress(FileNotFoundError):
        paths.running_state.unlink()
    return None


def _write_state(paths: EnginePaths, engine: RunningEngine) -> None:
    target = paths.running_state
    temporary = target.with_suffix(".tmp")
    temporary.write_text(json.dumps(asdict(engine), indent=2))
    os.replace(temporary, target)


def _embedded(progress: EngineProgress) -> VLLMServer:
    return VLLMServer.embedded(progress)


@dataclass(frozen=True)
class StartOutcome:
    engine: RunningEngine
    already_running: bool


def start_engine(
    progress: EngineProgress | None = None,
    *,
    home: Path | None = None,
    server: ServerFactory = _embedded,
    warm_up_with: CompletionRequest | None = None,
) -> StartOutcome:
    """Start the background engine and wait until it is ready, or find the one running.

    A newly started engine is then sent ``warm_up_with``, when given (see
    :mod:`mcp_sim.engine.warm_up`); one found running is not, having answered before.
    The lock is held while the server loads and warms up, so a concurrent start waits and then
    finds it warm.
    """
    report = progress or ignore_progress
    paths = EnginePaths.resolve(home)
    with _locked(paths):
        found = _live_or_cleaned(paths)
        if found is not None:
            return StartOutcome(found, already_running=True)
        launched = server(report)
        launched.detached = True
        launched.start()
        engine = RunningEngine(
            pid=launched.release(),
            port=launched.port,
            model=launched.served_model,
            log=str(launched.log_path),
            started_at=datetime.now(UTC).isoformat(timespec="seconds"),
        )
        # Recorded before the warm-up, so that an engine interrupted while it warms up is
        # still found, and stopped, by the next command.
        _write_state(paths, engine)
        if warm_up_with is not None:
            warm_up(engine.base_url, engine.model, warm_up_with, report)
        return StartOutcome(engine, already_running=False)


def stop_engine(home: Path | None = None) -> RunningEngine | None:
    """Stop the background engine and everything it spawned, and remove its state file;
    returns what was stopped, or None when nothing was running."""
    paths = EnginePaths.resolve(home)
    with _locked(paths):
        engine = _live_or_cleaned(paths)
        if engine is None:
            return None
        for pause in stop_detached_group(engine.pid):
            time.sleep(pause)
        paths.running_state.unlink(missing_ok=True)
        return engine


def engine_run_status(home: Path | None = None) -> dict[str, Any]:
    """Whether the background engine runs, for ``mcp-sim engine status`` (JSON-serializable).

    ``state`` is ``running``, ``stopped``, ``starting`` (another process holds the lock), or
    ``unhealthy`` (alive but not answering ``/health``).
    """
    paths = EnginePaths.resolve(home)
    with _locked(paths, wait=False) as acquired:
        engine = _live_or_cleaned(paths) if acquired else recorded_engine(paths.home)
    if engine is None:
        return {"state": "starting" if not acquired else "stopped"}
    healthy = engine.healthy()
    state = "running" if healthy else ("starting" if not acquired else "unhealthy")
    return {"state": state, **asdict(engine), "url": engine.base_url}


def engine_report(home: Path | None = None) -> dict[str, Any]:
    """What ``mcp-sim engine status`` prints: what is installed and cached
    (:func:`~mcp_sim.engine.install_state.engine_status`) and whether the engine runs."""
    return {**engine_status(home), "running": engine_run_status(home)}
