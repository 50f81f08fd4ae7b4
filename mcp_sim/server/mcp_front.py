"""The MCP front: tools/list, tools/call and resources on the SDK's low-level ``Server``, served
over stdio or streamable HTTP.

Which session a request belongs to:

1. the ``_meta`` key ``mcp-sim/session`` of the request, when the client names one (stateless
   clients, 2026-07-28 protocol, harnesses that multiplex many episodes over one connection);
2. otherwise, over HTTP, the transport's ``Mcp-Session-Id`` (one world per MCP session);
3. otherwise the server's default session (a stdio process is one session).

A request that starts a session may name its seed in the ``_meta`` key ``mcp-sim/seed``.

Over HTTP the control API (snapshot / fork / reset, see :mod:`mcp_sim.server.control`) sits next to
``/mcp`` under ``/control``, behind the same token; the same operations are MCP tools only when
``build_server`` is given a ``Control`` (``--control-tools``).
A request's ``_meta`` key ``mcp-sim/perturb`` (``"flaky,slow"`` or ``["flaky", "slow"]``; empty
for none) sets its session's perturbation profiles from that call on.
"""

from __future__ import annotations

import contextlib
import hmac
import json
import warnings
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

import mcp.types as types
import uvicorn
from mcp import MCPDeprecationWarning, MCPError
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server
from mcp.server.transport_security import TransportSecurityMiddleware, TransportSecuritySettings
from pydantic import TypeAdapter
from starlette.requests import Request

from mcp_sim import __version__
from mcp_sim.errors import SimError
from mcp_sim.perturb.injection import InjectedProtocolError
from mcp_sim.perturb.planner import UnknownProfile
from mcp_sim.server.control import CONTROL_TOOLS, Control, call_control_tool, control_routes
from mcp_sim.server.event_store import RETRY_MILLISECONDS, BoundedEventStore
from mcp_sim.simulator.core import CallResult, Simulator, UnknownTool

SESSION_META_KEY = "mcp-sim/session"
SEED_META_KEY = "mcp-sim/seed"
PERTURB_META_KEY = "mcp-sim/perturb"
WORLD_URI = "sim://world"
STATE_URI = "sim://session/state"
JOURNAL_URI = "sim://session/journal"
CONSISTENCY_URI = "sim://session/consistency"

Context = ServerRequestContext[Any, Any]
_CONTENT_BLOCK: TypeAdapter[types.ContentBlock] = TypeAdapter(types.ContentBlock)


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


def seed_for(ctx: Context) -> int | None:
    """The seed a request names for the session it starts, if any."""
    seed = (ctx.meta or {}).get(SEED_META_KEY)
    return seed if isinstance(seed, int) and not isinstance(seed, bool) else None


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
    meta: dict[str, Any] = {
        "mcp-sim/source": result.source,
        "mcp-sim/step": result.step,
        "mcp-sim/version": result.version,
    }
    if result.patch_status != "none":
        meta["mcp-sim/patch"] = result.patch_status
    if result.content is None:
        content: list[types.ContentBlock] = [types.TextContent(type="text", text=result.text)]
    else:
        content = [_CONTENT_BLOCK.validate_python(block) for block in result.content]
    return types.CallToolResult(
        content=content,
        structured_content=result.structured if isinstance(result.structured, dict) else None,
        is_error=result.is_error,
        _meta=meta,
    )


def _control_result(data: Any) -> types.CallToolResult:
    text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)],
        structured_content=data if isinstance(data, dict) else None,
    )


