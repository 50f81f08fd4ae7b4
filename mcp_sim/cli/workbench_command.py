"""``mcp-sim ui``: the world designer's workbench, a local web page on a server of the worlds
given (see :mod:`mcp_sim.ui`). Its flags are here; the work is in
:mod:`mcp_sim.cli.workbench_serving`, imported when the command runs."""

from __future__ import annotations

import argparse
import secrets
from dataclasses import dataclass

from mcp_sim.cli.command import Command, HelpExample, Subcommands, add_command
from mcp_sim.cli.example_worlds import add_example_option
from mcp_sim.cli.serve_config import ServeConfig, served_files
from mcp_sim.cli.settings_flags import SIMULATION, add_settings, group_names, read_settings
from mcp_sim.settings import values

DEFAULT_ADDRESS = ("127.0.0.1", 8780)


@dataclass(frozen=True)
class WorkbenchConfig:
    serve: ServeConfig
    """The server under the page: the worlds over HTTP, with the operator's token."""

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> WorkbenchConfig:
        # A page on loopback is still reachable by every local user and program: without a
        # token of the designer's, one is made up and given in the page's URL (as Jupyter does).
        settings = read_settings(args)
        token = settings.server.auth_token or secrets.token_urlsafe(24)
        server = settings.server.model_copy(update={"http": args.address, "auth_token": token})
        serve = ServeConfig(
            served_files(tuple(args.world), args.example),
            settings.model_copy(update={"server": server}),
        )
        serve.check()
        return cls(serve)


def run(config: WorkbenchConfig) -> int:
    from mcp_sim.cli import workbench_serving  # the server stack, loaded for this command only

    return workbench_serving.run(config.serve)


UI_SETTINGS = (*SIMULATION, *group_names("records"), "auth_token", "allow_host")
"""What ``serve`` takes, less how it serves: the page's own server decides that."""


def register(subcommands: Subcommands) -> None:
    p = add_command(
        subcommands,
        "ui",
        Command(WorkbenchConfig.from_args, run),
        help="the world designer's workbench: a local web page to make calls in episodes and "
        "see what the model was shown, what it answered and what each call changed",
        description="Open the world designer's workbench: a local web page where you make "
        "calls in episodes of your worlds and see, for each call, the prompt the model was "
        "shown, what it answered and how the state changed. The page's URL, with its token, "
        "is printed once the server listens.",
        examples=[
            HelpExample("mcp-sim ui worlds/bookstore.yaml", "one world"),
            HelpExample(
                "mcp-sim ui worlds/ --address 127.0.0.1:8781 --journal calls.jsonl",
                "every world of a folder, on another port, each call journaled",
            ),
        ],
    )
    p.add_argument("world", nargs="*", help="world spec (YAML), or a folder of them")
    add_example_option(
        p,
        several=True,
        help="an example world shipped with mcp-sim, with or "
        "instead of world files (see `mcp-sim examples`), e.g. bookstore",
    )
    p.add_argument(
        "--address",
        type=values.host_port,
        default=DEFAULT_ADDRESS,
        metavar="HOST:PORT",
        help="where to serve the page (default 127.0.0.1:8780)",
    )
    p.set_defaults(address_flag="--address")  # named when the address is taken
    add_settings(p, UI_SETTINGS)
