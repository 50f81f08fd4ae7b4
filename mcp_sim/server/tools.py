"""tools/list and tools/call of the MCP front: the world's tools, answered by the simulator,
and with ``--control-tools`` the control operations as ``sim_*`` tools."""

from __future__ import annotations

import json
import re
from typing import Any

import mcp.types as types
from mcp import MCPError
from pydantic import TypeAdapter

from mcp_sim.errors import EpisodeStoreError, SimError
from mcp_sim.perturb.injection import InjectedProtocolError
from mcp_sim.perturb.planner import UnknownProfile
from mcp_sim.server.control_tools import CONTROL_TOOLS, ControlTools, call_control_tool
from mcp_sim.server.request_meta import (
    Context,
    SessionRouting,
    episode_of,
    perturb_for,
    seed_for,
    session_id_for,
)
from mcp_sim.server.resources import Subscriptions
from mcp_sim.simulator.core import CallResult, Simulator, UnknownTool
from mcp_sim.spec.world import ToolSpec, World

_CONTENT_BLOCK: TypeAdapter[types.ContentBlock] = TypeAdapter(types.ContentBlock)
_ANNOTATIONS: TypeAdapter[types.ToolAnnotations] = TypeAdapter(types.ToolAnnotations)


OPEN_WORLD_DOMAINS = frozenset({"search", "web"})
"""Domains whose tools reach an open set of outside things (the web, a search engine); every
other world is a closed set of records the tools read and change."""


def advertised_title(tool: ToolSpec) -> str:
    """The tool's title, or one made from its name (``get_book`` and ``getBook`` give "Get
    book"): hosts show titles, not names."""
    if tool.title:
        return tool.title
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", tool.name)
    words = [w for w in re.split(r"[\s._-]+", spaced) if w]
    if not words:
        return tool.name
    text = " ".join(w if w.isupper() and len(w) > 1 else w.lower() for w in words)
    return text[0].upper() + text[1:]


def advertised_annotations(tool: ToolSpec, domain: str = "mcp") -> types.ToolAnnotations | None:
    """The tool's annotations over the defaults its ``effect`` and the world's ``domain`` give,
    key by key: hosts run a tool without ``readOnlyHint`` one call at a time and ask before
    each. A read changes nothing (so repeating it changes nothing either); a write may replace
    what it changes and is not assumed safe to repeat. An imported tool
    (``annotations_as_given``) keeps the real server's exactly, none included."""
    if tool.annotations_as_given:
        return None if tool.annotations is None else _ANNOTATIONS.validate_python(tool.annotations)
    defaults: dict[str, Any] = {
        "title": advertised_title(tool),
        "readOnlyHint": tool.effect == "read",
        "openWorldHint": domain in OPEN_WORLD_DOMAINS,
    }
    if tool.effect == "read":
        defaults |= {"idempotentHint": True}
    else:
        defaults |= {"destructiveHint": True, "idempotentHint": False}
    return _ANNOTATIONS.validate_python({**defaults, **(tool.annotations or {})})


def advertised_tools(world: World, control: ControlTools | None) -> list[types.Tool]:
    """The world's tools with their annotations, and with ``control`` the ``sim_*`` tools after them."""
    tools = [
        types.Tool(
            name=t.name,
            title=advertised_title(t),
            description=t.description,
            input_schema=t.input_schema,
            output_schema=t.output_schema,
            annotations=advertised_annotations(t, world.domain),
        )
        for t in world.tools
    ]
    if control is None:
        return tools
    clash = sorted(set(CONTROL_TOOLS) & {t.name for t in world.tools})
    if clash:
        raise SimError(
            f"the world has tools named like control tools ({', '.join(clash)}); rename "
            "them or run without --control-tools"
        )
    return tools + [
        types.Tool(
            name=name,
            description=description,
            input_schema={"type": "object", "properties": properties},
        )
        for name, (description, properties) in CONTROL_TOOLS.items()
    ]


def tool_result(result: CallResult, *, provenance: bool = True) -> types.CallToolResult:
    """A simulated call's answer as MCP sends it, with its provenance under ``_meta`` unless
    ``provenance`` is off: on an episode's route the agent gets what the service itself would
    send, and where an answer came from (a fixture, an injected fault, a refused state change)
    is the operator's, in the journal."""
    meta: dict[str, Any] | None = None
    if provenance:
        meta = {
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


def control_result(data: Any) -> types.CallToolResult:
    """A control tool's JSON data (or text, for the journal) as a tool result."""
    text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)],
        structured_content=data if isinstance(data, dict) else None,
    )


class ProgressReporter:
    """Reports a call's progress (tokens so far) as MCP progress notifications."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.reported = 0.0

    async def __call__(self, tokens: int, message: str) -> None:
        # MCP requires progress to increase with every notification.
        self.reported = max(float(tokens), self.reported + 1)
        await self.ctx.session.report_progress(self.reported, None, message)


class ToolHandlers:
    """The tools/* handlers of the MCP front."""

    def __init__(
        self,
        simulator: Simulator,
        subscriptions: Subscriptions,
        *,
        routing: SessionRouting,
        control: ControlTools | None,
    ) -> None:
        self.simulator = simulator
        self.subscriptions = subscriptions
        self.routing = routing
        self.control = control
        self.tools = advertised_tools(simulator.world, control)
        self.service_tools = advertised_tools(simulator.world, None)

    async def list_tools(
        self, ctx: Context, params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        # An episode's route is the agent's: the control tools (state, journal, snapshots)
        # would hand it the hidden state, so it gets the service's tools only.
        served = self.tools if episode_of(ctx) is None else self.service_tools
        return types.ListToolsResult(tools=served)

    async def call_tool(
        self, ctx: Context, params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        session_id = session_id_for(ctx, self.routing)
        control = self.control if episode_of(ctx) is None else None
        if control is not None and params.name in CONTROL_TOOLS:
            return await self._call_control_tool(control, params, session_id)
        try:
            result = await self.simulator.call(
                session_id,
                params.name,
                params.arguments,
                ProgressReporter(ctx),
                seed=seed_for(ctx),
                perturb=perturb_for(ctx),
            )
        except (UnknownTool, UnknownProfile) as exc:
            raise MCPError(types.INVALID_PARAMS, str(exc)) from None
        except InjectedProtocolError as exc:
            raise MCPError(exc.code, str(exc)) from None
        except EpisodeStoreError as exc:
            # Not the world's answer: the call could not be run or kept (another worker holds
            # the episode, the store is down), which the client must hear as an error.
            raise MCPError(types.INTERNAL_ERROR, str(exc)) from None
        await self._announce_updates(ctx, session_id)
        return tool_result(result, provenance=episode_of(ctx) is None)

    async def _call_control_tool(
        self, control: ControlTools, params: types.CallToolRequestParams, session_id: str
    ) -> types.CallToolResult:
        try:
            data = await call_control_tool(control, params.name, params.arguments or {}, session_id)
        except (SimError, ValueError) as exc:
            return types.CallToolResult(
                content=[types.TextContent(type="text", text=str(exc))], is_error=True
            )
        return control_result(data)

    async def _announce_updates(self, ctx: Context, session_id: str) -> None:
        # A call may change its session's state and always appends to its journal, so the
        # call's own response stream carries resources/updated for the ones its session watches.
        for uri in self.subscriptions.changed_by_a_call(session_id):
            await ctx.session.send_notification(
                types.ResourceUpdatedNotification(
                    params=types.ResourceUpdatedNotificationParams(uri=uri)
                ),
                related_request_id=ctx.request_id,
            )
