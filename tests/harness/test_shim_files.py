"""The harness shims of a world file, written from Python as ``mcp-sim harness`` writes them:
the world named as the place the shim is written to will find it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from mcp_sim.harness.inspect_shim import DEFAULT_SERVER_URL
from mcp_sim.harness.shim_files import inspect_task_file, trl_environment_file
from mcp_sim.spec.world_files import example_path
from tests.conftest import BOOKSTORE


def test_a_trl_environment_opens_the_world_relative_to_its_own_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    world = tmp_path / "worlds" / "books.yaml"
    world.parent.mkdir()
    shutil.copy(BOOKSTORE, world)
    beside = trl_environment_file(world, tmp_path / "envs" / "env.py", None)
    assert '"../worlds/books.yaml"' in beside
    monkeypatch.chdir(tmp_path)
    printed = trl_environment_file(world, None, "http://gpu:8000/v1")
    assert '"worlds/books.yaml"' in printed and '"http://gpu:8000/v1"' in printed


def test_an_inspect_task_names_an_example_as_an_example_and_a_file_by_its_path(
    tmp_path: Path,
) -> None:
    example = inspect_task_file(example_path("bookstore"), None, None)
    assert "mcp-sim serve --example bookstore" in example
    assert DEFAULT_SERVER_URL in example and "inspect_task.py" in example
    copy = tmp_path / "books.yaml"
    shutil.copy(BOOKSTORE, copy)
    mine = inspect_task_file(copy, tmp_path / "books_task.py", "http://sim:1/")
    assert f"mcp-sim serve {copy.as_posix()}" in mine
    assert "books_task.py" in mine and "http://sim:1/" in mine


def test_a_world_without_tasks_has_no_inspect_task(tmp_path: Path) -> None:
    world = tmp_path / "no_tasks.yaml"
    text = BOOKSTORE.read_text(encoding="utf-8")
    world.write_text(text.split("\nverify:")[0] + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match="no verify tasks for Inspect to score"):
        inspect_task_file(world, None, None)
