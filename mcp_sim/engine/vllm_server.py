"""A vLLM OpenAI-compatible server that mcp-sim launches and stops: the embedded tiny model
on vLLM CPU (installed first if need be), or a GPU model (``--vllm MODEL``)."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import IO, Self

import anyio
import anyio.to_thread

from mcp_sim.engine.command_lines import (
    EMBEDDED_MAX_MODEL_LEN,
    LOOPBACK,
    embedded_command,
    embedded_env,
    free_port,
    gpu_command,
    gpu_env,
    option_value,
)
from mcp_sim.engine.install import install_engine
from mcp_sim.engine.install_state import engine_installed
from mcp_sim.engine.logs import prune_logs, tail
from mcp_sim.engine.paths import EMBEDDED_MODEL_NAME, EnginePaths
from mcp_sim.engine.process_group import spawn_supervised, stop_group
from mcp_sim.engine.progress import EngineProgress, ignore_progress
from mcp_sim.engine.readiness import await_ready, wait_until_ready
from mcp_sim.errors import EngineError


class VLLMServer:
    """vLLM's OpenAI-compatible server as a subprocess in its own process group.

    ``async with VLLMServer.embedded(progress=print) as server: server.base_url``, or
    ``start()`` / ``stop()`` where no event loop runs (a pytest session fixture).
    """

    def __init__(
        self,
        command: Sequence[str],
        *,
        port: int,
        served_model: str,
        log_path: Path,
        env: Mapping[str, str] | None = None,
        progress: EngineProgress | None = None,
        ready_timeout: float = 600.0,
        prepare: Callable[[], None] | None = None,
        label: str | None = None,
        detached: bool = False,
    ) -> None:
        self.command = list(command)
        self.port = port
        self.served_model = served_model
        self.log_path = log_path
        self.env = dict(os.environ if env is None else env)
        self.progress: EngineProgress = progress or ignore_progress
        self.ready_timeout = ready_timeout
        self.label = label or served_model
        self.detached = detached
        """Whether the server outlives this process (``mcp-sim engine start``); see
        :meth:`release`."""
        self._prepare = prepare
        self._process: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None

    @classmethod
    def embedded(
        cls,
        progress: EngineProgress | None = None,
        *,
        home: Path | None = None,
        port: int | None = None,
        max_model_len: int = EMBEDDED_MAX_MODEL_LEN,
        ready_timeout: float = 600.0,
    ) -> VLLMServer:
        """The tiny model on vLLM CPU; installs the engine first if it is not there yet."""
        paths = EnginePaths.resolve(home)
        port = port or free_port()
        report = progress or ignore_progress

        def prepare() -> None:
            if not engine_installed(paths.home):
                report("engine: first use, installing the embedded engine (a few minutes)")
                install_engine(report, home=paths.home)

        return cls(
            embedded_command(paths, port, max_model_len),
            port=port,
            served_model=EMBEDDED_MODEL_NAME,
            log_path=paths.logs / f"vllm-{port}.log",
            env=embedded_env(paths),
            progress=progress,
            ready_timeout=ready_timeout,
            prepare=prepare,
        )

    @classmethod
    def gpu(
        cls,
        model: str,
        extra_args: Sequence[str] = (),
        progress: EngineProgress | None = None,
        *,
        home: Path | None = None,
        port: int | None = None,
        ready_timeout: float = 3600.0,
    ) -> VLLMServer:
        """A GPU model (``--vllm MODEL``); the long default timeout covers a first download."""
        paths = EnginePaths.resolve(home)
        port = port or free_port()
        return cls(
            gpu_command(model, port, extra_args, paths),
            port=port,
            served_model=option_value(extra_args, "--served-model-name") or model,
            log_path=paths.logs / f"vllm-{port}.log",
            env=gpu_env(),
            progress=progress,
            ready_timeout=ready_timeout,
        )

    @property
    def base_url(self) -> str:
        return f"http://{LOOPBACK}:{self.port}/v1"

    @property
    def health_url(self) -> str:
        return f"http://{LOOPBACK}:{self.port}/health"

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    @property
    def pid(self) -> int | None:
        """Process id of the launched group's leader, which is also the group id."""
        return None if self._process is None else self._process.pid

    @property
    def returncode(self) -> int | None:
        return None if self._process is None else self._process.poll()

    def failure(self, what: str) -> EngineError:
        """An error about this server that carries the tail of its log."""
        return EngineError(
            f"vLLM ({self.label}) {what}; last lines of {self.log_path}:\n{tail(self.log_path)}"
        )

    def _launch(self) -> None:
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        prune_logs(self.log_path.parent)
        self._log = self.log_path.open("wb")
        self.progress(f"{self.label}: starting vLLM on {self.base_url} (log: {self.log_path})")
        try:
            self._process = spawn_supervised(
                self.command, self._log, self.env, detached=self.detached
            )
        except OSError as exc:
            self._log.close()
            self._log = None
            raise EngineError(f"cannot start vLLM ({self.label}): {exc}") from exc

    def _stop_steps(self) -> Iterator[float]:
        """Stop the process group, then close the log; yields how long to wait between
        checks."""
        if self._process is None:
            return
        yield from stop_group(self._process)
        if self._log is not None:
            self._log.close()
            self._log = None
        self._process = None

    def release(self) -> int:
        """Leave a started detached server running and forget it; returns its process group
        id, by which another process stops it (``mcp-sim engine stop``)."""
        if self._process is None or not self.detached:
            raise EngineError(f"vLLM ({self.label}) is not a started detached server")
        pgid = self._process.pid
        # Reaped by whoever adopts it; marking it done keeps Popen from warning that a
        # process it started is still running.
        self._process.returncode = 0
        self._process = None
        if self._log is not None:
            self._log.close()
            self._log = None
        return pgid

    def start(self) -> None:
        """Install if needed, launch, and block until ``/health`` answers 200."""
        if self._process is not None:
            return
        if self._prepare is not None:
            self._prepare()
        self._launch()
        try:
            wait_until_ready(self)
        except BaseException:
            self.stop()
            raise

    def stop(self) -> None:
        """Stop the server and everything it spawned; safe to call twice."""
        for pause in self._stop_steps():
            time.sleep(pause)

    async def astart(self) -> None:
        """:meth:`start` for an event loop: installing runs in a worker thread."""
        if self._process is not None:
            return
        if self._prepare is not None:
            await anyio.to_thread.run_sync(self._prepare)
        self._launch()
        try:
            await await_ready(self)
        except BaseException:
            with anyio.CancelScope(shield=True):
                await self.astop()
            raise

    async def astop(self) -> None:
        for pause in self._stop_steps():
            await anyio.sleep(pause)

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    async def __aenter__(self) -> Self:
        await self.astart()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        with anyio.CancelScope(shield=True):
            await self.astop()
