"""``mcp-sim harness trl|inspect WORLD -o FILE``: write a harness shim for a world (see
:mod:`mcp_sim.harness`)."""

from __future__ import annotations

from pathlib import Path

from mcp_sim.cli.arguments import option
from mcp_sim.cli.command import (
    Command,
    CommandConfig,
    HelpExample,
    Subcommands,
    add_command,
    add_group,
)
from mcp_sim.cli.console import UsageError, write_output
from mcp_sim.cli.example_worlds import world_file
from mcp_sim.harness.inspect_shim import DEFAULT_SERVER_URL
from mcp_sim.settings import values


class HarnessConfig(CommandConfig):
    world: Path = world_file()
    output: Path | None = option("-o", parse=values.output_file, help="write it to this file")


class TrlConfig(HarnessConfig):
    """Write a class for TRL's environment_factory: one typed async method per tool of the
    world, reset and get_reward, each episode simulated in the process with the world model.
    An example world is named by name, any other world file embedded, so the class runs
    wherever mcp-sim is installed; --dataset writes a row per task for GRPOTrainer."""

    summary = "a TRL environment_factory class: one typed method per tool, reset, get_reward"
    examples = (
        HelpExample(
            "mcp-sim harness trl --example bookstore -o trl_environment.py --dataset tasks.jsonl",
            "the bookstore as a TRL environment, and its tasks as a dataset",
        ),
        HelpExample(
            "mcp-sim harness trl worlds/shop.yaml --model-url http://gpu-box:8000/v1 "
            "-o shop_env.py",
            "answered by a model server when $MCP_SIM_MODEL_URL is unset",
        ),
    )

    model_url: str | None = option(
        parse=values.model_url,
        metavar="URL",
        help="the world model the class uses when $MCP_SIM_MODEL_URL is unset",
    )
    dataset: Path | None = option(
        parse=values.output_file,
        metavar="FILE",
        help="also write the world's tasks to FILE as JSON lines, a row per task with a "
        "prompt and a task column (load_dataset('json', data_files=FILE))",
    )


class InspectConfig(HarnessConfig):
    """Write an Inspect task over a served world: a sample per verify task of the world, each
    run in its own episode of an mcp-sim server and scored by the task's checks."""

    summary = "an Inspect task: a sample per verify task, each in its own episode, scored by verify"
    examples = (
        HelpExample(
            "mcp-sim harness inspect --example bookstore -o inspect_task.py",
            "the bookstore's tasks, for a server at the default URL",
        ),
        HelpExample(
            "mcp-sim harness inspect worlds/shop.yaml --server-url http://sim-box:8765 "
            "-o shop_task.py",
            "the shop's tasks, for a server elsewhere",
        ),
    )

    server_url: str | None = option(
        parse=values.http_url,
        metavar="URL",
        help=f"the mcp-sim server the task uses when $MCP_SIM_URL is unset ({DEFAULT_SERVER_URL})",
    )


class OpenEnvConfig(CommandConfig):
    """Write an OpenEnv environment folder for a world: openenv.yaml, a pyproject.toml with a
    `server` script, server/app.py serving the world (with OpenEnv's routes) from
    mcp_sim.asgi, and a Dockerfile; `openenv validate`, `openenv build` and `openenv push`
    take it as it is (run `uv lock` in it first)."""

    summary = "an OpenEnv environment folder that openenv-core's CLI validates, builds and pushes"
    examples = (
        HelpExample(
            "mcp-sim harness openenv --example bookstore -o bookstore_env",
            "the bookstore as an OpenEnv environment",
        ),
        HelpExample(
            "mcp-sim harness openenv worlds/shop.yaml -o shop_env",
            "a world file of your own (copied into the folder)",
        ),
    )

    world: Path = world_file()
    out: Path = option(
        "-o",
        parse=values.output_folder,
        metavar="DIR",
        required=True,
        help="the environment's folder (made if missing)",
    )
    mcp_sim_source: Path | None = option(
        parse=values.project_folder,
        metavar="DIR",
        help="require mcp-sim from this checkout (a uv path source) rather than from PyPI",
    )


def openenv(config: OpenEnvConfig) -> int:
    from mcp_sim.harness.openenv_env import write_openenv_environment

    written = write_openenv_environment(config.world, config.out, config.mcp_sim_source)
    for path in written:
        print(path)
    return 0


def trl(config: TrlConfig) -> int:
    from mcp_sim.harness.shim_files import trl_dataset_file, trl_environment_file

    dataset = None
    if config.dataset is not None:
        try:
            dataset = trl_dataset_file(config.world)
        except ValueError as exc:  # no verify tasks
            raise UsageError("--dataset", str(exc)) from None
    write_output(config.output, trl_environment_file(config.world, config.model_url))
    if dataset is not None:
        write_output(config.dataset, dataset)
    return 0


def inspect(config: InspectConfig) -> int:
    from mcp_sim.harness.shim_files import inspect_task_file

    try:
        text = inspect_task_file(config.world, config.output, config.server_url)
    except ValueError as exc:  # no verify tasks
        raise UsageError("world", str(exc)) from None
    write_output(config.output, text)
    return 0


def register(subcommands: Subcommands) -> None:
    kinds = add_group(
        subcommands,
        "harness",
        help="write a harness shim for a world",
        metavar="HARNESS",
        description="Write the Python file a training or evaluation harness needs to use a "
        "world: a TRL environment class (trl), an Inspect task (inspect) or an OpenEnv "
        "environment folder (openenv).",
        examples=[
            HelpExample("mcp-sim harness trl --example bookstore -o trl_environment.py", "for TRL"),
            HelpExample(
                "mcp-sim harness inspect --example bookstore -o inspect_task.py", "for Inspect"
            ),
        ],
    )
    add_command(kinds, "trl", Command(TrlConfig, trl))
    add_command(kinds, "inspect", Command(InspectConfig, inspect))
    add_command(kinds, "openenv", Command(OpenEnvConfig, openenv))
