"""The ``mcp-sim`` command: parse the flags into a command's typed configuration and run the
command's handler (see :mod:`mcp_sim.cli.parser` for the commands)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from mcp_sim import __version__
from mcp_sim.cli.console import UsageError, say
from mcp_sim.errors import ListenFailed, SettingsError, SimError, SpecError

if TYPE_CHECKING:
    from mcp_sim.cli.command import CliParser, Command

READER_GONE = 141
"""The exit status when stdout's reader closed it early (``mcp-sim schema | head -1``): 128 +
SIGPIPE, what a shell shows for a command that signal ended, as ``cat`` or ``yes`` would be."""

_REPORTED = (UsageError, KeyboardInterrupt, SimError, BrokenPipeError)
"""What ``main`` reports in a line (or quietly) instead of a traceback."""


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``mcp-sim ARGV``; the exit status is 0 for success, 1 when the command failed, 2
    for a usage error (one line on stderr), 130 when interrupted and 141 when stdout's reader
    went away before the output ended (quietly, as ``cat`` would)."""
    given = sys.argv[1:] if argv is None else list(argv)
    if given == ["--version"]:
        print(f"mcp-sim {__version__}")
        return 0
    # The parser is generated from the settings models (pydantic): --version does not wait.
    from mcp_sim.cli.parser import build_parser

    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        status = _run(args)
        # Written now, while a reader gone away is still a BrokenPipeError caught here.
        sys.stdout.flush()
        return status
    except UsageError as exc:
        command_parser: CliParser = args.command_parser
        command_parser.error(str(exc))
    except SettingsError as exc:
        # Found once the worlds are read (a profile no world has, budgets past the window).
        settings_parser: CliParser = args.command_parser
        settings_parser.error(str(exc))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        _silence_stdout()
        return READER_GONE
    except ListenFailed as exc:
        # The server's address came from a flag: name it as the user wrote it.
        flag = getattr(args, "address_flag", None)
        say(f"{flag} {exc.address}: {exc.reason}" if flag else str(exc))
        return 1
    except SpecError as exc:
        # One FILE:LINE:COL line a problem, as `validate` prints them.
        for problem in exc.problems:
            print(problem, file=sys.stderr)
        return 1
    except SimError as exc:
        say(str(exc))
        return 1


def _run(args: argparse.Namespace) -> int:
    """The command's handler; an error that ends a task group alone is raised as itself, so
    that a server that could not start reports it in a line like any other command."""
    handler: Command[Any] = args.handler
    try:
        return handler(args)
    except BaseExceptionGroup as group:
        sole: BaseException = group
        while isinstance(sole, BaseExceptionGroup) and len(sole.exceptions) == 1:
            sole = sole.exceptions[0]
        if isinstance(sole, _REPORTED):
            raise sole from None
        raise


def _silence_stdout() -> None:
    """Point stdout at the null device, as Python's documentation advises on SIGPIPE, so that
    the interpreter's own flush at exit does not fail a second time with a traceback."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # replaced, e.g. by a test's capture
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)
