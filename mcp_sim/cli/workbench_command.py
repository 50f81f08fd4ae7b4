"""``mcp-sim ui``: the world designer's workbench, a local web page on a server of the worlds
given (see :mod:`mcp_sim.ui`), served by :mod:`mcp_sim.ui.workbench_serving`."""

from __future__ import annotations

from functools import cached_property
from pathlib import Path

from mcp_sim.cli.arguments import option, settings_of
from mcp_sim.cli.command import Command, CommandConfig, HelpExample, Subcommands, add_command
from mcp_sim.cli.example_worlds import world_files
from mcp_sim.cli.serve_config import ServeConfig
from mcp_sim.cli.settings_flags import SIMULATION
from mcp_sim.settings import values
from mcp_sim.settings.combined import Settings, group_names

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
    def served(self) -> Settings:
        """The settings of the server under the page, with a token."""
        from mcp_sim.ui.workbench_serving import workbench_settings  # the server stack

        return workbench_settings(self.settings, self.address)

    def check(self) -> None:
        ServeConfig(worlds=self.worlds, settings=self.served).check()


def run(config: WorkbenchConfig) -> int:
    import anyio

    from mcp_sim.cli.console import say
    from mcp_sim.ui.workbench_serving import serve_workbench

    # The page's Reload serves the files anew: the server closes (and with it the model it
    # launched, if any) and starts again on the same address, with the same token.
    while anyio.run(serve_workbench, config.worlds, config.served, say):
        say("workbench: reloading the world files")
    return 0


def register(subcommands: Subcommands) -> None:
    page = add_command(subcommands, "ui", Command(WorkbenchConfig, run))
    page.set_defaults(address_flag="--address")  # named when the address is taken
