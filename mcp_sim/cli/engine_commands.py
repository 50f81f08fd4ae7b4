"""``mcp-sim engine install`` and ``mcp-sim engine status``: the embedded engine (vLLM's CPU
build and the tiny model) that answers when no model endpoint is given."""

from __future__ import annotations

import json

from mcp_sim.cli.command import Command, Subcommands, add_command, add_group
from mcp_sim.cli.config import EngineConfig
from mcp_sim.cli.console import say


def install(config: EngineConfig) -> int:
    from mcp_sim.engine.install import install_engine  # the engine manager, for this command only

    install_engine(say)
    return 0


def status(config: EngineConfig) -> int:
    from mcp_sim.engine.install_state import engine_status

    print(json.dumps(engine_status(), indent=2, default=str))
    return 0


def register(subcommands: Subcommands) -> None:
    actions = add_group(
        subcommands,
        "engine",
        help="manage the embedded engine (vLLM CPU + tiny model)",
        metavar="ACTION",
    )
    add_command(
        actions,
        "install",
        Command(EngineConfig.from_args, install),
        help="install the engine and convert the model now",
    )
    add_command(
        actions,
        "status",
        Command(EngineConfig.from_args, status),
        help="show what is installed and cached",
    )
