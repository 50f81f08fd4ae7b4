"""Which session an MCP request belongs to, and what its ``_meta`` asks of that session.

The session of a request is

0. over ``/episodes/{id}/mcp``, that episode, whatever the request says (the episode route marks
   the request's scope, after checking its token; see :mod:`mcp_sim.server.episode_routes`);
1. the ``_meta`` key ``mcp-sim/session`` of the request, when the client names one (stateless
   clients, 2026-07-28 protocol, harnesses that multiplex many episodes over one connection);
2. otherwise, over HTTP, the transport's ``Mcp-Session-Id`` (one world per MCP session);
3. otherwise the server's default session (a stdio process is one session).

A session named in 1 or 2 that belongs to an episode is refused: only the episode's own URL
(and token) reaches it.

A request that starts a session may name its seed in the ``_meta`` key ``mcp-sim/seed``. A
request's ``_meta`` key ``mcp-sim/perturb`` (``"flaky,slow"`` or ``["flaky", "slow"]``; empty
for none) sets its session's perturbation profiles from that call on.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import mcp.types as types
from mcp import MCPError
from mcp.server import ServerRequestContext

SESSION_META_KEY = "mcp-sim/session"
SEED_META_KEY = "mcp-sim/seed"
PERTURB_META_KEY = "mcp-sim/perturb"

EPISODE_SCOPE_KEY = "mcp_sim.episode"
"""The ASGI scope key the episode route sets to the id of the episode a request belongs to."""
MAX_SESSION_ID_LENGTH = 256

Context = ServerRequestContext[Any, Any]


def _no_episodes(session_id: str) -> bool:
    return False


@dataclass(frozen=True)
class SessionRouting:
    """How requests find their session: ``default`` when nothing names one, and which session
    ids are episodes (refused unless the request came through the episode's own route)."""

    default: str = "default"
    is_episode: Callable[[str], bool] = _no_episodes


def episode_of(ctx: Context) -> str | None:
    """The episode whose own route (``/episodes/{id}/mcp``) the request came through, if any:
    such a request is the agent's, which sees only what the simulated service exposes."""
    scope = getattr(ctx.request, "scope", None)
    if isinstance(scope, dict) and isinstance(scope.get(EPISODE_SCOPE_KEY), str):
        return str(scope[EPISODE_SCOPE_KEY])
    return None


def session_id_for(ctx: Context, routing: SessionRouting | str) -> str:
    """The session a request belongs to (see the module docstring for the order)."""
    if isinstance(routing, str):
        routing = SessionRouting(routing)
    episode = episode_of(ctx)
    if episode is not None:
        return episode
    request = ctx.request
    named = (ctx.meta or {}).get(SESSION_META_KEY)
    if not (isinstance(named, str) and named):
        headers = getattr(request, "headers", None)
        named = headers.get("mcp-session-id") if headers is not None else None
    if not named:
        return routing.default
    if len(named) > MAX_SESSION_ID_LENGTH:
        raise MCPError(
            types.INVALID_PARAMS,
            f"a session id is at most {MAX_SESSION_ID_LENGTH} characters (got {len(named)})",
        )
    if routing.is_episode(named):
        raise MCPError(
            types.INVALID_PARAMS,
            f"session {named!r} is an episode: reach it at /episodes/{{id}}/mcp with its token",
        )
    return str(named)


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
