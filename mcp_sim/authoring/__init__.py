"""Writing worlds: drafting from a sentence, import from MCP servers and OpenAPI, export."""
