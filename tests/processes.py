"""Start ``mcp-sim serve --http`` as a real subprocess for tests, and stop it afterwards."""

from __future__ import annotations

import json
import queue
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, cast

import mcp.types as types
import pytest

ROOT = Path(__file__).resolve().parent.parent


def request_meta(values: dict[str, Any]) -> types.RequestParamsMeta:
    """Request ``_meta`` with mcp-sim's keys (``mcp-sim/session``, ``mcp-sim/seed``...), which
    are extra keys of the SDK's TypedDict."""
    return cast(types.RequestParamsMeta, values)


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    """``python -m mcp_sim ARGS`` as a subprocess from the repository root, output captured."""
    return subprocess.run(
        [sys.executable, "-m", "mcp_sim", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def wait_for_port(
    port: int,
    process: subprocess.Popen[bytes],
    what: str,
    *,
    seconds: float = 90.0,
    log: Path | None = None,
) -> None:
    """Wait until ``process`` (``what``, in messages) listens on ``port``; fail the test with
    ``log``'s text if it exits first or does not listen in time."""
    shown = f":\n{log.read_text()}" if log is not None else ""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"{what} exited with {process.returncode}{shown}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.02)
    pytest.fail(f"{what} did not listen on port {port} within {seconds:g} s{shown}")


def wait_for_log(
    log: Path, text: str, process: subprocess.Popen[bytes], what: str, seconds: float = 30.0
) -> str:
    """Wait until ``log`` holds ``text`` (a line a process prints once it listens may reach
    its log after the port opens); returns the log, or fails the test with it."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        said = log.read_text()
        if text in said:
            return said
        if process.poll() is not None:
            break
        time.sleep(0.02)
    pytest.fail(f"{what} did not print {text!r} within {seconds:g} s:\n{log.read_text()}")


def wait_until_listening(port: int, process: subprocess.Popen[bytes], log: Path) -> None:
    wait_for_port(port, process, "mcp-sim serve --http", log=log)


def stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@contextmanager
def serving_http(world: Path, *args: str, log: Path) -> Iterator[str]:
    """``mcp-sim serve WORLD --http 127.0.0.1:PORT ARGS...``; yields the ``/mcp`` URL."""
    port = free_port()
    command = [sys.executable, "-m", "mcp_sim", "serve", str(world), *args]
    # The child holds its own copy of the log's descriptor: ours is closed once it has started.
    with log.open("wb") as stderr:
        process = subprocess.Popen(
            [*command, "--http", f"127.0.0.1:{port}"],
            stdout=subprocess.DEVNULL,
            stderr=stderr,
            cwd=ROOT,
        )
    try:
        wait_until_listening(port, process, log)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        stop(process)


DEAD_MODEL = ("--model-url", "http://127.0.0.1:9/v1", "--timeout", "5", "--retries", "0")
"""A model URL nothing listens on: calls that need the model fail fast, the rest are served."""


class RawStdio:
    """``mcp-sim serve`` over stdio, spoken to in raw lines: what is sent is sent as it is,
    and every line that comes back is kept in order."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self.process = process
        self._lines: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self._lines.put(line)

    def send(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data + b"\n")
        self.process.stdin.flush()

    def reply(self, timeout: float = 30.0) -> dict[str, Any]:
        """The next message from the server; fails the test if none comes within ``timeout``
        seconds (a guard against a hang, not a bound on speed)."""
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            pytest.fail(f"mcp-sim sent nothing for {timeout} s")
        message: dict[str, Any] = json.loads(line)
        return message

    def request(self, request_id: int | str, method: str, params: Any = None) -> dict[str, Any]:
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(json.dumps(message).encode())
        return self.reply()


@contextmanager
def serving_stdio(world: Path, *args: str, log: Path) -> Iterator[RawStdio]:
    """``mcp-sim serve WORLD ARGS...`` on stdio, initialized (protocol 2025-11-25)."""
    with log.open("wb") as stderr:
        process = subprocess.Popen(
            [sys.executable, "-m", "mcp_sim", "serve", str(world), *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            cwd=ROOT,
        )
    try:
        wire = RawStdio(process)
        client = {"name": "raw-test", "version": "0"}
        params = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": client}
        assert "result" in wire.request("init", "initialize", params)
        wire.send(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}')
        yield wire
    finally:
        if process.stdin is not None:
            process.stdin.close()
        stop(process)
