"""The Claude Desktop bundle's entry point: Desktop runs it with its own uv, in the environment
it made from ``pyproject.toml`` beside the manifest; the user's settings arrive in the
environment (see :mod:`mcp_sim.cli.desktop_bundle`)."""

from mcp_sim.cli.desktop_bundle import main

raise SystemExit(main())
