"""The MCP front: tools/list, tools/call and resources on the SDK's low-level ``Server``, served
over stdio or streamable HTTP.

Which session a request belongs to:

1. the ``_meta`` key ``mcp-sim/session`` of the request, when the client names one (stateless
   clients, 2026-07-28 protocol, harnesses that multiplex many episodes over one connection);
2. otherwise, over HTTP, the transport's ``Mcp-Session-Id`` (one world per MCP session);
3. otherwise the server's default session (a stdio process is one session).

A request's ``_meta`` key ``mcp-sim/perturb`` (``"flaky,slow"`` or ``["flaky", "slow"]``; empty
for none) sets its session's perturbation profiles from that call on.
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

import mcp.types as types
import uvicorn
from mcp import MCPError
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server
from mcp.server.transport_security import TransportSecuritySettings

from mcp_sim import __version__
from mcp_sim.inject import InjectedProtocolError
from mcp_sim.perturb import UnknownProfile
from mcp_sim.simulator import CallResult, Simulator, UnknownTool

SESSION_META_KEY = "mcp-sim/session"
PERTURB_META_KEY = "mcp-sim/perturb"
WORLD_URI = "sim://world"
STATE_URI = "sim://session/state"
JOURNAL_URI = "sim://session/journal"

Context = ServerRequestContext[Any, Any]


def session_id_for(ctx: Context, default: str) -> str:
    """The session a request belongs to (see the module docstring for the order)."""
    meta = ctx.meta or {}
    named = meta.get(SESSION_META_KEY)
    if isinstance(named, str) and named:
        return named
    request = ctx.request
    headers = getattr(request, "headers", None)
    if headers is not None:
        transport_session = headers.get("mcp-session-id")
        if transport_session:
            return str(transport_session)
    return default


def perturb_for(ctx: Context) -> str | list[str] | None:
    """The perturbation profiles a request names for its session, if it names any."""
    named = (ctx.meta or {}).get(PERTURB_META_KEY)
    if isinstance(named, list) and all(isinstance(n, str) for n in named):
        return [str(n) for n in named]
    if isinstance(named, str):
        return named
    if named is not None:
        raise MCPError(
            types.INVALID_PARAMS,
            f'_meta "{PERTURB_META_KEY}" must be a string like "flaky,slow" or a list of names',
        )
    return None


def _tool_result(result: CallResult) -> types.CallToolResult:
    meta = {"mcp-sim/source": result.source, "mcp-sim/step": result.step}
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=result.text)],
        structured_content=result.structured if isinstance(result.structured, dict) else None,
        is_error=result.is_error,
        _meta=meta,
    )


def build_server(simulator: Simulator, *, default_session: str = "default") -> Server[Any]:
    """An MCP server that advertises the world's tools verbatim and answers through ``simulator``."""
    world = simulator.world
    tools = [
        types.Tool(
            name=t.name,
            description=t.description,
            input_schema=t.input_schema,
            output_schema=t.output_schema,
        )
        for t in world.tools
    ]

    async def list_tools(
        ctx: Context, params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Context, params: types.CallToolRequestParams) -> types.CallToolResult:
        session_id = session_id_for(ctx, default_session)
        reported = 0.0

        async def progress(tokens: int, message: str) -> None:
            # MCP requires progress to increase with every notification.
            nonlocal reported
            reported = max(float(tokens), reported + 1)
            await ctx.session.report_progress(reported, None, message)

        try:
            result = await simulator.call(
                session_id, params.name, params.arguments, progress, perturb=perturb_for(ctx)
            )
        except (UnknownTool, UnknownProfile) as exc:
            raise MCPError(types.INVALID_PARAMS, str(exc)) from None
        except InjectedProtocolError as exc:
            raise MCPError(exc.code, str(exc)) from None
        return _tool_result(result)

    async def list_resources(
        ctx: Context, params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        return types.ListResourcesResult(
            resources=[
                types.Resource(
                    uri=WORLD_URI,
                    name="world",
                    description=f"The world spec of {world.world}",
                    mime_type="application/json",
                ),
                types.Resource(
                    uri=STATE_URI,
                    name="session-state",
                    description="The current world state of this session",
                    mime_type="application/json",
                ),
                types.Resource(
                    uri=JOURNAL_URI,
                    name="session-journal",
                    description="Every call of this session so far, one JSON object per line",
                    mime_type="application/x-ndjson",
                ),
            ]
        )

    async def list_resource_templates(
        ctx: Context, params: types.PaginatedRequestParams | None
    ) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(resource_templates=[])

    async def read_resource(
        ctx: Context, params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        uri = str(params.uri)
        session_id = session_id_for(ctx, default_session)
        if uri == WORLD_URI:
            text = json.dumps(world.model_dump(mode="json"), ensure_ascii=False, indent=2)
            mime = "application/json"
        elif uri == STATE_URI:
            session = simulator.sessions.get(session_id)
            text = json.dumps(session.state, ensure_ascii=False, indent=2)
            mime = "application/json"
        elif uri == JOURNAL_URI:
            records = simulator.journal.records(session_id)
            text = "".join(r.model_dump_json() + "\n" for r in records)
            mime = "application/x-ndjson"
        else:
            raise MCPError(types.INVALID_PARAMS, f"Resource not found: {uri}", {"uri": uri})
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=uri, text=text, mime_type=mime)]
        )

    return Server(
        "mcp-sim",
        version=__version__,
        title=world.title,
        instructions=world.description.strip() or None,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_list_resource_templates=list_resource_templates,
        on_read_resource=read_resource,
    )


