"""The shim files of a world file, as ``mcp-sim harness`` writes them: the TRL class names an
example world by name and embeds any other (so it runs without the file), with its task
dataset; the Inspect task names the world for ``mcp-sim serve``."""

from __future__ import annotations

import json
from pathlib import Path

from mcp_sim.harness.inspect_shim import DEFAULT_SERVER_URL, inspect_task_source
from mcp_sim.harness.trl_shim import trl_dataset_rows, trl_environment_source
from mcp_sim.spec.loading import load_world
from mcp_sim.spec.world_files import example_of


def trl_environment_file(world_path: Path, model_url: str | None) -> str:
    """The TRL environment module of the world file at ``world_path``: bound to the example
    by name when it is one (``--example NAME``), else to the file's text, embedded."""
    world = load_world(world_path)
    example = example_of(world_path)
    if example is not None:
        return trl_environment_source(world, model_url, example=example)
    text = world_path.read_text(encoding="utf-8")
    return trl_environment_source(world, model_url, yaml_text=text)


def trl_dataset_file(world_path: Path) -> str:
    """The task dataset of the world file at ``world_path``, as JSON lines (``datasets``'
    ``load_dataset("json", data_files=FILE)`` reads them): a row per verify task. A world
    without verify tasks raises :class:`ValueError`."""
    world = load_world(world_path)
    if not world.verify:
        raise ValueError(f"{world_path} has no verify tasks for a task dataset")
    return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in trl_dataset_rows(world))


def inspect_task_file(world_path: Path, output: Path | None, server_url: str | None) -> str:
    """The Inspect task module of the world file at ``world_path``, to be written to
    ``output``, for the server at ``server_url`` (default :data:`DEFAULT_SERVER_URL`). Its
    docstring's ``mcp-sim serve`` line names an example world as ``--example NAME`` and any
    other by its path. A world without verify tasks, which Inspect has nothing to score by,
    raises :class:`ValueError`."""
    world = load_world(world_path)
    if not world.verify:
        raise ValueError(f"{world_path} has no verify tasks for Inspect to score")
    example = example_of(world_path)
    return inspect_task_source(
        world,
        world_file=f"--example {example}" if example else world_path.as_posix(),
        server_url=server_url or DEFAULT_SERVER_URL,
        file_name=output.name if output else "inspect_task.py",
    )
