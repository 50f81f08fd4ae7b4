"""The MCP front over stdio and streamable HTTP, and the control API."""
