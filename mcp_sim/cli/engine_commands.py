"""``mcp-sim engine install|start|stop|status``: the embedded engine (vLLM's CPU build and the
tiny model) that answers when no model endpoint is given, installed ahead of time and kept
running in the background between commands."""

from __future__ import annotations

import json

from mcp_sim.cli.command import Command, HelpExample, NoOptions, Subcommands, add_command, add_group
from mcp_sim.cli.console import say


class EngineInstall(NoOptions):
    """Install the embedded engine (vLLM's CPU build in a private virtual environment) and
    convert its model now, rather than on the first command that needs them."""

    summary = "install the engine and convert the model now"
    examples = (
        HelpExample("mcp-sim engine install", "install it now"),
        HelpExample(
            "mcp-sim engine install && mcp-sim engine start",
            "install it, then keep it running",
        ),
    )


class EngineStart(NoOptions):
    """Start the embedded engine in the background and return once it is ready and warm; serve,
    call and ui use it instead of starting their own until engine stop."""

    summary = "start the engine in the background; later commands use it instead of their own"
    examples = (
        HelpExample("mcp-sim engine start", "start it"),
        HelpExample(
            """mcp-sim engine start && mcp-sim call --example bookstore get_book --args """
            """'{"book_id": "b3"}'""",
            "start it, then make calls without waiting for a model each time",
        ),
    )


class EngineStop(NoOptions):
    """Stop the background engine that engine start left running, and every process it started."""

    summary = "stop the background engine and everything it started"
    examples = (
        HelpExample("mcp-sim engine stop", "stop it"),
        HelpExample("mcp-sim engine stop; mcp-sim engine start", "restart it"),
    )


class EngineStatus(NoOptions):
    """Print as JSON what is installed and cached for the embedded engine, and whether it runs
    in the background (its pid, port, URL and log)."""

    summary = "show what is installed and cached, and whether the engine runs (pid, port, log)"
    examples = (
        HelpExample("mcp-sim engine status", "all of it"),
        HelpExample("mcp-sim engine status | jq .running", "whether it runs, and where"),
    )


def install(config: NoOptions) -> int:
    from mcp_sim.engine.install import install_engine  # the engine manager, for this command only

    install_engine(say)
    return 0


def start(config: NoOptions) -> int:
    # The prompt renderer and the engine manager, for this command only.
    from mcp_sim.api.engine_warm_up import warm_up_request
    from mcp_sim.engine.background import start_engine

    outcome = start_engine(say, warm_up_with=warm_up_request())
    engine = outcome.engine
    how = "already running" if outcome.already_running else "started"
    say(f"engine: {how} at {engine.base_url} (pid {engine.pid}, log: {engine.log})")
    return 0


def stop(config: NoOptions) -> int:
    from mcp_sim.engine.background import stop_engine

    stopped = stop_engine()
    say(f"engine: stopped (pid {stopped.pid})" if stopped else "engine: not running")
    return 0


def status(config: NoOptions) -> int:
    from mcp_sim.engine.background import engine_report

    print(json.dumps(engine_report(), indent=2, default=str))
    return 0


def register(subcommands: Subcommands) -> None:
    actions = add_group(
        subcommands,
        "engine",
        help="manage the embedded engine (vLLM CPU + tiny model)",
        metavar="ACTION",
        description="Manage the embedded engine, the world model that answers when no "
        "--model-url or --vllm is given: install it ahead of time, or keep one running in "
        "the background that later commands use instead of starting their own.",
        examples=[
            HelpExample("mcp-sim engine start", "keep one running while you iterate on a world"),
            HelpExample("mcp-sim engine stop", "stop it"),
        ],
    )
    add_command(actions, "install", Command(EngineInstall, install))
    add_command(actions, "start", Command(EngineStart, start))
    add_command(actions, "stop", Command(EngineStop, stop))
    add_command(actions, "status", Command(EngineStatus, status))
