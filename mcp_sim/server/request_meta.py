"""Which session an MCP request belongs to, and what its ``_meta`` asks of that session.

The session of a request is

1. the ``_meta`` key ``mcp-sim/session`` of the request, when the client names one (stateless
   clients, 2026-07-28 protocol, harnesses that multiplex many episodes over one connection);
2. otherwise, over HTTP, the transport's ``Mcp-Session-Id`` (one world per MCP session);
3. otherwise the server's default session (a stdio process is one session).

A request that starts a session may name its seed in the ``_meta`` key ``mcp-sim/seed``. A
request's ``_meta`` key ``mcp-sim/perturb`` (``"flaky,slow"`` or ``["flaky", "slow"]``; empty
for none) sets its session's perturbation profiles from that call on.
"""

from __future__ import annotations

from typing import Any

import mcp.types as types
from mcp import MCPError
from mcp.server import ServerRequestContext

SESSION_META_KEY = "mcp-sim/session"
SEED_META_KEY = "mcp-sim/seed"
PERTURB_META_KEY = "mcp-sim/perturb"

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
