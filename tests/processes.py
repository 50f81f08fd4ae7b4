"""Start ``mcp-sim serve --http`` as a real subprocess for tests, and stop it afterwards."""

from __future__ import annotations

import socket
import subprocess
import sys
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


def wait_until_listening(port: int, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"mcp-sim serve exited with {process.returncode}:\n{log.read_text()}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.05)
    pytest.fail(f"mcp-sim serve --http did not listen within 90 s:\n{log.read_text()}")


def stop(process: subprocess.Popen[bytes]) -> None:
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
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "mcp_sim",
            "serve",
            str(world),
            *args,
            "--http",
            f"127.0.0.1:{port}",
        ],
        stdout=subprocess.DEVNULL,
        stderr=log.open("wb"),
        cwd=ROOT,
    )
    try:
        wait_until_listening(port, process, log)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        stop(process)
