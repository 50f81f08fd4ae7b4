"""The MCP resources of a simulated world: the world spec, and each session's state, journal
and consistency report, with resources/subscribe for the session ones.

They are the operator's, not the service's: the world spec holds the tasks, checks, rubrics,
reference answers, fixtures and perturbation plans, and the session ones the hidden state. An
agent must not read the grader, so they are served only with ``operator_view`` (the
``--operator-resources`` setting, for a designer on a shared endpoint or stdio) and never to
a request that came through an episode's own route. Worlds declare no resources of the
simulated service itself, so the agent's view is the empty list; the operator reads the same
things through the episode API or the Python API.
"""

from __future__ import annotations

import json

import mcp.types as types
from mcp import MCPError

from mcp_sim.runtime.session import SessionStore
from mcp_sim.server.request_meta import (
    Context,
    SessionRouting,
    episode_of,
    seed_for,
    session_id_for,
)
from mcp_sim.simulator.core import Simulator

WORLD_URI = "sim://world"
STATE_URI = "sim://session/state"
JOURNAL_URI = "sim://session/journal"
CONSISTENCY_URI = "sim://session/consistency"

CHANGED_BY_A_CALL = frozenset({STATE_URI, JOURNAL_URI})
"""What a tool call may change in its session: its state, and always its journal."""


class Subscriptions:
    """resources/subscribe (handshake-era wire): the URIs each session watches."""

    def __init__(self, sessions: SessionStore) -> None:
        self._watched: dict[str, set[str]] = {}
        sessions.on_expire(self.forget)

    def add(self, session_id: str, uri: str) -> None:
        self._watched.setdefault(session_id, set()).add(uri)

    def discard(self, session_id: str, uri: str) -> None:
        watched = self._watched.get(session_id, set())
        watched.discard(uri)
        if not watched:
            self._watched.pop(session_id, None)

    def forget(self, session_id: str) -> None:
        self._watched.pop(session_id, None)

    def changed_by_a_call(self, session_id: str) -> list[str]:
        """The URIs ``session_id`` watches that a tool call changes, in a stable order."""
        return sorted(self._watched.get(session_id, set()) & CHANGED_BY_A_CALL)


def _not_found(uri: str) -> MCPError:
    # The same answer for an operator resource withheld as for one that does not exist, so
    # the agent cannot tell that there is something to read.
    return MCPError(types.INVALID_PARAMS, f"Resource not found: {uri}", {"uri": uri})


class ResourceHandlers:
    """The resources/* handlers of the MCP front; ``operator_view``: serve the operator's
    resources to requests that do not come through an episode's route."""

    def __init__(
        self,
        simulator: Simulator,
        subscriptions: Subscriptions,
        *,
        routing: SessionRouting,
        operator_view: bool = False,
    ) -> None:
        self.simulator = simulator
        self.subscriptions = subscriptions
        self.routing = routing
        self.operator_view = operator_view

    def shows_operator_resources(self, ctx: Context) -> bool:
        return self.operator_view and episode_of(ctx) is None

    async def list_resources(
        self, ctx: Context, params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        if not self.shows_operator_resources(ctx):
            return types.ListResourcesResult(resources=[])
        world = self.simulator.world
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
        self, ctx: Context, params: types.PaginatedRequestParams | None
    ) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(resource_templates=[])

    async def read_resource(
        self, ctx: Context, params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        uri = str(params.uri)
        session_id = session_id_for(ctx, self.routing)
        if not self.shows_operator_resources(ctx):
            raise _not_found(uri)
        if uri == WORLD_URI:
            world = self.simulator.world.model_dump(mode="json")
            text, mime = json.dumps(world, ensure_ascii=False, indent=2), "application/json"
        elif uri == STATE_URI:
            session = self.simulator.sessions.get(session_id, seed=seed_for(ctx))
            text, mime = json.dumps(session.state, ensure_ascii=False, indent=2), "application/json"
        elif uri == JOURNAL_URI:
            records = self.simulator.journal.records(session_id)
            text, mime = "".join(r.to_json() + "\n" for r in records), "application/x-ndjson"
        elif uri == CONSISTENCY_URI:
            session = self.simulator.sessions.get(session_id, seed=seed_for(ctx))
            report = {"session": session.id, "version": session.version}
            text = json.dumps(report | session.consistency.as_dict(), indent=2)
            mime = "application/json"
        else:
            raise _not_found(uri)
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=uri, text=text, mime_type=mime)]
        )

    async def subscribe(
        self, ctx: Context, params: types.SubscribeRequestParams
    ) -> types.EmptyResult:
        session_id = session_id_for(ctx, self.routing)
        # The agent's subscriptions are kept nowhere: updates of the state would tell it which
        # calls changed the hidden state. (Answered, as a subscription to a resource that never
        # changes is, so clients that subscribe regardless carry on.)
        if self.shows_operator_resources(ctx):
            self.subscriptions.add(session_id, str(params.uri))
        return types.EmptyResult()

    async def unsubscribe(
        self, ctx: Context, params: types.UnsubscribeRequestParams
    ) -> types.EmptyResult:
        self.subscriptions.discard(session_id_for(ctx, self.routing), str(params.uri))
        return types.EmptyResult()
