"""The harness shims of a world file, written from Python as ``mcp-sim harness`` writes them:
the world named as the place the shim is written to will find it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from mcp_sim.harness.shim_files import DEFAULT_SERVER_URL, inspect_task_file, trl_environment_file
from mcp_sim.spec.world import World
from mcp_sim.spec.world_files import example_path
from tests.conftest import BOOKSTORE


def test_a_trl_environment_opens_the_world_relative_to_its_own_folder(
    bookstore: World, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    world = tmp_path / "worlds" / "books.yaml"
    world.parent.mkdir()
    shutil.copy(BOOKSTORE, world)
    beside = trl_environment_file(bookstore, world, tmp_path / "envs" / "env.py", None)
    assert '"../worlds/books.yaml"' in beside
    monkeypatch.chdir(tmp_path)
    printed = trl_environment_file(bookstore, world, None, "http://gpu:8000/v1")
    assert '"worlds/books.yaml"' in printed and '"http://gpu:8000/v1"' in printed


def test_an_inspect_task_names_an_example_as_an_example_and_a_file_by_its_path(
    bookstore: World, tmp_path: Path
) -> None:
    example = inspect_task_file(bookstore, example_path("bookstore"), None, None)
    assert "mcp-sim serve --example bookstore" in example
    assert DEFAULT_SERVER_URL in example and "inspect_task.py" in example
    copy = tmp_path / "books.yaml"
    shutil.copy(BOOKSTORE, copy)
    mine = inspect_task_file(bookstore, copy, tmp_path / "books_task.py", "http://sim:1/")
    assert f"mcp-sim serve {copy.as_posix()}" in mine
    assert "books_task.py" in mine and "http://sim:1/" in mine
