"""The shim files of a world file, as ``mcp-sim harness`` writes them: each names the world
file as the place it is written to will find it."""

from __future__ import annotations

import os
from pathlib import Path

from mcp_sim.harness.inspect_shim import DEFAULT_SERVER_URL, inspect_task_source
from mcp_sim.harness.trl_shim import trl_environment_source
from mcp_sim.spec.loading import load_world
from mcp_sim.spec.world_files import example_of


def trl_environment_file(world_path: Path, output: Path | None, model_url: str | None) -> str:
    """The TRL environment module of the world file at ``world_path``, to be written to
    ``output`` (or printed, from the current folder): it opens the world file by its path
    relative to the module's folder, so that the two can move together."""
    home = (output or Path.cwd() / "x").resolve().parent
    relative = Path(os.path.relpath(world_path.resolve(), home)).as_posix()
    return trl_environment_source(load_world(world_path), relative, model_url)


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
