"""The mcp-sim command line."""
