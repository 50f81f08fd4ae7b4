"""The ``mcp-sim`` command: parse the flags into a command's typed configuration and run the
command's handler (see :mod:`mcp_sim.cli.parser` for the commands)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mcp_sim.cli.command import CliParser, Command
from mcp_sim.cli.console import UsageError, say
from mcp_sim.cli.parser import build_parser
from mcp_sim.errors import SimError


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``mcp-sim ARGV``; the exit status is 0 for success, 1 when the command failed, 2
    for a usage error (one line on stderr) and 130 when interrupted."""
    parser = build_parser()
    args = parser.parse_args(argv)
    handler: Command[Any] = args.handler
    try:
        return handler(args)
    except UsageError as exc:
        command_parser: CliParser = args.command_parser
        command_parser.error(str(exc))
    except KeyboardInterrupt:
        return 130
    except SimError as exc:
        say(str(exc))
        return 1
