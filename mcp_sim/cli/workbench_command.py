"""``mcp-sim ui``: the world designer's workbench, a local web page on a server of the worlds
given (see :mod:`mcp_sim.ui`). Its flags are declared here; the work is in
:mod:`mcp_sim.cli.workbench_serving`, imported when the command runs."""

from __future__ import annotations

import secrets
from functools import cached_property
from pathlib import Path

from mcp_sim.cli.arguments import option, settings_of
from mcp_sim.cli.command import Command, CommandConfig, HelpExample, Subcommands, add_command
from mcp_sim.cli.example_worlds import world_files
from mcp_sim.cli.serve_config import ServeConfig
from mcp_sim.cli.settings_flags import SIMULATION, group_names
from mcp_sim.settings import values
from mcp_sim.settings.combined import Settings

DEFAULT_ADDRESS = ("127.0.0.1", 8780)

UI_SETTINGS = (*SIMULATION, *group_names("records"), "auth_token", "allow_host")
"""What ``serve`` takes, less how it serves: the page's own server decides that."""


class WorkbenchConfig(CommandConfig):
    """Open the world designer's workbench: a local web page where you make calls in episodes of
    your worlds and see, for each call, the prompt the model was shown, what it answered and how
    the state changed. The page's URL, with its token, is printed once the server listens."""

    summary = (
        "the world designer's workbench: a local web page to make calls in episodes and see "
        "what the model was shown, what it answered and what each call changed"
    )
    examples = (
        HelpExample("mcp-sim ui worlds/bookstore.yaml", "one world"),
        HelpExample(
            "mcp-sim ui worlds/ --address 127.0.0.1:8781 --journal calls.jsonl",
            "every world of a folder, on another port, each call journaled",
        ),
    )

    worlds: tuple[Path, ...] = world_files(
        "world spec (YAML), or a folder of them",
        "an example world shipped with mcp-sim, with or instead of world files (see `mcp-sim "
        "examples`), e.g. bookstore",
        metavar="world",
    )
    address: tuple[str, int] = option(
        parse=values.host_port,
        metavar="HOST:PORT",
        help="where to serve the page (default 127.0.0.1:8780)",
        default=DEFAULT_ADDRESS,
    )
    settings: Settings = settings_of(UI_SETTINGS)

    @cached_property
    def serve(self) -> ServeConfig:
        """The server under the page: the worlds over HTTP, with the operator's token."""
        # A page on loopback is still reachable by every local user and program: without a
        # token of the designer's, one is made up and given in the page's URL (as Jupyter does).
        token = self.settings.server.auth_token or secrets.token_urlsafe(24)
        server = self.settings.server.model_copy(update={"http": self.address, "auth_token": token})
        return ServeConfig(
            worlds=self.worlds, settings=self.settings.model_copy(update={"server": server})
        )

    def check(self) -> None:
        self.serve.check()


def run(config: WorkbenchConfig) -> int:
    from mcp_sim.cli import workbench_serving  # the server stack, loaded for this command only

    return workbench_serving.run(config.serve)


def register(subcommands: Subcommands) -> None:
    page = add_command(subcommands, "ui", Command(WorkbenchConfig, run))
    page.set_defaults(address_flag="--address")  # named when the address is taken