def build_server(
    simulator: Simulator, *, default_session: str = "default", control: Control | None = None
) -> Server[Any]:
    """An MCP server that advertises the world's tools verbatim and answers through ``simulator``.
    With ``control``, the control operations are tools too (``sim_*``; ``--control-tools``)."""
    world = simulator.world
    tools = [
        types.Tool(
            name=t.name,
            title=t.title,
            description=t.description,
            input_schema=t.input_schema,
            output_schema=t.output_schema,
            annotations=(
                None
                if t.annotations is None
                else types.ToolAnnotations.model_validate(t.annotations)
            ),
        )
        for t in world.tools
    ]
    if control is not None:
        clash = sorted(set(CONTROL_TOOLS) & {t.name for t in world.tools})
        if clash:
            raise SimError(
                f"the world has tools named like control tools ({', '.join(clash)}); rename "
                "them or run without --control-tools"
            )
        tools += [
            types.Tool(
                name=name,
                description=description,
                input_schema={"type": "object", "properties": properties},
            )
            for name, (description, properties) in CONTROL_TOOLS.items()
        ]

    # resources/subscribe (handshake-era wire): the URIs each session watches. Every tool call
    # may change its session's state and always appends to its journal, so the call's own
    # response stream carries notifications/resources/updated for the ones its session watches.
    subscriptions: dict[str, set[str]] = {}

    def forget_subscriptions(expired: str) -> None:
        subscriptions.pop(expired, None)

    simulator.sessions.on_expire(forget_subscriptions)

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

        if control is not None and params.name in CONTROL_TOOLS:
            try:
                data = await call_control_tool(
                    control, params.name, params.arguments or {}, session_id
                )
            except (SimError, ValueError) as exc:
                return types.CallToolResult(
                    content=[types.TextContent(type="text", text=str(exc))], is_error=True
                )
            return _control_result(data)
        try:
            result = await simulator.call(
                session_id,
                params.name,
                params.arguments,
                progress,
                seed=seed_for(ctx),
                perturb=perturb_for(ctx),
            )
        except (UnknownTool, UnknownProfile) as exc:
            raise MCPError(types.INVALID_PARAMS, str(exc)) from None
        except InjectedProtocolError as exc:
            raise MCPError(exc.code, str(exc)) from None
        for uri in sorted(subscriptions.get(session_id, set()) & {STATE_URI, JOURNAL_URI}):
            await ctx.session.send_notification(
                types.ResourceUpdatedNotification(
                    params=types.ResourceUpdatedNotificationParams(uri=uri)
                ),
                related_request_id=ctx.request_id,
            )
        return _tool_result(result)

    async def subscribe_resource(
        ctx: Context, params: types.SubscribeRequestParams
    ) -> types.EmptyResult:
        subscriptions.setdefault(session_id_for(ctx, default_session), set()).add(str(params.uri))
        return types.EmptyResult()

    async def unsubscribe_resource(
        ctx: Context, params: types.UnsubscribeRequestParams
    ) -> types.EmptyResult:
        session_id = session_id_for(ctx, default_session)
        watched = subscriptions.get(session_id, set())
        watched.discard(str(params.uri))
        if not watched:
            subscriptions.pop(session_id, None)
        return types.EmptyResult()

    async def list_prompts(
        ctx: Context, params: types.PaginatedRequestParams | None
    ) -> types.ListPromptsResult:
        # Worlds have no prompts; serving the empty list keeps clients that ask regardless happy.
        return types.ListPromptsResult(prompts=[])

    async def get_prompt(
        ctx: Context, params: types.GetPromptRequestParams
    ) -> types.GetPromptResult:
        raise MCPError(types.INVALID_PARAMS, f"Unknown prompt: {params.name}")

    async def set_logging_level(
        ctx: Context, params: types.SetLevelRequestParams
    ) -> types.EmptyResult:
        # mcp-sim sends no log notifications, so every level is honoured as it is.
        return types.EmptyResult()

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
                types.Resource(
                    uri=CONSISTENCY_URI,
                    name="session-consistency",
                    description="What the consistency auditor found in this session so far",
                    mime_type="application/json",
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
            session = simulator.sessions.get(session_id, seed=seed_for(ctx))
            text = json.dumps(session.state, ensure_ascii=False, indent=2)
            mime = "application/json"
        elif uri == JOURNAL_URI:
            records = simulator.journal.records(session_id)
            text = "".join(r.to_json() + "\n" for r in records)
            mime = "application/x-ndjson"
        elif uri == CONSISTENCY_URI:
            session = simulator.sessions.get(session_id, seed=seed_for(ctx))
            text = json.dumps(
                {"session": session.id, "version": session.version} | session.consistency.as_dict(),
                indent=2,
            )
            mime = "application/json"
        else:
            raise MCPError(types.INVALID_PARAMS, f"Resource not found: {uri}", {"uri": uri})
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=uri, text=text, mime_type=mime)]
        )

    # logging/setLevel is served for handshake-era (2025) clients only: the SDK warns that the
    # logging capability is deprecated from 2026-07-28 on, which is known and intended here.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MCPDeprecationWarning)
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
            on_subscribe_resource=subscribe_resource,
            on_unsubscribe_resource=unsubscribe_resource,
            on_list_prompts=list_prompts,
            on_get_prompt=get_prompt,
            on_set_logging_level=set_logging_level,
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
    control: Control | None = None,
    json_response: bool = False,
) -> ASGIApp:
    """The streamable HTTP app (path ``/mcp``), DNS-rebinding protection always on; with
    ``control``, the control API under ``/control`` (same token, same Host checks). With
    ``json_response`` each POST is answered with one JSON body instead of an event stream:
    no progress notifications, and about half the server's CPU per call, for harnesses that
    run many sessions and do not need progress."""
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
        json_response=json_response,
        # Event streams can be resumed after a dropped connection (not JSON bodies).
        event_store=None if json_response else BoundedEventStore(),
        retry_interval=None if json_response else RETRY_MILLISECONDS,
    )
    if control is not None:
        app = ControlDispatch(app, control_routes(control), TransportSecurityMiddleware(security))
    return BearerTokenGuard(app, auth_token) if auth_token else app


class ControlDispatch:
    """Sends ``/control/...`` and ``/metrics`` requests to the control API (after the same Host
    and Origin checks as ``/mcp``, against DNS rebinding) and everything else, lifespan
    included, to the MCP app."""

    def __init__(self, app: ASGIApp, control: ASGIApp, security: TransportSecurityMiddleware):
        self.app = app
        self.control = control
        self.security = security

    async def __call__(
        self,
        scope: MutableMapping[str, Any],
        receive: Callable[[], Awaitable[Any]],
        send: Callable[[Any], Awaitable[None]],
    ) -> None:
        path = str(scope.get("path", ""))
        controlled = path in ("/control", "/metrics") or path.startswith("/control/")
        if scope["type"] == "http" and controlled:
            refusal = await self.security.validate_request(Request(scope, receive))
            if refusal is not None:
                await refusal(scope, receive, send)
                return
            await self.control(scope, receive, send)
            return
        await self.app(scope, receive, send)


async def serve_http(app: ASGIApp, host: str, port: int) -> None:
    raise_open_file_limit()
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on")
    await uvicorn.Server(config).serve()


def raise_open_file_limit() -> None:
    """Raise this process's soft limit on open files to its hard limit. Every HTTP session
    keeps a connection open and every call in flight opens one more to the model, so a
    thousand sessions pass the usual soft limit of 1024, and the next client is refused."""
    try:
        import resource
    except ImportError:  # not on Windows, whose limit is far higher anyway
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        target = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 20)
        # A container may forbid it; serving then goes on within the old limit.
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
