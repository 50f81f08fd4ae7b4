"""The ``mcp-sim`` command: parse the flags into a command's typed configuration and run the
command's handler (see :mod:`mcp_sim.cli.parser` for the commands)."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

from mcp_sim import __version__
from mcp_sim.cli.command import CliParser, Command
from mcp_sim.cli.console import UsageError, say
from mcp_sim.errors import SettingsError, SimError, SpecError


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``mcp-sim ARGV``; the exit status is 0 for success, 1 when the command failed, 2
    for a usage error (one line on stderr) and 130 when interrupted."""
    given = sys.argv[1:] if argv is None else list(argv)
    if given == ["--version"]:
        # Before the parser, which is generated from the settings models (pydantic).
        print(f"mcp-sim {__version__}")
        return 0
    # The parser is generated from the settings models (pydantic): --version does not wait.
    from mcp_sim.cli.parser import build_parser

    parser = build_parser()
    args = parser.parse_args(argv)
    handler: Command[Any] = args.handler
    try:
        return handler(args)
    except UsageError as exc:
        command_parser: CliParser = args.command_parser
        command_parser.error(str(exc))
    except SettingsError as exc:
        # Found once the worlds are read (a profile no world has, budgets past the window).
        settings_parser: CliParser = args.command_parser
        settings_parser.error(str(exc))
    except KeyboardInterrupt:
        return 130
    except SpecError as exc:
        # One FILE:LINE:COL line a problem, as `validate` prints them.
        for problem in exc.problems:
            print(problem, file=sys.stderr)
        return 1
    except SimError as exc:
        say(str(exc))
        return 1
