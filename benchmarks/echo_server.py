"""A minimal MCP server for the benchmarks: the yardstick mcp-sim is measured against.

It is built the way mcp-sim is (the SDK's low-level ``Server``, served over stdio or over
streamable HTTP at ``/mcp`` by uvicorn, DNS-rebinding protection on) and has one tool,
``lookup``, which returns the same 1 KB text for every call, optionally after a delay. All it
does is what any MCP server must do, so mcp-sim's time over it is mcp-sim's own.

    python benchmarks/echo_server.py [--http 127.0.0.1:PORT] [--delay 0.2] [--result-bytes 1024]
"""

from __future__ import annotations

import argparse
from typing import Any

import anyio
import mcp.types as types
import uvicorn
from backend import observation  # benchmarks/ is on sys.path when this runs as a script
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server

TOOL = types.Tool(
    name="lookup",
    description="Look up records by key.",
    input_schema={
        "type": "object",
        "properties": {"key": {"type": "string"}},
        "required": ["key"],
    },
)


def build(result_bytes: int, delay: float) -> Server[Any]:
    text = observation(result_bytes)

    async def list_tools(
        ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[TOOL])

    async def call_tool(
        ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        if delay:
            await anyio.sleep(delay)
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)])

    return Server("echo", on_list_tools=list_tools, on_call_tool=call_tool)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--http", metavar="HOST:PORT")
    parser.add_argument("--delay", type=float, default=0.0)
    parser.add_argument("--result-bytes", type=int, default=1024)
    args = parser.parse_args()
    server = build(args.result_bytes, args.delay)
    if args.http is None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())
        return
    host, _, port = args.http.rpartition(":")
    app = server.streamable_http_app(streamable_http_path="/mcp", host=host)
    config = uvicorn.Config(app, host=host, port=int(port), log_level="warning", lifespan="on")
    await uvicorn.Server(config).serve()


if __name__ == "__main__":
    anyio.run(main)
