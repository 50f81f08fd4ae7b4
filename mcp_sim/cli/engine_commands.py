"""``mcp-sim engine install|start|stop|status``: the embedded engine (vLLM's CPU build and the
tiny model) that answers when no model endpoint is given, installed ahead of time and kept
running in the background between commands."""

from __future__ import annotations

import json

from mcp_sim.cli.command import Command, Subcommands, add_command, add_group
from mcp_sim.cli.config import EngineConfig
from mcp_sim.cli.console import say


def install(config: EngineConfig) -> int:
    from mcp_sim.engine.install import install_engine  # the engine manager, for this command only

    install_engine(say)
    return 0


def start(config: EngineConfig) -> int:
    # The prompt renderer and the engine manager, for this command only.
    from mcp_sim.cli.engine_warm_up import warm_up_request
    from mcp_sim.engine.background import start_engine

    outcome = start_engine(say, warm_up_with=warm_up_request())
    engine = outcome.engine
    how = "already running" if outcome.already_running else "started"
    say(f"engine: {how} at {engine.base_url} (pid {engine.pid}, log: {engine.log})")
    return 0


def stop(config: EngineConfig) -> int:
    from mcp_sim.engine.background import stop_engine

    stopped = stop_engine()
    say(f"engine: stopped (pid {stopped.pid})" if stopped else "engine: not running")
    return 0


def status(config: EngineConfig) -> int:
    from mcp_sim.engine.background import engine_run_status
    from mcp_sim.engine.install_state import engine_status

    report = {**engine_status(), "running": engine_run_status()}
    print(json.dumps(report, indent=2, default=str))
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
        "start",
        Command(EngineConfig.from_args, start),
        help="start the engine in the background; later commands use it instead of their own",
    )
    add_command(
        actions,
        "stop",
        Command(EngineConfig.from_args, stop),
        help="stop the background engine and everything it started",
    )
    add_command(
        actions,
        "status",
        Command(EngineConfig.from_args, status),
        help="show what is installed and cached, and whether the engine runs (pid, port, log)",
    )
