"""Record real tool traffic (``mcp-sim record --journal J -- <real server command>``).

The recorder is an MCP server in front of a real one: it advertises the real server's tools
exactly as listed, forwards every ``tools/call``, returns the real result untouched and
journals it in the same format as simulated calls, with ``source: "real"``. The journal is what
``serve --replay`` serves back, what ``eval`` compares the simulator with, and what ``export``
turns into training data.

A journal record holds the observation as text: the text of a single text block as is, or,
for anything else (images, resource links, several blocks, annotations), every block in a text
form (binary data shown by its size) with the blocks themselves kept in ``content``, so a
replay returns exactly what the real server sent.

Sessions are named as ``mcp-sim serve`` names them (``stdio`` over stdio), so a stdio recording
replays into a stdio session by name. Over HTTP every session talks to the one real server, so
they share its state, as clients of that server would. Protocol errors from the real server
(unknown tool, say) are passed on and not journaled, as the simulator does with its own.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import mcp.types as types
from mcp import Client, MCPError
from mcp.server import Server

from mcp_sim.authoring.mcp_import import (
    Listing,
    Upstream,
    connect,
    imported_world_yaml,
    read_listing,
    world_data,
)
from mcp_sim.errors import ImportFailed
from mcp_sim.journal import Journal, JournalRecord
from mcp_sim.server.mcp_front import Context, http_app, serve_http, serve_stdio, session_id_for
from mcp_sim.spec.world import World


def observation_of(result: types.CallToolResult) -> tuple[str, list[dict[str, Any]] | None]:
    """A real result as journal text, plus its content blocks unless it is one plain text."""
    content = result.content
    if (
        len(content) == 1
        and isinstance(content[0], types.TextContent)
        and content[0].annotations is None
        and content[0].meta is None
    ):
        return content[0].text, None
    blocks = [b.model_dump(mode="json", by_alias=True, exclude_none=True) for b in content]
    return "\n".join(_block_text(b) for b in blocks), blocks


def _block_text(block: dict[str, Any]) -> str:
    if block.get("type") == "text" and isinstance(block.get("text"), str):
        return str(block["text"])
    shown = _without_binary(block)
    return json.dumps(shown, ensure_ascii=False)


def _without_binary(block: dict[str, Any]) -> dict[str, Any]:
    # Base64 images and blobs would crowd every later prompt; their size says enough.
    shown = dict(block)
    for key in ("data", "blob"):
        if isinstance(shown.get(key), str):
            shown[key] = f"<{len(shown[key])} base64 characters>"
    if isinstance(shown.get("resource"), dict):
        shown["resource"] = _without_binary(shown["resource"])
    return shown


class UpstreamRecorder:
    """Forwards calls to a real server's client and journals what comes back."""

    def __init__(
        self, client: Client, journal: Journal, *, world_hash: str = "", timing: bool = False
    ) -> None:
        self.client = client
        self.journal = journal
        self.world_hash = world_hash
        self.timing = timing
        self._steps: dict[str, int] = {}
        self._locks: dict[str, anyio.Lock] = {}

    async def call(
        self, session: str, name: str, arguments: dict[str, Any] | None
    ) -> types.CallToolResult:
        # One call of a session at a time, so the journal's steps follow the real order.
        async with self._locks.setdefault(session, anyio.Lock()):
            started = time.perf_counter()
            try:
                result = await self.client.call_tool(name, arguments)
            except RuntimeError as exc:
                # The SDK client checks structured results against the tool's output schema.
                raise MCPError(
                    types.INTERNAL_ERROR, f"the real server's answer was refused: {exc}"
                ) from None
            latency = round((time.perf_counter() - started) * 1000, 3)
            step = self._steps[session] = self._steps.get(session, 0) + 1
            text, blocks = observation_of(result)
            self.journal.write(
                JournalRecord(
                    session=session,
                    step=step,
                    tool=name,
                    arguments=arguments or {},
                    observation=text,
                    structured=result.structured_content,
                    is_error=bool(result.is_error),
                    source="real",
                    latency_ms=latency if self.timing else None,
                    world=self.world_hash,
                    content=blocks,
                )
            )
            return result


def build_upstream_recorder(
    recorder: UpstreamRecorder, listing: Listing, *, default_session: str
) -> Server[Any]:
    """An MCP server that looks like the real one (identity, instructions, tools) and records."""

    async def list_tools(
        ctx: Context, params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=listing.tools)

    async def call_tool(ctx: Context, params: types.CallToolRequestParams) -> types.CallToolResult:
        session = session_id_for(ctx, default_session)
        return await recorder.call(session, params.name, params.arguments)

    return Server(
        listing.name,
        version=listing.version,
        title=listing.title,
        instructions=listing.instructions,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


def world_hash(listing: Listing) -> str | None:
    """The content hash of the world ``mcp-sim import`` makes of this server (``None`` when its
    tools cannot make a world), so records say which world they belong to."""
    try:
        return World.model_validate(world_data(listing)).content_hash()
    except ValueError:
        return None


async def record(
    upstream: Upstream,
    journal: Journal,
    *,
    http: tuple[str, int] | None = None,
    timing: bool = False,
    world_out: Path | None = None,
    say: Callable[[str], None] = lambda message: None,
) -> None:
    """Serve the recorder (stdio, or HTTP at ``http``) until the client goes away."""
    async with connect(upstream) as client:
        listing = await read_listing(client)
        hashed = world_hash(listing)
        if hashed is None:
            say("the real server's tools do not make a valid world; recording anyway")
        if world_out is not None:
            if hashed is None:
                raise ImportFailed(f"cannot write {world_out}: the tools do not make a world")
            text = imported_world_yaml(
                world_data(listing), f"{listing.name} ({upstream.describe()})"
            )
            world_out.parent.mkdir(parents=True, exist_ok=True)
            world_out.write_text(text, encoding="utf-8")
            say(f"wrote the world to {world_out}")
        recorder = UpstreamRecorder(client, journal, world_hash=hashed or "", timing=timing)
        if http is None:
            say(f"recording {listing.name} ({len(listing.tools)} tools) on stdio")
            await serve_stdio(build_upstream_recorder(recorder, listing, default_session="stdio"))
        else:
            host, port = http
            server = build_upstream_recorder(recorder, listing, default_session="default")
            shown = f"recording {listing.name} on http://{host}:{port}/mcp"
            await serve_http(
                http_app(server, host=host), host, port, on_listening=lambda: say(shown)
            )
