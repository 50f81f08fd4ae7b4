"""Real services for the tests of durable episodes: ``redis-server`` and ``haproxy`` from the
system's packages (``scripts/test`` installs them), each started on free loopback ports for the
length of a test and stopped afterwards.

Where a binary is missing the test is skipped, except in CI (``CI=true``), where it fails: CI
must run these tests with the real parts.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.processes import free_port, stop, wait_for_port


def binary(name: str) -> str:
    """The path of system binary ``name`` (also looked for in /usr/sbin, which a non-root
    PATH may lack)."""
    found = shutil.which(name) or shutil.which(name, path="/usr/sbin:/usr/bin")
    if found is None:
        message = f"{name} is not installed (apt-get install {name}; scripts/test does it)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return found


@contextmanager
def redis_server(folder: Path) -> Iterator[str]:
    """A throwaway ``redis-server`` on a free port, nothing saved to disk; yields its URL."""
    port = free_port()
    command = [binary("redis-server"), "--port", str(port), "--bind", "127.0.0.1"]
    process = subprocess.Popen(
        [*command, "--save", "", "--appendonly", "no", "--dir", str(folder)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_port(port, process, "redis-server", seconds=30)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        stop(process)


HAPROXY_TEMPLATE = Path(__file__).resolve().parent.parent / "examples/deploy/haproxy.cfg"


@contextmanager
def haproxy(folder: Path, workers: list[int]) -> Iterator[str]:
    """HAProxy with the shipped configuration (``examples/deploy/haproxy.cfg``) in front of the
    workers on ``workers`` (loopback ports); yields the balancer's base URL."""
    port = free_port()
    config = HAPROXY_TEMPLATE.read_text(encoding="utf-8")
    servers = "\n".join(
        f"    server worker{i} 127.0.0.1:{p} check inter 500ms fall 2 rise 2"
        for i, p in enumerate(workers, 1)
    )
    start, end = "    # --- workers ---", "    # --- end of workers ---"
    config = config.split(start)[0] + servers + "\n" + config.split(end)[1]
    config = config.replace("bind :8080", f"bind 127.0.0.1:{port}")
    path = folder / "haproxy.cfg"
    path.write_text(config, encoding="utf-8")
    with (folder / "haproxy.log").open("wb") as stderr:  # the child keeps its own copy
        process = subprocess.Popen(
            [binary("haproxy"), "-f", str(path), "-db"], stdout=subprocess.DEVNULL, stderr=stderr
        )
    try:
        wait_for_port(port, process, "haproxy", seconds=30)
        yield f"http://127.0.0.1:{port}"
    finally:
        stop(process)
