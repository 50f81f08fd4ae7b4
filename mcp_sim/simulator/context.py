"""One call as it goes through the pipeline: what was asked (:class:`CallContext`), what the
model requests cost on the way (:class:`CallUsage`) and what the agent gets back
(:class:`CallResult`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mcp_sim.errors import SimError
from mcp_sim.journal import CacheUse, JournalRecord, PatchStatus, Source
from mcp_sim.models.base import ChatMessage, Completion, ProgressCallback
from mcp_sim.perturb.planner import NO_PLAN, Plan
from mcp_sim.prompting.answer_shape import AnswerShape
from mcp_sim.runtime.audit import Violation
from mcp_sim.runtime.session import Session
from mcp_sim.simulator.answer_cache import PendingAnswer
from mcp_sim.simulator.transition import Change
from mcp_sim.spec.world import ToolSpec, World


class UnknownTool(SimError):
    """The client asked for a tool the world does not have (a protocol error, not a result)."""

    def __init__(self, name: str, world: World) -> None:
        self.name = name
        known = ", ".join(t.name for t in world.tools)
        super().__init__(f"Unknown tool: {name} (this world has: {known})")


@dataclass(frozen=True)
class CallResult:
    """What one call returns to the agent, and where it came from."""

    text: str
    structured: Any
    is_error: bool
    source: Source
    session: str
    step: int
    reasoning: str | None = None
    version: int = 0
    """The state version the observation was produced against."""
    patch_status: PatchStatus = "none"
    violations: tuple[str, ...] = ()
    """Contradictions with the state left in the answer (the journal has the details)."""
    content: list[dict[str, Any]] | None = None
    """MCP content blocks to send instead of one text block (replayed real answers)."""
    failure: str | None = None
    """For a ``model_error`` result: the kind of the model's failure (the journal's)."""


@dataclass(frozen=True)
class ModelExchange:
    """One model request of a call and what came back: the prompt exactly as it was sent,
    the answer and its reasoning (for a designer looking at why a call went as it did)."""

    messages: list[ChatMessage]
    content: str
    reasoning: str | None = None
    cached: bool = False
    purpose: str = "answer"
    """Why it was asked (see :attr:`mcp_sim.models.base.CompletionRequest.purpose`)."""


@dataclass
class CallUsage:
    """What the model requests of one call cost, all together, and what they left behind."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    model_seconds: float = 0.0
    """Time spent waiting on the world model's requests (cache hits cost none)."""
    model: str = ""
    change: Change = field(default_factory=Change)
    regenerated: bool = False
    violations: list[Violation] = field(default_factory=list)
    cache_hits: int = 0
    cache_misses: int = 0
    to_cache: list[PendingAnswer] = field(default_factory=list)
    """Answers to store in the cache once the call is over."""
    transient_failure: bool = False
    """A request of this call failed in a way that may pass (unavailable, timed out)."""
    turn_head: str | None = None
    """The call's turn as the model was shown it, kept in the history (see
    :class:`mcp_sim.simulator.prompt.Prompt`)."""
    turn_anchor: bool = False
    exchanges: list[ModelExchange] = field(default_factory=list)
    """Every model request of the call, in order (the first answer, a repair, the patch, a
    regeneration); kept only as long as the call unless a watcher keeps them."""

    def add(self, completion: Completion) -> None:
        self.prompt_tokens += completion.prompt_tokens
        self.completion_tokens += completion.completion_tokens
        self.model = completion.model or self.model

    @property
    def cache_use(self) -> CacheUse | None:
        if self.cache_hits and self.cache_misses:
            return "partial"
        if self.cache_hits:
            return "hit"
        return "miss" if self.cache_misses else None


@dataclass
class CallContext:
    """Everything one call carries through the pipeline's steps, in place of passing
    session, tool, arguments, time, progress and usage to each of them."""

    session: Session
    tool: ToolSpec
    arguments: dict[str, Any]
    now: str | None
    """The virtual time of the call (see :mod:`mcp_sim.runtime.virtual_clock`)."""
    started: float
    """``time.perf_counter()`` when the call got the session's lock."""
    shape: AnswerShape
    """The shape of the answer the model is asked for, worked out once for the call."""
    progress: ProgressCallback | None = None
    usage: CallUsage = field(default_factory=CallUsage)
    plan: Plan = NO_PLAN
    """The perturbations planned for the call."""

    def result(
        self,
        text: str,
        structured: Any,
        is_error: bool,
        source: Source,
        reasoning: str | None = None,
        *,
        content: list[dict[str, Any]] | None = None,
        failure: str | None = None,
    ) -> CallResult:
        """The call's result, stamped with the session's next step and current version."""
        return CallResult(
            text=text,
            structured=structured,
            is_error=is_error,
            source=source,
            session=self.session.id,
            step=self.session.steps + 1,
            reasoning=reasoning,
            version=self.session.version,
            patch_status=self.usage.change.status,
            violations=tuple(str(v) for v in self.usage.violations),
            content=content,
            failure=failure,
        )


@dataclass(frozen=True)
class CallTrace:
    """A finished call as a watcher of the simulator sees it (see
    :attr:`mcp_sim.simulator.core.Simulator.watchers`): its journal record, the model requests
    it made, and the state it was made on (the record's patch leads from it to the state
    after). States are never changed once committed, so holding one costs nothing but keeping
    it alive."""

    record: JournalRecord
    exchanges: tuple[ModelExchange, ...]
    state_before: dict[str, Any]
