"""How the command ends when the world around it says no: a port another server holds is one
line naming the flag (and nothing said about serving before it), and a reader that closes
stdout early (``mcp-sim schema | head -1``) ends the command quietly."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlparse

import anyio
import pytest
from starlette.responses import PlainTextResponse
from starlette.routing import Route
from starlette.routing import Router as StarletteRouter

from mcp_sim.cli.main import READER_GONE
from mcp_sim.errors import ListenFailed
from mcp_sim.server.http_front import serve_http
from mcp_sim.server.listening import listening_sockets
from tests.conftest import BOOKSTORE, ROOT
from tests.processes import DEAD_MODEL, free_port, run_cli, serving_http

TAKEN = "address already in use (another server is listening there; pick another port)"
QUIET_MODEL = (*DEAD_MODEL, "--context-window", "65536")
"""A model nothing answers for, and a context window given, so that nothing is asked of it
before the server binds its port."""


def test_a_port_another_server_holds_is_one_line_naming_the_flag(tmp_path: Path) -> None:
    with serving_http(BOOKSTORE, *DEAD_MODEL, log=tmp_path / "holder.log") as url:
        port = urlparse(url).port
        for command, flag in (("serve", "--http"), ("ui", "--address")):
            done = run_cli(command, str(BOOKSTORE), flag, f"127.0.0.1:{port}", *QUIET_MODEL)
            assert done.returncode == 1, done.stderr
            assert done.stderr == f"mcp-sim: {flag} 127.0.0.1:{port}: {TAKEN}\n"
            assert done.stdout == ""


def test_an_address_not_of_this_machine_is_refused_before_serving() -> None:
    with pytest.raises(ListenFailed) as refused:
        listening_sockets("192.0.2.1", free_port())  # TEST-NET-1: no machine's address
    assert "not one of this machine's" in refused.value.reason
    with pytest.raises(ListenFailed) as unknown:
        listening_sockets("no-such-host.invalid", free_port())
    assert unknown.value.reason.startswith("unknown host")


async def test_serving_is_announced_once_the_port_accepts_connections() -> None:
    app = StarletteRouter(routes=[Route("/", lambda request: PlainTextResponse("ok"))])
    port = free_port()
    stop = anyio.Event()
    connected: list[bool] = []

    def on_listening() -> None:
        # Called on the server's loop: a blocking connect is fine, the kernel accepts it.
        with socket.create_connection(("127.0.0.1", port), timeout=5):
            connected.append(True)
        stop.set()

    with anyio.fail_after(30):
        await serve_http(app, "127.0.0.1", port, stop=stop, on_listening=on_listening)
    assert connected == [True]


async def test_a_taken_port_raises_before_announcing() -> None:
    app = StarletteRouter(routes=[])
    announced: list[bool] = []
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        with anyio.fail_after(30), pytest.raises(ListenFailed) as refused:
            await serve_http(app, "127.0.0.1", port, on_listening=lambda: announced.append(True))
    assert refused.value.address == f"127.0.0.1:{port}"
    assert announced == []


@pytest.mark.parametrize("command", ["schema", "examples", "perturbations"])
def test_a_closed_stdout_ends_the_command_quietly(command: str) -> None:
    reading, writing = os.pipe()
    os.close(reading)  # the reader is gone before the first byte: every write fails
    try:
        done = subprocess.run(
            [sys.executable, "-m", "mcp_sim", command],
            stdout=writing,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
            timeout=120,
        )
    finally:
        os.close(writing)
    assert done.stderr == ""
    assert done.returncode == READER_GONE


def test_head_reading_one_line_leaves_no_traceback() -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "mcp_sim", "schema"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
    )
    assert process.stdout is not None and process.stderr is not None
    assert process.stdout.readline() == b"{\n"
    process.stdout.close()
    errors = process.stderr.read().decode()
    assert process.wait(timeout=120) in (0, READER_GONE)
    assert "Traceback" not in errors and "Exception ignored" not in errors
