"""The Claude Desktop bundle as Desktop runs it: ``mcpb/`` packed by the MCPB CLI, unpacked
into a fresh folder, its environment synced by uv and started with its ``mcp_config`` and
nothing else in the environment, no PATH included (Desktop passes none of the user's); and the
launcher that picks the world from the user's settings (:mod:`mcp_sim.cli.desktop_bundle`)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client import stdio
from mcp.client.stdio import stdio_client

from mcp_sim.cli.desktop_bundle import EXAMPLE_ENV, WORLD_FILE_ENV, chosen, serve_argv
from mcp_sim.spec.loading import load_world
from mcp_sim.spec.world_files import example_path
from tests.checkout_wheel import checkout_wheel
from tests.cli.test_host_manifests import MCPB, uses_mcpb
from tests.conftest import ROOT
from tests.reference_servers import NODE22_BIN

# Desktop's own uv: the one beside this interpreter (the dev extra), by its absolute path.
DESKTOP_UV = Path(sys.executable).parent / "uv"


@pytest.mark.parametrize(
    ("environ", "argv"),
    [
        ({}, ["serve", "--example", "bookstore"]),
        ({EXAMPLE_ENV: "shop", WORLD_FILE_ENV: ""}, ["serve", "--example", "shop"]),
        ({EXAMPLE_ENV: "shop", WORLD_FILE_ENV: "/w/mine.yaml"}, ["serve", "/w/mine.yaml"]),
        # A host that leaves an unset setting's placeholder unfilled.
        (
            {EXAMPLE_ENV: " ", WORLD_FILE_ENV: "${user_config.world_file}"},
            ["serve", "--example", "bookstore"],
        ),
    ],
)
def test_the_launcher_serves_the_world_file_else_the_example(
    environ: dict[str, str], argv: list[str]
) -> None:
    assert serve_argv(environ) == argv


def test_an_unset_setting_reads_as_none() -> None:
    assert chosen({"A": "", "B": "${user_config.b}"}, "A") is None
    assert chosen({"B": "${user_config.b}"}, "B") is None
    assert chosen({}, "C") is None
    assert chosen({"D": " shop "}, "D") == "shop"


def pack_and_unpack(into: Path) -> Path:
    """``mcpb pack mcpb``, then the archive unzipped into a fresh folder whose name has a
    space, like Desktop's ``Claude Extensions``."""
    archive = into / "mcp-sim.mcpb"
    node = Path(NODE22_BIN) / "node"
    cli = MCPB / "dist" / "cli" / "cli.js"
    done = subprocess.run(
        [str(node), str(cli), "pack", "mcpb", str(archive)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    unpacked = into / "Claude Extensions" / "local.mcpb.mcp-sim"
    with zipfile.ZipFile(archive) as bundle:
        bundle.extractall(unpacked)
    return unpacked


def install_like_desktop(bundle: Path, scratch: Path) -> None:
    """The install step of a ``uv`` bundle: uv syncs the environment of the bundle's
    ``pyproject.toml`` beside the manifest, from the package index. mcp-sim itself comes from
    a wheel of this checkout (``--find-links``): the pinned release is what users get, this
    checkout is what is tested. The interpreter is this test's, so that uv downloads none."""
    wheels = scratch / "wheels"
    checkout_wheel(scratch / "build", wheels)
    run(
        DESKTOP_UV,
        "sync",
        "--directory",
        bundle,
        "--find-links",
        wheels,
        "--python",
        sys.executable,
    )


def run(*command: str | Path) -> None:
    done = subprocess.run(
        [str(part) for part in command], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, f"{command}: {done.stderr[-4000:]}"


def desktop_launch(bundle: Path, settings: dict[str, str]) -> StdioServerParameters:
    """The process Desktop starts: the unpacked manifest's ``mcp_config`` with
    ``${__dirname}`` and the user's settings filled in, ``uv`` being Desktop's own."""
    manifest: dict[str, Any] = json.loads((bundle / "manifest.json").read_text(encoding="utf-8"))
    mcp_config = manifest["server"]["mcp_config"]
    values = {"__dirname": str(bundle), **{f"user_config.{k}": v for k, v in settings.items()}}

    def filled(text: str) -> str:
        return re.sub(r"\$\{([\w.]+)\}", lambda m: values[m[1]], text)

    assert mcp_config["command"] == "uv"
    return StdioServerParameters(
        command=str(DESKTOP_UV),
        args=[filled(arg) for arg in mcp_config["args"]],
        env={name: filled(value) for name, value in mcp_config["env"].items()},
        cwd="/",
    )


@pytest.mark.peers
@uses_mcpb
@pytest.mark.skipif(not DESKTOP_UV.is_file(), reason="uv (from the dev extra) is not installed")
async def test_the_packed_bundle_answers_tools_list_with_an_empty_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bundle = pack_and_unpack(tmp_path)
    packed = {str(p.relative_to(bundle)) for p in bundle.rglob("*") if p.is_file()}
    assert packed == {"manifest.json", "icon.png", "pyproject.toml", "server/main.py"}
    install_like_desktop(bundle, tmp_path)
    settings = {
        "example": "shop",
        "world_file": "",
        "model_url": "http://127.0.0.1:9/v1",
        "api_key": "",
    }
    server = desktop_launch(bundle, settings)
    # The SDK would add its own defaults (PATH and HOME among them) under the given ones.
    monkeypatch.setattr(stdio, "get_default_environment", dict)
    with anyio.fail_after(60):
        async with (
            stdio_client(server) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            listed = await session.list_tools()
    shop = load_world(example_path("shop"))
    assert sorted(t.name for t in listed.tools) == sorted(t.name for t in shop.tools)
