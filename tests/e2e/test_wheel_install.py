"""mcp-sim as an MCP host installs it: a wheel built from the checkout, installed with its
dependencies into a fresh venv and run outside the checkout, serves an example world over stdio
with every tool annotated (hosts gate on readOnlyHint)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import anyio
import httpx2
import pytest
from mcp import Client, StdioServerParameters

from tests.checkout_wheel import checkout_wheel
from tests.conftest import ROOT
from tests.processes import free_port, stop, wait_for_port

DEAD_MODEL = ["--model-url", "http://127.0.0.1:9/v1"]


def outside_env() -> dict[str, str]:
    """This environment without PYTHONPATH: one naming the checkout makes the fresh venv's pip
    see mcp-sim as installed already (its egg-info), so it skips the wheel and installs no
    command, and makes the installed command import the checkout instead of the wheel."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}


def run(*command: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [str(part) for part in command],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=600,
        env=outside_env(),
    )
    assert done.returncode == 0, f"{command}: {done.stderr[-4000:]}"
    return done


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The bin folder of a fresh venv holding the wheel of this checkout and its dependencies
    (from the package index pip is configured with)."""
    home = tmp_path_factory.mktemp("wheel-install")
    wheel = checkout_wheel(home / "build", home / "dist")
    run(sys.executable, "-m", "venv", home / "venv", cwd=home)
    bin_dir = home / "venv" / "bin"
    installing = run(bin_dir / "python", "-m", "pip", "install", wheel, cwd=home)
    # A wheel that installs without its command would fail each test on a missing file.
    assert (bin_dir / "mcp-sim").exists(), f"no bin/mcp-sim: {installing.stdout[-4000:]}"
    yield bin_dir


def test_the_wheel_lists_its_example_worlds_outside_the_checkout(installed: Path) -> None:
    listed = run(installed / "mcp-sim", "examples", cwd=installed).stdout
    shipped = sorted(p.stem for p in (ROOT / "worlds").glob("*.yaml"))
    assert [line.split()[0] for line in listed.splitlines()[: len(shipped)]] == shipped
    assert str(ROOT) not in listed


async def test_an_installed_wheel_serves_an_example_with_every_tool_annotated(
    installed: Path,
) -> None:
    params = StdioServerParameters(
        command=str(installed / "mcp-sim"),
        args=["serve", "--example", "bookstore", *DEAD_MODEL],
        cwd=str(installed),
    )
    with anyio.fail_after(120):
        async with Client(params) as client:
            tools = (await client.list_tools()).tools
    assert {t.name for t in tools} == {"search_books", "get_book", "place_order", "cancel_order"}
    read_only = {t.name: t.annotations and t.annotations.read_only_hint for t in tools}
    assert read_only == {
        "search_books": True,
        "get_book": True,
        "place_order": False,
        "cancel_order": False,
    }


def test_an_installed_wheel_serves_the_workbench_page(installed: Path, tmp_path: Path) -> None:
    """The page's files are package data: a wheel that forgot them would serve 500s."""
    port = free_port()
    log = tmp_path / "ui.log"
    command = [str(installed / "mcp-sim"), "ui", "--example", "bookstore", *DEAD_MODEL]
    command += ["--address", f"127.0.0.1:{port}", "--auth-token", "t0ken"]
    with log.open("wb") as stderr:  # the child keeps its own copy
        process = subprocess.Popen(command, stderr=stderr, cwd=installed, env=outside_env())
    try:
        wait_for_port(port, process, "mcp-sim ui from the wheel", log=log)
        for path, starts in [("/ui", "<!doctype html>"), ("/ui/workbench.js", "// The mcp-sim")]:
            reply = httpx2.get(f"http://127.0.0.1:{port}{path}", timeout=10)
            assert reply.status_code == 200 and reply.text.startswith(starts), path
        overview = httpx2.get(
            f"http://127.0.0.1:{port}/ui/api/overview",
            headers={"authorization": "Bearer t0ken"},
            timeout=10,
        ).json()
        assert [w["id"] for w in overview["worlds"]] == ["paperlane-books"]
    finally:
        stop(process)