async def serve_stdio(server: Server[Any]) -> None:
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


ASGIApp = Callable[
    [MutableMapping[str, Any], Callable[[], Awaitable[Any]], Callable[[Any], Awaitable[None]]],
    Awaitable[None],
]


class BearerTokenGuard:
    """Rejects HTTP requests without ``Authorization: Bearer <token>`` (constant-time check)."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self._expected = f"Bearer {token}".encode()

    async def __call__(
        self,
        scope: MutableMapping[str, Any],
        receive: Callable[[], Awaitable[Any]],
        send: Callable[[Any], Awaitable[None]],
    ) -> None:
        if scope["type"] == "http":
            given = dict(scope.get("headers") or []).get(b"authorization", b"")
            if not hmac.compare_digest(given, self._expected):
                body = json.dumps(
                    {"error": "unauthorized", "message": "missing or wrong bearer token"}
                ).encode()
                await send(
                    {
                        "type": "http.response.start",
                        "status": 401,
                        "headers": [
                            (b"content-type", b"application/json"),
                            (b"www-authenticate", b'Bearer realm="mcp-sim"'),
                        ],
                    }
                )
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)


def _has_port(host: str) -> bool:
    return host.rpartition("]")[2].count(":") == 1 if host.startswith("[") else ":" in host


def http_app(
    server: Server[Any],
    *,
    host: str = "127.0.0.1",
    auth_token: str | None = None,
    session_idle_timeout: float | None = 1800.0,
    allowed_hosts: list[str] | None = None,
) -> ASGIApp:
    """The streamable HTTP app (path ``/mcp``), DNS-rebinding protection always on."""
    names = ["127.0.0.1", "localhost", "[::1]"]
    if host not in ("127.0.0.1", "localhost", "::1", "0.0.0.0", "::"):
        names.append(f"[{host}]" if ":" in host else host)
    names += allowed_hosts or []
    # The SDK matches "name:*" only when the Host header carries a port; clients on the default
    # port (behind a reverse proxy, say) send the bare name, so allow both forms.
    hosts = [h for name in names for h in ((name,) if _has_port(name) else (name, f"{name}:*"))]
    origins = [f"{scheme}://{h}" for h in hosts for scheme in ("http", "https")]
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=origins
    )
    app: ASGIApp = server.streamable_http_app(
        streamable_http_path="/mcp",
        host=host,
        transport_security=security,
        session_idle_timeout=session_idle_timeout,
    )
    return BearerTokenGuard(app, auth_token) if auth_token else app


async def serve_http(app: ASGIApp, host: str, port: int) -> None:
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on")
    await uvicorn.Server(config).serve()
