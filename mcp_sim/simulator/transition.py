"""From a write call's answer to a committed state change.

The model's proposal (the tagged patch in its answer, or else the answer to a follow-up request;
see :mod:`mcp_sim.runtime.state` for why) is checked by the world's :class:`StateRules`; a rejected
proposal is asked for once more with the reason. Committing a change moves the session to the
new state and version and keeps its ids in step: deleted ids are remembered for the auditor,
and the id allocator moves past every id now in use.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any

from mcp_sim.errors import ModelError, PatchRejected
from mcp_sim.journal import PatchStatus
from mcp_sim.models.base import ChatMessage, CompletionRequest, Sampling
from mcp_sim.prompting.answer_format import patch_request_messages
from mcp_sim.prompting.shown_changes import shown_patch
from mcp_sim.runtime.audit import record_deletions
from mcp_sim.runtime.entities import EntityIndex
from mcp_sim.runtime.session import Session
from mcp_sim.runtime.state import PATCH_RESPONSE_SCHEMA, PatchOp, StateRules, parse_patch
from mcp_sim.spec.world import World

PATCH_MAX_TOKENS = 4096
"""Completion limit of a follow-up patch request (thinking is off there)."""

AskForPatch = Callable[[CompletionRequest], Awaitable[str]]
"""Sends a follow-up patch request to the model and returns the answer's text."""


@dataclass(frozen=True)
class Change:
    """A write call's proposed state change, and whether it can be committed."""

    status: PatchStatus = "none"
    patch: list[PatchOp] | None = None
    """The proposal as parsed (the last one, when rejected; ``None`` if it never parsed)."""
    after: dict[str, Any] | None = None
    """The state after the patch, when it can be committed."""
    error: str | None = None
    """Why it was rejected."""
    shown: list[PatchOp] | None = None
    """The patch as later turns show it (a long text's replacement as its edit, see
    :func:`mcp_sim.prompting.shown_changes.shown_patch`); ``None``: as it was committed."""


def patch_request(
    conversation: list[ChatMessage], sampling: Sampling, routing_key: str, purpose: str = "patch"
) -> CompletionRequest:
    """A follow-up request for a patch: no thinking, short, constrained to ``{"patch": [...]}``."""
    return CompletionRequest(
        messages=conversation,
        sampling=replace(
            sampling, thinking=False, max_tokens=min(sampling.max_tokens, PATCH_MAX_TOKENS)
        ),
        response_schema=PATCH_RESPONSE_SCHEMA,
        schema_name="state_patch",
        routing_key=routing_key,
        purpose=purpose,
    )


class Transitions:
    """Negotiates and commits the state changes of one world's write calls."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.rules = StateRules(world)

    async def propose(
        self,
        session: Session,
        messages: list[ChatMessage],
        answer: str,
        tagged_patch: str | None,
        sampling: Sampling,
        ask: AskForPatch,
    ) -> Change:
        """The change a write call makes, checked against ``session``'s state: ``answer`` is the
        model's answer to ``messages``, ``tagged_patch`` the patch it carried, if any."""
        conversation, proposal, reply = list(messages), tagged_patch, answer
        rejection: str | None = None
        patch: list[PatchOp] | None = None
        for attempt in range(2):
            if proposal is None or attempt > 0:
                conversation = patch_request_messages(conversation, reply, rejection)
                try:
                    purpose = "patch correction" if rejection is not None else "patch"
                    reply = await ask(patch_request(conversation, sampling, session.id, purpose))
                except ModelError as exc:
                    return Change("rejected", patch, None, f"no patch could be had: {exc}")
                proposal = reply
            try:
                patch = parse_patch(proposal)
                after = self.rules.apply(session.state, patch)
            except PatchRejected as exc:
                rejection = str(exc)
                continue
            if after == session.state:
                return Change("unchanged", patch, after)
            return Change("committed", patch, after, shown=shown_patch(session.state, patch))
        return Change("rejected", patch, None, rejection)

    def commit(
        self, session: Session, change: Change, before: EntityIndex | None, observation: str
    ) -> None:
        """Apply ``change`` to ``session`` (``before`` indexes its state before the call, for
        worlds with entities) and keep its ids in step with the ``observation``."""
        if change.status == "rejected":
            session.consistency.patches_rejected += 1
        if change.status == "committed" and change.after is not None:
            if session.grounding is not None and session.grounding.state is session.state:
                session.grounding = session.grounding.advance(
                    session.state, change.after, change.patch or []
                )
            session.state = change.after
            session.version += 1
        if before is not None:
            after = EntityIndex.build(self.world, session.state)
            if change.status == "committed":
                record_deletions(session.deleted, before, after)
            session.ids.advance(self.world, after, [observation])
