"""A launched vLLM in a process group of its own: a supervisor that starts it and outlives
no owner, and stopping everything in the group.

vLLM's API server spawns an engine process (and on GPUs, workers); stopping only the
process we started would leave those running with gigabytes of memory.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO

_STOP_GRACE_S = 10.0

# Runs first in the server's process group, with mcp-sim's own python, and starts vLLM as
# its child. SIGTERM is passed on to vLLM alone: signalling the whole group would kill
# vLLM's engine process under its API server, which then logs a crash and leaks shared
# memory instead of shutting down in order. And if mcp-sim dies without stopping the
# server (SIGKILL, an MCP client killing its stdio server), nobody else would ever stop a
# 5 GB vLLM: this notices its parent is gone and takes the group down. A detached server
# (``mcp-sim engine start``) outlives the command that started it, so it skips that watch.
_SUPERVISOR = """\
import os, signal, subprocess, sys
parent = os.getppid()
watch_parent = sys.argv[1] == "watch"
child = subprocess.Popen(sys.argv[2:])
signal.signal(signal.SIGTERM, lambda *_: child.terminate())
while True:
    try:
        code = child.wait(timeout=1.0)
    except subprocess.TimeoutExpired:
        if watch_parent and os.getppid() != parent:
            child.terminate()
            try:
                child.wait(timeout=GRACE)
            except subprocess.TimeoutExpired:
                pass
            os.killpg(0, signal.SIGKILL)
        continue
    sys.exit(code if code >= 0 else 128 - code)
""".replace("GRACE", str(_STOP_GRACE_S))


def spawn_supervised(
    command: Sequence[str], log: IO[bytes], env: Mapping[str, str], *, detached: bool = False
) -> subprocess.Popen[bytes]:
    """Start ``command`` under the supervisor, leading a new process group (and session),
    its output in ``log``; the returned process's pid is also the group's id. A ``detached``
    one keeps running when its starter exits."""
    mode = "detached" if detached else "watch"
    return subprocess.Popen(
        [sys.executable, "-c", _SUPERVISOR, mode, *command],
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=subprocess.STDOUT,
        env=env,
        start_new_session=True,
    )


def group_alive(pgid: int) -> bool:
    """Whether any live (non-zombie) process remains in the process group."""
    proc = Path("/proc")
    if not proc.is_dir():
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True
    for stat in proc.glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        # After the command name: state, ppid, pgrp, ...; zombies need only reaping.
        if len(fields) > 2 and fields[2] == str(pgid) and fields[0] not in ("Z", "X"):
            return True
    return False


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def stop_group(process: subprocess.Popen[bytes]) -> Iterator[float]:
    """Ask vLLM to shut down, then SIGKILL what is left of the group after a grace period;
    yields how long to wait between checks, so that sync and async callers share it."""
    if process.poll() is None:
        process.terminate()  # the supervisor passes it on to vLLM
    yield from _until_gone(process.pid, reap=process.poll)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=1.0)


def stop_detached_group(pgid: int) -> Iterator[float]:
    """:func:`stop_group` for a group another process started (``mcp-sim engine start``):
    only its id is known, and its leader is the supervisor."""
    _signal_leader(pgid, signal.SIGTERM)
    yield from _until_gone(pgid, reap=lambda: None)


def _signal_leader(pid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(pid, sig)


def _until_gone(pgid: int, reap: Callable[[], object]) -> Iterator[float]:
    deadline = time.monotonic() + _STOP_GRACE_S
    killed = False
    while True:
        reap()
        if not group_alive(pgid):
            break
        if time.monotonic() >= deadline:
            if killed:
                break
            _signal_group(pgid, signal.SIGKILL)
            killed = True
            deadline = time.monotonic() + _STOP_GRACE_S
        yield 0.2
