"""The call pipeline: the only place that decides what a tool call returns.

recorded answer (replay)? → validate arguments → plan perturbations → pinned fixture? → prompt
in the native format (state view, virtual time, fresh ids, simulation instruction) → world model
→ extract the observation → validate against the output schema (one repair retry) → for write
calls, the proposed state change, checked (one corrected retry) → consistency audit (one
regeneration) → commit the change (version + 1) → history + journal → injected waits (latency,
timeouts) outside the session's lock. Every model request goes through the answer cache when
there is one (see :mod:`mcp_sim.simulator.answer_cache`).

In a world with a web, the search and open tools go to the page store instead of the model
steps above (see :mod:`mcp_sim.web.pages`): it answers from what the world has already shown, and
asks the model, through the same prompt, only for what it has not.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import jsonschema

from mcp_sim.errors import ModelError, ModelOutputInvalid, ModelTimeout, ModelUnavailable, SimError
from mcp_sim.journal import CacheUse, Journal, JournalRecord, PatchStatus, Source
from mcp_sim.models.base import (
    ChatMessage,
    Completion,
    CompletionRequest,
    ProgressCallback,
    Sampling,
    WorldModel,
)
from mcp_sim.models.replay import Replay
from mcp_sim.perturb import injection as inject
from mcp_sim.perturb.planner import NO_PLAN, Perturber, Plan, profiles_for
from mcp_sim.prompting.answers import extract_observation, regeneration_messages
from mcp_sim.prompting.bounds import OutputBounds, bounded_schema, envelope_schema, open_envelope
from mcp_sim.prompting.native import (
    PastCall,
    TurnContext,
    action_json,
    build_messages,
    estimate_tokens,
    render_action,
    render_preamble,
    render_system,
)
from mcp_sim.prompting.state_view import StateView
from mcp_sim.runtime.audit import Auditor, Violation
from mcp_sim.runtime.entities import EntityIndex, string_values
from mcp_sim.runtime.session import Session, SessionStore, Turn
from mcp_sim.runtime.side_channel import virtual_now
from mcp_sim.runtime.state import PatchOp, split_patch
from mcp_sim.simulator.answer_cache import AnswerCache, PendingAnswer
from mcp_sim.simulator.metrics import Metrics, error_kind
from mcp_sim.simulator.prompt_budget import fit_budget
from mcp_sim.simulator.transition import PATCH_MAX_TOKENS, Change, Transitions
from mcp_sim.spec.world import ToolSpec, World
from mcp_sim.web.pages import ModelQuestion, ModelReply, PageStore
from mcp_sim.web.world_memory import WorldMemory


class UnknownTool(SimError):
    """The client asked for a tool the world does not have (a protocol error, not a result)."""

    def __init__(self, name: str, world: World) -> None:
        self.name = name
        known = ", ".join(t.name for t in world.tools)
        super().__init__(f"Unknown tool: {name} (this world has: {known})")


@dataclass(frozen=True)
class SamplingOverrides:
    """Sampling values given on the command line; ``None`` leaves the world's or the default."""

    temperature: float | None = None
    top_p: float | None = None
    top_k: int | None = None
    max_tokens: int | None = None
    thinking: bool | None = None
    seed: int | None = None


def resolve_sampling(
    world: World, overrides: SamplingOverrides, defaults: Sampling | None = None
) -> Sampling:
    """Command line beats the world's ``model:`` section, which beats ``defaults`` (the
    model-card defaults unless the backend needs others, e.g. the tiny embedded model)."""
    values: dict[str, Any] = {}
    for name in ("temperature", "top_p", "top_k", "max_tokens", "thinking"):
        chosen = getattr(overrides, name)
        if chosen is None:
            chosen = getattr(world.model, name)
        if chosen is not None:
            values[name] = chosen
    if overrides.seed is not None:
        values["seed"] = overrides.seed
    return replace(defaults or Sampling(), **values)


