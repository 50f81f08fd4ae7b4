"""What the command line tells its user, and how it refuses a command it cannot run.

stdout is the MCP wire when serving over stdio, and a command's product (an observation, a
report) otherwise: everything meant for a human goes to stderr.
"""

from __future__ import annotations

import sys
from pathlib import Path


def say(message: str) -> None:
    """One line for the human at the terminal."""
    print(f"mcp-sim: {message}", file=sys.stderr, flush=True)


def write_output(output: Path | None, text: str) -> None:
    """A command's product: written to the file ``output`` (its folder made, and said so), or
    to stdout without one."""
    if output is None:
        sys.stdout.write(text)
        return
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(text, encoding="utf-8")
    say(f"wrote {output}")


class UsageError(Exception):
    """Flags that parse one by one but cannot be used together (or a value that can only be
    checked once the others are known): ``main`` prints it as one line and exits with 2, the
    way argparse reports a bad value."""

    def __init__(self, flag: str, problem: str) -> None:
        super().__init__(f"argument {flag}: {problem}")
        self.flag = flag
