"""The MCP front: the world's tools, its resources and the empty prompt list on the SDK's
low-level ``Server``, served over stdio or streamable HTTP (:mod:`mcp_sim.server.http_front`).

Each request belongs to a session, named by its ``_meta``, the transport or the server's
default (see :mod:`mcp_sim.server.request_meta`). Over HTTP a server hosts its worlds and
their episodes (:mod:`mcp_sim.server.hosting`); the control operations are MCP tools only when
``build_server`` is given ``ControlTools`` (``--control-tools``), and the operator's
resources (world spec, session state, journal, consistency) only with ``operator_resources``.
A request through an episode's own route is the agent's: it gets the world's tools and
nothing of the operator's.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import mcp.types as types
from mcp import MCPDeprecationWarning, MCPError
from mcp.server import Server

from mcp_sim import __version__
from mcp_sim.server.control_tools import ControlTools
from mcp_sim.server.http_front import http_app, serve_http
from mcp_sim.server.jsonrpc_check import MAX_MESSAGE_BYTES
from mcp_sim.server.request_meta import (
    PERTURB_META_KEY,
    SEED_META_KEY,
    SESSION_META_KEY,
    Context,
    SessionRouting,
    session_id_for,
)
from mcp_sim.server.resources import (
    CONSISTENCY_URI,
    JOURNAL_URI,
    STATE_URI,
    WORLD_URI,
    ResourceHandlers,
    Subscriptions,
)
from mcp_sim.server.stdio_wire import checked_stdio, claimed_stdio
from mcp_sim.server.tools import ToolHandlers
from mcp_sim.simulator.core import Simulator

__all__ = [
    "CONSISTENCY_URI",
    "JOURNAL_URI",
    "PERTURB_META_KEY",
    "SEED_META_KEY",
    "SESSION_META_KEY",
    "STATE_URI",
    "WORLD_URI",
    "Context",
    "build_server",
    "http_app",
    "serve_http",
    "serve_stdio",
    "session_id_for",
]


async def list_prompts(
    ctx: Context, params: types.PaginatedRequestParams | None
) -> types.ListPromptsResult:
    # Worlds have no prompts; serving the empty list keeps clients that ask regardless happy.
    return types.ListPromptsResult(prompts=[])


async def get_prompt(ctx: Context, params: types.GetPromptRequestParams) -> types.GetPromptResult:
    raise MCPError(types.INVALID_PARAMS, f"Unknown prompt: {params.name}")


async def set_logging_level(ctx: Context, params: types.SetLevelRequestParams) -> types.EmptyResult:
    # mcp-sim sends no log notifications, so every level is honoured as it is.
    return types.EmptyResult()


def build_server(
    simulator: Simulator,
    *,
    default_session: str = "default",
    control: ControlTools | None = None,
    is_episode: Callable[[str], bool] | None = None,
    operator_resources: bool = False,
) -> Server[Any]:
    """An MCP server that advertises the world's tools verbatim and answers through ``simulator``.
    With ``control``, the control operations are tools too (``sim_*``; ``--control-tools``).
    ``is_episode`` says which sessions are episodes, which only their own route may reach.
    With ``operator_resources``, requests that do not come through an episode's route may read
    the world spec and the session's state, journal and consistency (``--operator-resources``;
    see :mod:`mcp_sim.server.resources`); an episode's route gets neither those nor ``sim_*``."""
    routing = SessionRouting(default_session, is_episode or (lambda _: False))
    subscriptions = Subscriptions(simulator.sessions)
    tools = ToolHandlers(simulator, subscriptions, routing=routing, control=control)
    resources = ResourceHandlers(
        simulator, subscriptions, routing=routing, operator_view=operator_resources
    )
    world = simulator.world
    # logging/setLevel is served for handshake-era (2025) clients only: the SDK warns that the
    # logging capability is deprecated from 2026-07-28 on, which is known and intended here.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MCPDeprecationWarning)
        return Server(
            "mcp-sim",
            version=__version__,
            title=world.title,
            instructions=world.description.strip() or None,
            on_list_tools=tools.list_tools,
            on_call_tool=tools.call_tool,
            on_list_resources=resources.list_resources,
            on_list_resource_templates=resources.list_resource_templates,
            on_read_resource=resources.read_resource,
            on_subscribe_resource=resources.subscribe,
            on_unsubscribe_resource=resources.unsubscribe,
            on_list_prompts=list_prompts,
            on_get_prompt=get_prompt,
            on_set_logging_level=set_logging_level,
        )


async def serve_stdio(server: Server[Any], *, max_message_bytes: int = MAX_MESSAGE_BYTES) -> None:
    """Serve ``server`` on the process's stdin and stdout, every message answered (see
    :mod:`mcp_sim.server.stdio_wire`)."""
    with claimed_stdio() as (source, sink):
        async with checked_stdio(source, sink, max_message_bytes=max_message_bytes) as streams:
            await server.run(*streams, server.create_initialization_options())
