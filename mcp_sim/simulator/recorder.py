"""What a finished call leaves behind: the session's next step and, for an answer the world
gave, a turn in its history; the metrics; and the call's journal record."""

from __future__ import annotations

import time
from collections.abc import Callable

from mcp_sim.journal import Journal, JournalRecord
from mcp_sim.prompting.native import action_json
from mcp_sim.runtime.session import Session, SessionStore, Turn
from mcp_sim.runtime.state import PatchOp
from mcp_sim.simulator.context import CallContext, CallResult
from mcp_sim.simulator.metrics import Metrics
from mcp_sim.simulator.transition import Change
from mcp_sim.spec.world import World


def history_turn(ctx: CallContext, result: CallResult) -> Turn:
    """The turn a call adds to its session's history."""
    usage = ctx.usage
    return Turn(
        ctx.tool.name,
        ctx.arguments,
        result.text,
        result.is_error,
        result.version,
        # A turn the model was shown keeps it whole; only the others are shown as their bare
        # action.
        action=action_json(ctx.tool.name, ctx.arguments) if usage.turn_head is None else None,
        head=usage.turn_head,
        anchor=usage.turn_anchor,
        change=shown_change(usage.change),
    )


def shown_change(change: Change) -> list[PatchOp] | None:
    """The committed patch as later turns show it (see :attr:`Change.shown`); ``None`` when
    nothing was committed."""
    if change.status != "committed":
        return None
    return change.shown if change.shown is not None else change.patch


def journal_record(
    ctx: CallContext,
    result: CallResult,
    *,
    world_hash: str,
    latency_ms: float | None,
    entities: bool,
    model_ms: float | None = None,
) -> JournalRecord:
    """The journal's record of a call (``entities``: whether the world declares entities,
    whose consistency figures the record then carries; ``latency_ms`` and ``model_ms`` only
    when timing is recorded)."""
    usage, change, session = ctx.usage, ctx.usage.change, ctx.session
    return JournalRecord(
        session=session.id,
        step=result.step,
        tool=ctx.tool.name,
        arguments=ctx.arguments,
        observation=result.text,
        structured=result.structured,
        is_error=result.is_error,
        source=result.source,
        latency_ms=latency_ms,
        model_ms=model_ms,
        prompt_tokens=usage.prompt_tokens,
        completion_tokens=usage.completion_tokens,
        model=usage.model,
        world=world_hash,
        version=result.version,
        now=ctx.now,
        patch_status=change.status,
        patch=change.patch,
        patch_error=change.error,
        regenerated=usage.regenerated,
        violations=list(result.violations),
        consistency=session.consistency.as_dict() if entities else {},
        perturbations=ctx.plan.records(),
        cache=usage.cache_use,
        content=result.content,
        failure=result.failure,
    )


KEPT_TURNS_LIMIT = 1024
"""Kept turns past which the history is compacted when a call is recorded. Preparing a model
call's prompt compacts it anyway; this bounds sessions whose calls the model does not answer
(fixtures, invalid arguments), which would otherwise keep every turn."""


class CallRecorder:
    """Writes down the calls of one world's sessions."""

    def __init__(
        self,
        world: World,
        *,
        sessions: SessionStore,
        journal: Journal,
        metrics: Metrics,
        timing: bool,
        compact: Callable[[Session], None] | None = None,
    ) -> None:
        """``timing``: record wall-clock latency in the journal; ``compact`` folds a
        session's history down to what its prompt can show."""
        self.world = world
        self.compact = compact
        self.sessions = sessions
        self.journal = journal
        self.metrics = metrics
        self.timing = timing
        self.world_hash = world.content_hash()

    def record(self, ctx: CallContext, result: CallResult) -> tuple[JournalRecord, Turn | None]:
        """Count the call as the session's next step and keep what it leaves behind; returns
        its journal record and history turn. A failed model request and a server-made fault
        leave no turn: the world said nothing."""
        session = ctx.session
        session.steps += 1
        turn = None
        if result.source not in ("model_error", "perturbation"):
            turn = history_turn(ctx, result)
            session.history.append(turn)
            if self.compact is not None and len(session.history) > KEPT_TURNS_LIMIT:
                self.compact(session)
        self.sessions.touch(session)
        session.model_seconds += ctx.usage.model_seconds
        seconds = time.perf_counter() - ctx.started
        self.metrics.observe_call(
            ctx.tool.name,
            result.source,
            seconds,
            patch_status=ctx.usage.change.status,
            violations=len(ctx.usage.violations),
        )
        latency = round(seconds * 1000, 3) if self.timing else None
        model_ms = round(ctx.usage.model_seconds * 1000, 3) if self.timing else None
        record = journal_record(
            ctx,
            result,
            world_hash=self.world_hash,
            latency_ms=latency,
            entities=bool(self.world.entities),
            model_ms=model_ms,
        )
        self.journal.write(record)
        return record, turn
