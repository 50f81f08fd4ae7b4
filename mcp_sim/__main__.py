"""``python -m mcp_sim``: the ``mcp-sim`` command."""

from mcp_sim.cli.main import main

if __name__ == "__main__":
    raise SystemExit(main())