def _turn_tokens(turn: Turn) -> int:
    """A past turn's share of the prompt: its user message (as shown) and observation."""
    head = (
        turn.head
        if turn.head is not None
        else render_action(0, turn.tool, turn.arguments, turn.action)
    )
    return estimate_tokens(head + turn.observation)


@dataclass(frozen=True)
class SimOptions:
    """How the simulator keeps state and prompts (command-line flags)."""

    journal_timing: bool = False
    """Record wall-clock latency in the journal (it makes replayed journals differ)."""
    history_budget_tokens: int = 16_000
    """When the shown history outgrows this, it is compacted to the last ``keep_turns``."""
    keep_turns: int = 8
    state_budget_tokens: int = 8_000
    """A state larger than this is shown as a view (see :mod:`mcp_sim.prompting.state_view`)."""
    turn_budget_tokens: int = 4_000
    """A later turn's state section of a large state: the changes and the records it needs."""
    context_tokens: int | None = None
    """The model's context window, when known: the prompt leaves room in it for the answer's
    max tokens (see :mod:`mcp_sim.simulator.prompt_budget`)."""
    reference_turns: int = 3
    """How many recent turns, besides the call itself, pick the records a view shows."""
    model_seeds: bool = True
    """Send each model request a sampling seed drawn from the session's RNG, so a seeded
    session replays exactly on a deterministic backend. vLLM's CPU build crashes on seeded
    requests longer than one prefill chunk, so the embedded model runs without them."""
    bounds: OutputBounds | None = None
    """Size limits on what the model may write, for small models (see :mod:`mcp_sim.prompting.bounds`)."""

    def __post_init__(self) -> None:
        budgets = (self.history_budget_tokens, self.state_budget_tokens, self.turn_budget_tokens)
        if self.keep_turns < 1 or min(budgets) < 1:
            raise ValueError("keep_turns and the token budgets must be at least 1")


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


@dataclass
class _Answer:
    """One answer of the model to a call, before any state change."""

    content: str
    text: str
    structured: Any
    reasoning: str | None
    tagged_patch: str | None


@dataclass
class _Usage:
    """What the model requests of one call cost, all together."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
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
    """The call's turn as the model was shown it, kept in the history (see _messages)."""
    turn_anchor: bool = False

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


def _format_validation_error(error: jsonschema.ValidationError) -> str:
    where = ".".join(str(p) for p in error.absolute_path)
    return f"{where}: {error.message}" if where else error.message


