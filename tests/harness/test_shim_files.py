"""The harness shims of a world file, written from Python as ``mcp-sim harness`` writes them:
the TRL class names an example by name and embeds any other world, with its task dataset; the
Inspect task names the world for ``mcp-sim serve``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from mcp_sim.harness.inspect_shim import DEFAULT_SERVER_URL
from mcp_sim.harness.shim_files import inspect_task_file, trl_dataset_file, trl_environment_file
from mcp_sim.harness.trl_shim import trl_environment_source
from mcp_sim.spec.world import World
from mcp_sim.spec.world_files import example_path
from tests.conftest import BOOKSTORE


def test_a_trl_environment_names_an_example_and_embeds_any_other_world(
    tmp_path: Path,
) -> None:
    example = trl_environment_file(example_path("bookstore"), None)
    assert 'world_example = "bookstore"' in example and "WORLD_YAML" not in example
    world = tmp_path / "worlds" / "books.yaml"
    world.parent.mkdir()
    shutil.copy(BOOKSTORE, world)
    embedded = trl_environment_file(world, "http://gpu:8000/v1")
    assert "books.yaml" not in embedded and '"http://gpu:8000/v1"' in embedded
    namespace: dict[str, Any] = {}
    exec(compile(embedded, "env.py", "exec"), namespace)
    assert namespace["WORLD_YAML"] == BOOKSTORE.read_text(encoding="utf-8")
    assert namespace["PaperlaneBooks"].world_yaml == namespace["WORLD_YAML"]


@pytest.mark.parametrize("ending", ['  # said "hi"', "  # a backslash \\", '"""'])
def test_a_world_file_that_no_raw_literal_holds_is_embedded_word_for_word(
    bookstore: World, ending: str
) -> None:
    text = BOOKSTORE.read_text(encoding="utf-8") + ending
    namespace: dict[str, Any] = {}
    source = trl_environment_source(bookstore, None, yaml_text=text)
    exec(compile(source, "env.py", "exec"), namespace)
    assert namespace["WORLD_YAML"] == text


def test_the_task_dataset_has_a_prompt_and_a_task_per_verify_task(tmp_path: Path) -> None:
    rows = [json.loads(line) for line in trl_dataset_file(BOOKSTORE).splitlines()]
    assert [row["task"] for row in rows] == ["gift-order", "no-antarctica"]
    assert rows[1]["prompt"] == [
        {
            "role": "user",
            "content": "A customer asks for Cartographers of Rain shipped to Antarctica.",
        }
    ]
    world = tmp_path / "no_tasks.yaml"
    world.write_text(BOOKSTORE.read_text(encoding="utf-8").split("\nverify:")[0] + "\n")
    with pytest.raises(ValueError, match="no verify tasks for a task dataset"):
        trl_dataset_file(world)


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
