"""mcp-sim: an MCP server whose tools are imaginary, answered by a language world model."""

__version__ = "0.1.0"
