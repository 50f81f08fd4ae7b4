"""Import a real MCP server as a world (``mcp-sim import``).

The importer connects to the server (a command over stdio, or a URL over streamable HTTP),
reads every page of ``tools/list`` and writes a world spec whose tools are the server's own:
names, titles, descriptions, annotations and input and output schemas exactly as listed, so
``mcp-sim serve`` advertises byte-identical schemas (``annotations_as_given`` keeps the defaults
that ``effect`` gives other tools away from them). The server's instructions become the
world's description. A tool is ``effect: read`` when the server marks it ``readOnlyHint``,
``write`` otherwise, which is what MCP assumes of a tool without annotations.

The YAML (written by :mod:`mcp_sim.authoring.world_yaml`) keeps the server's key order and is
checked by loading it back, so an imported world that ``mcp-sim validate`` would reject is never
written.
"""

from __future__ import annotations

import os
import re
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2
import mcp.types as types
from mcp import Client, MCPError, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.server import Server

from mcp_sim.authoring.world_yaml import checked_world_yaml
from mcp_sim.errors import ImportFailed, SpecError, UpstreamError
from mcp_sim.spec.world import World

MAX_PAGES = 1000
"""A server whose tools/list cursor never ends is broken; stop rather than loop forever."""


@dataclass(frozen=True)
class Upstream:
    """Where a real MCP server is: a command started over stdio, or a streamable HTTP URL."""

    command: list[str] = field(default_factory=list)
    url: str | None = None
    env: dict[str, str] = field(default_factory=dict)
    """Variables set for the command, over the environment mcp-sim runs in."""
    headers: dict[str, str] = field(default_factory=dict)
    """HTTP headers sent to the URL (e.g. Authorization)."""
    cwd: str | None = None

    def __post_init__(self) -> None:
        if bool(self.command) == bool(self.url):
            raise ValueError("give the server's command (after --) or its --url: one of the two")

    def describe(self) -> str:
        return self.url if self.url else " ".join(self.command)


@asynccontextmanager
async def connect(upstream: Upstream | Server[Any]) -> AsyncIterator[Client]:
    """An SDK client connected to the real server (an in-process ``Server`` for tests)."""
    async with AsyncExitStack() as stack:
        try:
            client = await stack.enter_async_context(_client(upstream, stack))
        except (OSError, MCPError, httpx2.HTTPError, ExceptionGroup) as exc:
            what = "the server" if isinstance(upstream, Server) else upstream.describe()
            raise UpstreamError(f"cannot connect to the MCP server {what}: {reason(exc)}") from exc
        yield client


def reason(exc: BaseException) -> str:
    """What went wrong, from the innermost errors of an exception group (the SDK's transports
    raise their failures from task groups)."""
    if isinstance(exc, BaseExceptionGroup):
        return "; ".join(dict.fromkeys(reason(e) for e in exc.exceptions))
    return str(exc) or type(exc).__name__


def _client(upstream: Upstream | Server[Any], stack: AsyncExitStack) -> Client:
    if isinstance(upstream, Server):
        return Client(upstream)
    if upstream.url:
        # The SDK's own HTTP client with its timeouts: long reads, since a server may hold a
        # response stream open while a tool runs.
        http = httpx2.AsyncClient(
            headers=upstream.headers, timeout=httpx2.Timeout(30.0, read=300.0)
        )
        stack.push_async_callback(http.aclose)
        return Client(streamable_http_client(upstream.url, http_client=http))
    # The command is the user's own, so it inherits the user's environment (the SDK passes only
    # a few safe variables by default, which breaks servers that need their keys or paths).
    params = StdioServerParameters(
        command=upstream.command[0],
        args=upstream.command[1:],
        env={**os.environ, **upstream.env},
        cwd=upstream.cwd,
    )
    return Client(params)


@dataclass(frozen=True)
class Listing:
    """What a real server says about itself and its tools."""

    name: str
    version: str
    title: str | None
    instructions: str | None
    tools: list[types.Tool]


async def read_listing(client: Client) -> Listing:
    """The server's identity and every page of its tools/list."""
    tools: list[types.Tool] = []
    cursor: str | None = None
    seen: set[str] = set()
    for _ in range(MAX_PAGES):
        try:
            page = await client.list_tools(cursor=cursor)
        except MCPError as exc:
            raise UpstreamError(f"the MCP server refused tools/list: {exc}") from exc
        tools += page.tools
        cursor = page.next_cursor
        if cursor is None:
            break
        if cursor in seen:
            raise UpstreamError(f"the MCP server's tools/list repeats the cursor {cursor!r}")
        seen.add(cursor)
    else:
        raise UpstreamError(f"the MCP server's tools/list has more than {MAX_PAGES} pages")
    info = client.server_info
    return Listing(
        name=info.name if info else "mcp-server",
        version=info.version if info else "",
        title=info.title if info else None,
        instructions=client.instructions,
        tools=tools,
    )


def tool_data(tool: types.Tool) -> dict[str, Any]:
    """A real tool as a world spec tool, its schemas untouched."""
    listed = tool.model_dump(mode="json", by_alias=True, exclude_none=True)
    data: dict[str, Any] = {"name": tool.name}
    if tool.title is not None:
        data["title"] = tool.title
    data["description"] = tool.description or ""
    if "annotations" in listed:
        data["annotations"] = listed["annotations"]
    data["annotations_as_given"] = True
    data["input_schema"] = listed["inputSchema"]
    if "outputSchema" in listed:
        data["output_schema"] = listed["outputSchema"]
    read_only = tool.annotations is not None and tool.annotations.read_only_hint is True
    data["effect"] = "read" if read_only else "write"
    return data


def world_id(name: str) -> str:
    """A world id from a server name: ``mcp-servers/everything`` → ``mcp-servers-everything``."""
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-._")[:64]
    return slug or "imported"


def world_data(listing: Listing, *, world: str | None = None) -> dict[str, Any]:
    """The world spec (as data) of a real server's listing."""
    return {
        "world": world or world_id(listing.name),
        "title": listing.title or listing.name,
        "domain": "mcp",
        "description": (listing.instructions or "").strip(),
        "tools": [tool_data(t) for t in listing.tools],
    }


def imported_world_yaml(data: dict[str, Any], source: str) -> str:
    """YAML text of an imported world, checked by loading it back: the loaded world must be the
    same data (schemas included) or :class:`ImportFailed` says which part would not survive."""
    header = f"# Imported by `mcp-sim import` from {source}.\n"
    try:
        text, loaded = checked_world_yaml(data, file="<imported world>", header=header)
    except SpecError as exc:
        raise ImportFailed(f"the imported tools do not make a valid world:\n{exc}") from None
    expected = World.model_validate(data).model_dump(mode="json")
    if loaded.model_dump(mode="json") != expected:
        raise ImportFailed("the imported world does not survive a YAML round trip unchanged")
    return text


async def import_server(upstream: Upstream | Server[Any], *, world: str | None = None) -> str:
    """Connect to a real MCP server and return the YAML text of a world with its tools."""
    async with connect(upstream) as client:
        listing = await read_listing(client)
    if not listing.tools:
        raise ImportFailed("the MCP server lists no tools; a world needs at least one")
    where = "an in-process server" if isinstance(upstream, Server) else upstream.describe()
    source = f"{listing.name} {listing.version} ({where})".replace("  ", " ")
    return imported_world_yaml(world_data(listing, world=world), source)


def write_text(path: str | Path, text: str) -> None:
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
