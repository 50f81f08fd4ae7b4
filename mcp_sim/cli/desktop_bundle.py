"""How the Claude Desktop bundle (``mcpb/``) starts mcp-sim: Desktop hands the user's settings
over as the environment ``mcpb/manifest.json`` declares, and this picks the world to serve.

    MCP_SIM_BUNDLE_WORLD_FILE   the world file the user chose, if any: it is served
    MCP_SIM_BUNDLE_EXAMPLE      else this shipped example (bookstore when empty)

The model's URL and key travel as the ``MCP_SIM_*`` settings ``serve`` reads anyway. The
choice is made here, not in the manifest's arguments, because an optional setting the user left
unset reaches the server empty: as an argument it would be an empty world file, and which of
the two settings wins is a rule, not a substitution.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from mcp_sim.cli.main import main as mcp_sim_main

WORLD_FILE_ENV = "MCP_SIM_BUNDLE_WORLD_FILE"
EXAMPLE_ENV = "MCP_SIM_BUNDLE_EXAMPLE"
DEFAULT_EXAMPLE = "bookstore"


def chosen(environ: Mapping[str, str], name: str) -> str | None:
    """The setting in ``name``, None when the user left it unset: empty, or still the
    manifest's ``${user_config.…}`` placeholder, as a host that does not fill unset
    settings passes it."""
    value = environ.get(name, "").strip()
    return None if not value or value.startswith("${") else value


def serve_argv(environ: Mapping[str, str]) -> list[str]:
    """The ``mcp-sim`` command line that serves the world the user chose, on stdio."""
    world_file = chosen(environ, WORLD_FILE_ENV)
    if world_file is not None:
        return ["serve", world_file]
    return ["serve", "--example", chosen(environ, EXAMPLE_ENV) or DEFAULT_EXAMPLE]


def main() -> int:
    """Serve the chosen world; the exit status is ``mcp-sim``'s."""
    return mcp_sim_main(serve_argv(os.environ))
