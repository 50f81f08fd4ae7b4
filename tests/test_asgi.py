"""``uvicorn mcp_sim.asgi:app`` as a real process, configured only by environment variables:
it serves a shipped world over streamable HTTP with the settings the variables give, and a
bad variable stops the start-up with its name."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from mcp_sim.asgi import world_paths
from mcp_sim.errors import SettingsError
from mcp_sim.spec.world_files import example_path
from tests.processes import ROOT, free_port, stop, wait_for_port

TOKEN = "op3rator-t0ken"
GLASS = {"query": "glass"}


def uvicorn(port: int, env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    """``python -m uvicorn mcp_sim.asgi:app`` with only ``env`` and a PATH."""
    environ = {"PATH": os.environ["PATH"], "HOME": str(log.parent), **env}
    with log.open("wb") as stderr:
        return subprocess.Popen(
            [sys.executable, "-m", "uvicorn", "mcp_sim.asgi:app", "--port", str(port)],
            stdout=subprocess.DEVNULL,
            stderr=stderr,
            cwd=ROOT,
            env=environ,
        )


async def test_uvicorn_serves_an_example_configured_by_the_environment(tmp_path: Path) -> None:
    settings = tmp_path / "settings.toml"
    settings.write_text('model_url = ["http://127.0.0.1:9/v1"]\ntimeout = 5\nretries = 0\n')
    port = free_port()
    env = {
        "MCP_SIM_EXAMPLE": "bookstore",
        "MCP_SIM_CONFIG": str(settings),
        "MCP_SIM_AUTH_TOKEN": TOKEN,
    }
    process = uvicorn(port, env, tmp_path / "uvicorn.log")
    try:
        wait_for_port(port, process, "uvicorn mcp_sim.asgi:app", log=tmp_path / "uvicorn.log")
        url = f"http://127.0.0.1:{port}/mcp"
        # The token from MCP_SIM_AUTH_TOKEN guards every route.
        assert httpx2.get(f"http://127.0.0.1:{port}/episodes").status_code == 401
        with anyio.fail_after(30):
            async with (
                httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"}) as http,
                Client(streamable_http_client(url, http_client=http)) as client,
            ):
                tools = (await client.list_tools()).tools
                assert "search_books" in {t.name for t in tools}
                pinned = await client.call_tool("search_books", GLASS)
                assert not pinned.is_error
                # The dead model URL of the settings file: a clear tool error, fast.
                unpinned = await client.call_tool("search_books", {"query": "nothing pinned"})
                assert unpinned.is_error
    finally:
        stop(process)


def test_a_bad_variable_stops_the_start_up_naming_it(tmp_path: Path) -> None:
    log = tmp_path / "uvicorn.log"
    process = uvicorn(free_port(), {"MCP_SIM_EXAMPLE": "bookstore", "MCP_SIM_TIMEOUT": "soon"}, log)
    try:
        assert process.wait(timeout=60) != 0
    finally:
        stop(process)
    assert "MCP_SIM_TIMEOUT" in log.read_text()


def test_the_worlds_come_from_files_folders_and_examples(tmp_path: Path) -> None:
    folder = tmp_path / "worlds"
    folder.mkdir()
    shop = folder / "shop.yaml"
    shop.write_bytes(example_path("shop").read_bytes())
    bookstore = example_path("bookstore")
    environ = {"MCP_SIM_WORLDS": f"{folder}, {bookstore}", "MCP_SIM_EXAMPLE": "os"}
    assert world_paths(environ) == [shop, bookstore, example_path("os")]


@pytest.mark.parametrize(
    ("environ", "named"),
    [
        ({}, "MCP_SIM_WORLDS"),
        ({"MCP_SIM_WORLDS": "/nowhere/world.yaml"}, "MCP_SIM_WORLDS"),
        ({"MCP_SIM_EXAMPLE": "bookstor"}, "MCP_SIM_EXAMPLE"),
    ],
)
def test_missing_or_unknown_worlds_name_the_variable(environ: dict[str, str], named: str) -> None:
    with pytest.raises(SettingsError) as raised:
        world_paths(environ)
    assert raised.value.source == named