class Simulator:
    """Answers tool calls for the sessions of one world."""

    def __init__(
        self,
        world: World,
        model: WorldModel | None,
        *,
        sessions: SessionStore | None = None,
        journal: Journal | None = None,
        sampling: SamplingOverrides | None = None,
        options: SimOptions | None = None,
        default_sampling: Sampling | None = None,
        perturber: Perturber | None = None,
        cache: AnswerCache | None = None,
        replay: Replay | None = None,
        memory: WorldMemory | None = None,
        metrics: Metrics | None = None,
    ) -> None:
        """``memory`` keeps the pages of a world with a web (its own in-memory one if not
        given); see :mod:`mcp_sim.web.pages`."""
        self.world = world
        self.metrics = metrics if metrics is not None else Metrics()
        self.model = model
        self.cache = cache
        self.replay = replay
        self.sampling = resolve_sampling(world, sampling or SamplingOverrides(), default_sampling)
        self.journal = journal if journal is not None else Journal()
        self.sessions = (
            sessions if sessions is not None else SessionStore(world, on_expire=self.journal.forget)
        )
        if self.sessions.base_seed is None:
            # --seed is the base of every session's seed (see mcp_sim.runtime.side_channel).
            self.sessions.base_seed = self.sampling.seed
        self.options = options or SimOptions()
        self.perturber = perturber or Perturber(
            profiles_for(world.perturbations), seed=self.sampling.seed
        )
        self.transitions = Transitions(world)
        self.auditor = Auditor(world)
        self.budget = fit_budget(
            self.options.state_budget_tokens,
            self.options.turn_budget_tokens,
            self.options.history_budget_tokens,
            system_tokens=estimate_tokens(render_system(world)),
            context_tokens=self.options.context_tokens,
            max_tokens=self.sampling.max_tokens,
        )
        self.view = StateView(world, self.budget.state_tokens, self.budget.turn_tokens)
        self._input_validators = {
            t.name: jsonschema.Draft202012Validator(t.input_schema) for t in world.tools
        }
        self._output_validators = {
            t.name: jsonschema.Draft202012Validator(t.output_schema)
            for t in world.tools
            if t.output_schema is not None
        }
        self._world_hash = world.content_hash()
        self.pages: PageStore | None = None
        if world.web() is not None:
            self.pages = PageStore(
                world, memory or WorldMemory(world.world), bounds=self.options.bounds
            )

    async def call(
        self,
        session_id: str,
        tool_name: str,
        arguments: dict[str, Any] | None,
        progress: ProgressCallback | None = None,
        *,
        seed: int | None = None,
        perturb: str | list[str] | None = None,
    ) -> CallResult:
        """Answer one call. ``seed`` is the session's seed if this call starts the session;
        ``perturb`` names the session's perturbation profiles from this call on. Raises
        :class:`UnknownTool`, :class:`mcp_sim.perturb.planner.UnknownProfile` and, when a perturbation
        says so, :class:`mcp_sim.perturb.injection.InjectedProtocolError`; every other failure is a result."""
        tool = self.world.tool(tool_name)
        if tool is None:
            self.metrics.observe_unknown_tool()
            raise UnknownTool(tool_name, self.world)
        args = arguments or {}
        session = self.sessions.get(session_id, seed=seed)
        if perturb is not None:
            self.perturber.select(session, perturb)
        async with session.lock:
            started = time.perf_counter()
            plan = NO_PLAN
            usage = _Usage()
            now = virtual_now(self.world, session.steps + 1)
            replayed = self._replayed(session, tool, args)
            errors = sorted(self._input_validators[tool.name].iter_errors(args), key=str)
            if replayed is not None:
                result = replayed
            elif errors:
                details = "\n".join(f"- {_format_validation_error(e)}" for e in errors)
                text = f"Input validation error for {tool.name}:\n{details}"
                result = self._result(session, text, None, True, "validation")
            else:
                plan = self.perturber.plan(session, tool.name, tool.effect, args)
                result = await self._respond(session, tool, args, now, progress, usage, plan)
            session.steps += 1
            if result.source not in ("model_error", "perturbation"):
                session.history.append(
                    Turn(
                        tool.name,
                        args,
                        result.text,
                        result.is_error,
                        result.version,
                        # A turn the model was shown keeps it whole; only the others are
                        # shown as their bare action.
                        action=action_json(tool.name, args) if usage.turn_head is None else None,
                        head=usage.turn_head,
                        anchor=usage.turn_anchor,
                        change=usage.change.patch if usage.change.status == "committed" else None,
                    )
                )
            self.sessions.touch(session)
            seconds = time.perf_counter() - started
            latency = round(seconds * 1000, 3)
            change = usage.change
            self.metrics.observe_call(
                tool.name,
                result.source,
                seconds,
                patch_status=change.status,
                violations=len(usage.violations),
            )
            self.journal.write(
                JournalRecord(
                    session=session.id,
                    step=result.step,
                    tool=tool.name,
                    arguments=args,
                    observation=result.text,
                    structured=result.structured,
                    is_error=result.is_error,
                    source=result.source,
                    latency_ms=latency if self.options.journal_timing else None,
                    prompt_tokens=usage.prompt_tokens,
                    completion_tokens=usage.completion_tokens,
                    model=usage.model,
                    world=self._world_hash,
                    version=result.version,
                    now=now,
                    patch_status=change.status,
                    patch=change.patch,
                    patch_error=change.error,
                    regenerated=usage.regenerated,
                    violations=list(result.violations),
                    consistency=session.consistency.as_dict() if self.world.entities else {},
                    perturbations=plan.records(),
                    cache=usage.cache_use,
                    content=result.content,
                )
            )
            if self.cache is not None and not usage.transient_failure:
                await self.cache.put(usage.to_cache)
        # Outside the lock: a slow or hanging call must not hold up the session's other calls.
        await inject.settle(plan)
        return result

    def answers_without_model(
        self, tool_name: str, arguments: dict[str, Any] | None, session_id: str = "default"
    ) -> bool:
        """Whether a call is settled without the world model (bad arguments, a fixture, or a
        fault the server makes itself), as the next call of ``session_id``."""
        tool = self.world.tool(tool_name)
        if tool is None:
            return True
        args = arguments or {}
        if next(self._input_validators[tool.name].iter_errors(args), None) is not None:
            return True
        plan = self.perturber.peek(self.sessions.get(session_id), tool.name, tool.effect, args)
        if inject.server_answer(plan, tool.name) is not None:
            return True
        if inject.instruction(plan) is not None:
            return False
        if self.pages is not None and self.pages.handles(tool.name):
            return self._fixture(tool, args) is not None or self.pages.settled(tool.name, args)
        return self._fixture(tool, args) is not None

    async def _respond(
        self,
        session: Session,
        tool: ToolSpec,
        args: dict[str, Any],
        now: str | None,
        progress: ProgressCallback | None,
        usage: _Usage,
        plan: Plan,
    ) -> CallResult:
        """The answer to a valid call, perturbed as ``plan`` says: made by the server, or from
        the fixture or the model (told a simulation instruction), perhaps mangled."""
        made = inject.server_answer(plan, tool.name)
        if made is not None:
            return self._result(session, made.text, None, made.is_error, "perturbation")
        instruction = inject.instruction(plan)
        pages = self.pages if self.pages is not None and self.pages.handles(tool.name) else None
        if instruction is None and (fixture := self._fixture(tool, args)) is not None:
            result = self._result(session, *fixture, "fixture")
            if pages is not None:
                await pages.observe(tool.name, args, result.text)
        elif instruction is None and pages is not None:
            # A perturbed call bypasses the page store: its bent answer must not become canon.
            result = await self._ask_pages(session, tool, args, now, progress, usage)
        else:
            result = await self._ask_model(session, tool, args, now, progress, usage, instruction)
        mangled = inject.mangle(plan, result.text)
        # A model that failed has no answer to break; its error stays readable.
        if mangled is not None and result.source != "model_error":
            # A client cannot parse a broken body, so there is no structured content either.
            result = replace(result, text=mangled, structured=None)
        return result

    def _result(
        self,
        session: Session,
        text: str,
        structured: Any,
        is_error: bool,
        source: Source,
        reasoning: str | None = None,
        usage: _Usage | None = None,
        content: list[dict[str, Any]] | None = None,
    ) -> CallResult:
        return CallResult(
            text=text,
            structured=structured,
            is_error=is_error,
            source=source,
            session=session.id,
            step=session.steps + 1,
            reasoning=reasoning,
            version=session.version,
            patch_status=usage.change.status if usage else "none",
            violations=tuple(str(v) for v in usage.violations) if usage else (),
            content=content,
        )

    def _replayed(
        self, session: Session, tool: ToolSpec, args: dict[str, Any]
    ) -> CallResult | None:
        if self.replay is None:
            return None
        answer = self.replay.answer(session.id, session.steps + 1, tool.name, args)
        if answer is None:
            return None
        return self._result(
            session,
            answer.text,
            answer.structured,
            answer.is_error,
            "replay",
            content=answer.content,
        )

    def _fixture(self, tool: ToolSpec, args: dict[str, Any]) -> tuple[str, Any, bool] | None:
        for fixture in self.world.fixtures:
            if fixture.when.tool == tool.name and fixture.when.arguments == args:
                result = fixture.result
                text = result if isinstance(result, str) else json.dumps(result, ensure_ascii=False)
                structured = result if isinstance(result, dict) and not fixture.is_error else None
                if tool.output_schema is None:
                    structured = None
                return text, structured, fixture.is_error
        return None

    # --- the prompt ------------------------------------------------------------------------

    def _shown_history(self, session: Session) -> list[Turn]:
        """The turns the prompt shows, compacting first if they outgrow the budget. Compaction
        jumps (to the last ``keep_turns``) rather than sliding one turn per call, so the prompt
        prefix stays the same between jumps and the prefix cache keeps working."""
        history = session.history
        for i in range(session.history_start, len(history)):
            if history[i].action is None and history[i].head is None:  # restored from a snapshot
                turn = history[i]
                history[i] = replace(turn, action=action_json(turn.tool, turn.arguments))
        shown = history[session.history_start :]
        size = sum(_turn_tokens(t) for t in shown)
        budget = self.budget.history_tokens
        if size > budget and len(shown) > self.options.keep_turns:
            session.history_start = len(session.history) - self.options.keep_turns
            shown = session.history[session.history_start :]
            size = sum(_turn_tokens(t) for t in shown)
        # The kept turns may still be over the budget (large observations, a view's anchor):
        # drop the oldest until they fit, so the budget is a bound and not a wish.
        while shown and size > budget:
            size -= _turn_tokens(shown[0])
            session.history_start += 1
            shown = session.history[session.history_start :]
        return shown

    @staticmethod
    def _unseen_changes(session: Session, shown: Sequence[Turn]) -> list[PatchOp] | None:
        """The state changes the model has not been shown yet, when the shown turns let it know
        the current state: an anchor turn (the whole state) is among them, and every change
        since the last turn shown with its sections is one the history committed. ``None``
        when the next turn must anchor the state again (none shown, or the state changed
        outside the calls)."""
        if not any(t.anchor for t in shown):
            return None
        last = max(i for i, t in enumerate(shown) if t.head is not None)
        since = shown[last:]
        changes = [t.change for t in since if t.change is not None]
        if session.version != shown[last].version + len(changes):
            return None
        return [op for change in changes for op in change]

    def _references(self, session: Session, args: dict[str, Any]) -> list[str]:
        texts = [*string_values(args)]
        recent = (
            session.history[-self.options.reference_turns :] if self.options.reference_turns else []
        )
        for turn in reversed(recent):
            texts += [*string_values(turn.arguments), turn.observation]
        return texts

    def _messages(
        self,
        session: Session,
        tool: ToolSpec,
        args: dict[str, Any],
        now: str | None,
        before: EntityIndex | None,
        simulation_instruction: str | None = None,
        *,
        sections: Sequence[str] = (),
        structured: bool | None = None,
        keep: _Usage | None = None,
    ) -> list[ChatMessage]:
        """The messages of a call; ``keep`` receives the call's turn as shown, for the history."""
        shown = self._shown_history(session)
        write = tool.effect == "write"
        if structured is None:
            structured = tool.output_schema is not None
        unseen = self._unseen_changes(session, shown)
        references = self._references(session, args) if unseen is None else ()
        session.grounding = self.view.overlay_for(session.state, session.grounding)
        state_section = self.view.turn_section(
            session.state, before, unseen, args, references, tool=tool, overlay=session.grounding
        )
        context = TurnContext(
            state_view=state_section,
            now=now,
            fresh_ids=session.ids.offer(self.world) if write else {},
            ask_patch=write and tool.output_schema is None and not self._enveloped(tool),
            first_turn=session.history_start + 1,
            sections=sections,
        )
        number = context.first_turn + len(shown)
        head = render_action(
            number, tool.name, args, preamble=render_preamble(session.state, context)
        )
        if keep is not None:
            keep.turn_head, keep.turn_anchor = head, unseen is None
        history = [
            PastCall(t.tool, t.arguments, t.observation, t.action, head=t.head) for t in shown
        ]
        return build_messages(
            self.world,
            history,
            tool,
            args,
            session.state,
            structured=structured,
            envelope=self._enveloped(tool) and not structured,
            context=replace(context, head=head),
            simulation_instruction=simulation_instruction,
        )

    def _enveloped(self, tool: ToolSpec) -> bool:
        return self.options.bounds is not None and tool.output_schema is None

    def _response_schema(self, tool: ToolSpec) -> dict[str, Any] | None:
        bounds = self.options.bounds
        if bounds is None:
            return tool.output_schema
        if tool.output_schema is None:
            return envelope_schema(bounds)
        schema: dict[str, Any] = bounded_schema(tool.output_schema, bounds)
        return schema

    # --- asking the model ------------------------------------------------------------------

    async def _complete(
        self,
        session: Session,
        request: CompletionRequest,
        progress: ProgressCallback | None,
        usage: _Usage,
    ) -> Completion:
        if self.model is None:
            raise ModelError("no world model is configured")
        # The seed is drawn even when the cache answers, so the session's later requests get
        # the same seeds as in the run that filled the cache.
        seed = session.next_request_seed() if self.options.model_seeds else None
        sampling = replace(request.sampling, seed=seed)
        request = replace(request, sampling=sampling)
        key = None
        if self.cache is not None:
            key = self.cache.key(self._world_hash, request)
            cached = await self.cache.get(key)
            self.metrics.observe_cache(cached is not None)
            if cached is not None:
                usage.cache_hits += 1
                usage.add(cached)
                return cached
            usage.cache_misses += 1
        started = time.perf_counter()
        try:
            completion = await self.model.complete(request, progress)
        except ModelError as exc:
            self.metrics.observe_model_request(time.perf_counter() - started, None)
            if isinstance(exc, ModelUnavailable | ModelTimeout):
                usage.transient_failure = True
            raise
        self.metrics.observe_model_request(time.perf_counter() - started, completion)
        usage.add(completion)
        if key is not None:
            usage.to_cache.append(PendingAnswer(key, self._world_hash, request, completion))
        return completion

    async def _ask_model(
        self,
        session: Session,
        tool: ToolSpec,
        args: dict[str, Any],
        now: str | None,
        progress: ProgressCallback | None,
        usage: _Usage,
        instruction: inject.Instruction | None = None,
    ) -> CallResult:
        if self.model is None:
            text = (
                f"mcp-sim: no world model is configured and no fixture pins {tool.name} with "
                "these arguments. Start the server with --model-url URL (or without it, to use "
                "the embedded model)."
            )
            self.metrics.observe_failure("no_model")
            return self._result(session, text, None, True, "model_error")
        # An injected error is the tool's error text, not a result that follows its schema, and
        # it changes nothing: answer it as a read-only text tool.
        failing = instruction is not None and instruction.error
        if failing:
            tool = tool.model_copy(update={"output_schema": None, "effect": "read"})
        before = EntityIndex.build(self.world, session.state) if self.world.entities else None
        messages = self._messages(
            session, tool, args, now, before, instruction.text if instruction else None, keep=usage
        )
        request = CompletionRequest(
            messages=messages,
            sampling=self.sampling,
            response_schema=self._response_schema(tool),
            schema_name=tool.name,
            routing_key=session.id,
        )
        try:
            answer = await self._answer(session, tool, request, progress, usage)
            change = await self._change(session, tool, messages, answer, progress, usage)
        except ModelError as exc:
            self.metrics.observe_failure(error_kind(exc))
            text = f"mcp-sim could not simulate {tool.name}: {exc}"
            return self._result(session, text, None, True, "model_error")
        violations = self._audit(session, answer, args, before, change)
        if violations:
            usage.regenerated = True
            session.consistency.regenerated += 1
            retry = regeneration_messages(
                messages,
                answer.content,
                [str(v) for v in violations],
                structured=tool.output_schema is not None,
                ask_patch=tool.effect == "write"
                and tool.output_schema is None
                and not self._enveloped(tool),
                envelope=self._enveloped(tool),
            )
            # A failed regeneration leaves the first answer standing, its violations counted.
            with contextlib.suppress(ModelError):
                answer = await self._answer(
                    session, tool, replace(request, messages=retry), progress, usage
                )
                change = await self._change(session, tool, retry, answer, progress, usage)
                violations = self._audit(session, answer, args, before, change)
        usage.change, usage.violations = change, violations
        if self.auditor.enabled:
            session.consistency.checked += 1
            session.consistency.flagged += len(violations)
        result = self._result(
            session, answer.text, answer.structured, failing, "model", answer.reasoning, usage
        )
        self.transitions.commit(session, change, before, answer.text)
        return result

    async def _ask_pages(
        self,
        session: Session,
        tool: ToolSpec,
        args: dict[str, Any],
        now: str | None,
        progress: ProgressCallback | None,
        usage: _Usage,
    ) -> CallResult:
        """A search or open call of a world with a web: the page store answers, asking the
        model through ``ask`` for what it has not seen yet."""
        if self.pages is None:
            raise SimError("this world has no page store")

        async def ask(question: ModelQuestion) -> ModelReply:
            if self.model is None:
                raise ModelError(
                    f"no world model is configured, and the page store has not seen this "
                    f"{tool.name} call yet; start the server with --model-url URL (or without "
                    "it, to use the embedded model)"
                )
            structured = question.response_schema is not None
            messages = self._messages(
                session,
                tool,
                question.arguments,
                now,
                None,
                sections=question.sections,
                structured=structured,
                keep=usage if question.arguments == args else None,
            )
            if question.then is not None:
                answer, next_ask = question.then
                messages += [
                    {"role": "assistant", "content": answer},
                    {"role": "user", "content": next_ask},
                ]
            sampling = self.sampling
            if question.follow_up:
                sampling = replace(
                    sampling, thinking=False, max_tokens=min(sampling.max_tokens, PATCH_MAX_TOKENS)
                )
            schema = question.response_schema
            if schema is None and self._enveloped(tool) and self.options.bounds is not None:
                schema = envelope_schema(self.options.bounds)
            request = CompletionRequest(
                messages, sampling, schema, schema_name=tool.name, routing_key=session.id
            )
            completion = await self._complete(session, request, progress, usage)
            if structured:
                text = extract_observation(completion.content)
                text = (
                    text.strip("`").removeprefix("json").strip() if text.startswith("```") else text
                )
            elif schema is not None:
                opened = open_envelope(completion.content)
                if opened is None:
                    raise ModelOutputInvalid(
                        f"the answer is not an observation envelope: {completion.content[:200]!r}"
                    )
                text = opened.strip()
            else:
                text = extract_observation(completion.content)
            if not text:
                raise ModelOutputInvalid("the world model returned an empty observation")
            return ModelReply(text, completion.content, completion.reasoning)

        try:
            answer = await self.pages.answer(tool.name, args, ask)
        except ModelError as exc:
            text = f"mcp-sim could not simulate {tool.name}: {exc}"
            return self._result(session, text, None, True, "model_error")
        result = self._result(
            session, answer.text, None, answer.is_error, answer.source, answer.reasoning, usage
        )
        return replace(result, violations=answer.violations)

    async def _answer(
        self,
        session: Session,
        tool: ToolSpec,
        request: CompletionRequest,
        progress: ProgressCallback | None,
        usage: _Usage,
    ) -> _Answer:
        completion = await self._complete(session, request, progress, usage)
        try:
            return self._unwrapped(tool, completion)
        except ModelOutputInvalid as first_error:
            # Asked once more, with what was wrong: small models especially sometimes answer
            # with nothing, or with JSON that misses the schema.
            retry = replace(
                request,
                messages=self._repair_messages(tool, request.messages, completion, first_error),
            )
            completion = await self._complete(session, retry, progress, usage)
            return self._unwrapped(tool, completion)

    def _unwrapped(self, tool: ToolSpec, completion: Completion) -> _Answer:
        """The observation in an answer, as the request asked for it (an envelope, tags, or the
        tool's structured output); raises :class:`ModelOutputInvalid` when it has none."""
        if self._enveloped(tool):
            text = open_envelope(completion.content)
            if text is None:
                raise ModelOutputInvalid(
                    f"the answer is not an observation envelope: {completion.content[:200]!r}"
                )
            if not text.strip():
                raise ModelOutputInvalid("the world model returned an empty observation")
            return _Answer(completion.content, text.strip(), None, completion.reasoning, None)
        if tool.output_schema is None:
            rest, tagged = split_patch(completion.content)
            text = extract_observation(rest)
            if not text:
                raise ModelOutputInvalid("the world model returned an empty observation")
            return _Answer(completion.content, text, None, completion.reasoning, tagged)
        data = self._structured(tool, completion.content)
        text = json.dumps(data, ensure_ascii=False)
        return _Answer(completion.content, text, data, completion.reasoning, None)

    async def _change(
        self,
        session: Session,
        tool: ToolSpec,
        messages: list[ChatMessage],
        answer: _Answer,
        progress: ProgressCallback | None,
        usage: _Usage,
    ) -> Change:
        if tool.effect != "write":
            return Change()

        async def ask(request: CompletionRequest) -> str:
            return (await self._complete(session, request, progress, usage)).content

        return await self.transitions.propose(
            session, messages, answer.content, answer.tagged_patch, self.sampling, ask
        )

    def _audit(
        self,
        session: Session,
        answer: _Answer,
        args: dict[str, Any],
        before: EntityIndex | None,
        change: Change,
    ) -> list[Violation]:
        if before is None:
            return []
        after = EntityIndex.build(self.world, change.after) if change.after is not None else before
        return self.auditor.check(
            answer.text, args, before=before, after=after, deleted=session.deleted
        )

    def _structured(self, tool: ToolSpec, content: str) -> Any:
        raw = extract_observation(content)
        if raw.startswith("```"):
            raw = raw.strip("`").removeprefix("json").strip()
        try:
            data = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise ModelOutputInvalid(
                f"the answer for {tool.name} is not JSON ({exc.msg} at position {exc.pos}): "
                f"{raw[:200]!r}"
            ) from None
        error = jsonschema.exceptions.best_match(
            self._output_validators[tool.name].iter_errors(data)
        )
        if error is not None:
            raise ModelOutputInvalid(
                f"the answer for {tool.name} does not match its output schema: "
                f"{_format_validation_error(error)}"
            )
        return data

    def _repair_messages(
        self,
        tool: ToolSpec,
        messages: list[ChatMessage],
        completion: Completion,
        error: ModelOutputInvalid,
    ) -> list[ChatMessage]:
        if self._enveloped(tool):
            again = (
                'Answer again with only a JSON object whose "observation" field holds the '
                "tool's raw output, not empty."
            )
        elif tool.output_schema is None:
            again = (
                "Predict the observation again, wrapped in "
                "<predicted_observation></predicted_observation> tags, not empty."
            )
        else:
            again = "Answer again with only a JSON object that follows the tool's output schema."
        return [
            *messages,
            {"role": "assistant", "content": completion.content},
            {"role": "user", "content": f"That response is not valid: {error}. {again}"},
        ]
