"""The call pipeline: the only place that decides what a tool call returns.

:meth:`Simulator.call` is a straight sequence of steps over small collaborators, one module
each: hold the session (with a durable store, :mod:`~mcp_sim.simulator.write_through`) → take
the session's lock → choose who answers (:mod:`~mcp_sim.simulator.answer_sources`: recorded
answer, invalid arguments, a fault the server makes, a pinned fixture, the page store, or the
model) → answer it → bend the answer as a perturbation says → record the call
(:mod:`~mcp_sim.simulator.recorder`: history, metrics, journal) → write it through to the
durable store, if any → keep its new model answers in the cache → injected waits (latency,
timeouts) outside the session's lock.

The model's answer (:mod:`~mcp_sim.simulator.model_answer`) is: prompt in the native format
(:mod:`~mcp_sim.simulator.prompt`: state view, virtual time, fresh ids, simulation instruction)
→ world model, through the gateway (:mod:`~mcp_sim.simulator.gateway`: seeds, answer cache,
transient failures) → extract the observation and validate it against the output schema
(:mod:`~mcp_sim.simulator.answers`, one repair retry) → for write calls, the proposed state
change, checked (one corrected retry) → consistency audit (one regeneration) → commit the
change (version + 1).

In a world with a web, the search and open tools go to the page store instead
(:mod:`~mcp_sim.simulator.page_answer`): it answers from what the world has already shown, and
asks the model, through the same prompt, only for what it has not.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from dataclasses import replace
from typing import Any

from mcp_sim.journal import Journal
from mcp_sim.models.base import ProgressCallback, Sampling, WorldModel
from mcp_sim.models.replay import Replay
from mcp_sim.perturb import injection as inject
from mcp_sim.perturb.planner import Perturber, Plan, profiles_for
from mcp_sim.prompting.answer_shape import AnswerShape
from mcp_sim.prompting.state_view import StateView
from mcp_sim.runtime.audit import Auditor
from mcp_sim.runtime.session import Session, SessionStore
from mcp_sim.runtime.virtual_clock import virtual_now
from mcp_sim.settings.combined import Settings
from mcp_sim.simulator.answer_cache import AnswerCache
from mcp_sim.simulator.answer_sources import AnswerSource, SourceChoice, SourceChooser
from mcp_sim.simulator.context import CallContext, CallResult, CallTrace, UnknownTool
from mcp_sim.simulator.gateway import ModelGateway
from mcp_sim.simulator.metrics import Metrics
from mcp_sim.simulator.model_answer import ModelAnswerer
from mcp_sim.simulator.page_answer import PageAnswerer
from mcp_sim.simulator.prompt import PromptShaper
from mcp_sim.simulator.prompt_budget import PromptBudget
from mcp_sim.simulator.recorder import CallRecorder
from mcp_sim.simulator.transition import Transitions
from mcp_sim.simulator.write_through import WriteThrough
from mcp_sim.spec.world import ToolSpec, World
from mcp_sim.web.pages import PageStore
from mcp_sim.web.world_memory import WorldMemory

__all__ = [
    "CallResult",
    "Simulator",
    "UnknownTool",
]


class Simulator:
    """Answers tool calls for the sessions of one world."""

    def __init__(
        self,
        world: World,
        model: WorldModel | None,
        *,
        settings: Settings | None = None,
        default_sampling: Sampling | None = None,
        sessions: SessionStore | None = None,
        journal: Journal | None = None,
        perturber: Perturber | None = None,
        cache: AnswerCache | None = None,
        replay: Replay | None = None,
        memory: WorldMemory | None = None,
        metrics: Metrics | None = None,
        watchers: Sequence[Callable[[CallTrace], None]] = (),
        write_through: WriteThrough | None = None,
    ) -> None:
        """``settings`` say how to sample and prompt (used as given: the builder,
        :mod:`mcp_sim.api.assembly`, resolves the embedded model's defaults), over
        ``default_sampling`` when neither they nor the world say. ``memory`` keeps the pages of
        a world with a web (its own in-memory one if not given; see :mod:`mcp_sim.web.pages`).
        ``watchers`` are called with every finished call's :class:`CallTrace`, inside the
        session's lock (``mcp-sim ui`` keeps them to show what the model was shown): they must
        be quick. ``write_through`` makes calls durable (the episode store's; ``None`` keeps
        them in this process only)."""
        self.world = world
        self.settings = settings or Settings()
        self.options = self.settings.prompt
        self.metrics = metrics if metrics is not None else Metrics()
        self.cache = cache
        self.replay = replay
        self.sampling = self.settings.sampling.resolve(world, default_sampling)
        self.journal = journal if journal is not None else Journal()
        self.sessions = (
            sessions if sessions is not None else SessionStore(world, on_expire=self.journal.forget)
        )
        if self.sessions.base_seed is None:
            # --seed is the base of every session's seed (see mcp_sim.runtime.session_seeds).
            self.sessions.base_seed = self.sampling.seed
        self.perturber = perturber or Perturber(
            profiles_for(world.perturbations), seed=self.sampling.seed
        )
        self.write_through = write_through
        self.watchers = tuple(watchers)
        self.pages: PageStore | None = None
        if world.web() is not None:
            self.pages = PageStore(
                world, memory or WorldMemory(world.world), bounds=self.options.bounds
            )
        self._wire(model)
        self._built = True

    def __setattr__(self, name: str, value: Any) -> None:
        # Every part is given to the constructor (the write-through, the watchers, the model):
        # one assigned later would go round the builder and the layers that made it.
        if getattr(self, "_built", False):
            raise AttributeError(
                f"a Simulator's parts are given when it is built: {name} cannot be set after"
            )
        super().__setattr__(name, value)

    def _wire(self, model: WorldModel | None) -> None:
        """Build the pipeline's parts from the simulator's settings."""
        self.prompts = PromptShaper(self.world, self.options, self.sampling.max_tokens)
        self.gateway = ModelGateway(
            model,
            cache=self.cache,
            metrics=self.metrics,
            world_hash=self.world.content_hash(),
            seeds=self.options.model_seeds,
        )
        self.sources = SourceChooser(
            self.world,
            replay=self.replay,
            pages=self.pages,
            action_tokens=self.prompts.budget.action_tokens,
        )
        self.answerer = ModelAnswerer(
            self.world,
            prompts=self.prompts,
            gateway=self.gateway,
            sampling=self.sampling,
            metrics=self.metrics,
        )
        self.page_answerer = (
            PageAnswerer(
                self.pages, prompts=self.prompts, gateway=self.gateway, sampling=self.sampling
            )
            if self.pages is not None
            else None
        )
        self.recorder = CallRecorder(
            self.world,
            sessions=self.sessions,
            journal=self.journal,
            metrics=self.metrics,
            timing=self.settings.records.journal_timing,
            compact=self.prompts.compact,
        )

    @property
    def model(self) -> WorldModel | None:
        return self.gateway.model

    @property
    def view(self) -> StateView:
        return self.prompts.view

    @property
    def budget(self) -> PromptBudget:
        return self.prompts.budget

    @property
    def transitions(self) -> Transitions:
        return self.answerer.transitions

    @property
    def auditor(self) -> Auditor:
        return self.answerer.auditor

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
        tool = self._tool(tool_name)
        held = self.write_through.holding(session_id) if self.write_through else nullcontext()
        async with held:
            session = self.sessions.get(session_id, seed=seed)
            if perturb is not None:
                self.perturber.select(session, perturb)
            async with session.lock:
                started = time.perf_counter()
                state_before = session.state
                args = arguments or {}

                def plan() -> Plan:
                    return self.perturber.plan(session, tool.name, tool.effect, args)

                choice = self.sources.choose(tool, args, plan, session=session)
                ctx = self._context(session, tool, args, choice, started, progress)
                result = await self._answer(ctx, choice)
                record, turn = self.recorder.record(ctx, result)
                if self.watchers:
                    trace = CallTrace(record, tuple(ctx.usage.exchanges), state_before)
                    for watch in self.watchers:
                        watch(trace)
                if self.write_through is not None:
                    await self.write_through.committed(session, record, turn)
                await self.gateway.keep_answers(ctx.usage)
        # Outside the lock: a slow or hanging call must not hold up the session's other calls.
        await inject.settle(ctx.plan)
        return result

    def answers_without_model(
        self, tool_name: str, arguments: dict[str, Any] | None, session_id: str = "default"
    ) -> bool:
        """Whether a call is settled without the world model (bad arguments, a fixture, or a
        fault the server makes itself), as the next call of ``session_id``. It changes
        nothing: the perturbations are peeked at, and recorded answers are not looked up."""
        tool = self.world.tool(tool_name)
        if tool is None:
            return True
        args = arguments or {}

        def plan() -> Plan:
            return self.perturber.peek(self.sessions.get(session_id), tool.name, tool.effect, args)

        choice = self.sources.choose(tool, args, plan, session=None)
        return not self.sources.needs_model(choice, tool, args)

    def _context(
        self,
        session: Session,
        tool: ToolSpec,
        args: dict[str, Any],
        choice: SourceChoice,
        started: float,
        progress: ProgressCallback | None,
    ) -> CallContext:
        """The context of a call whose answer source is chosen: its virtual time, and the shape
        of the answer the model is asked for (an injected error is the tool's error text, not
        its schema)."""
        now = virtual_now(self.world, session.steps + 1)
        error = choice.instruction is not None and choice.instruction.error
        shape = AnswerShape.of(tool, self.options.bounds, error=error)
        return CallContext(session, tool, args, now, started, shape, progress, plan=choice.plan)

    def _tool(self, name: str) -> ToolSpec:
        tool = self.world.tool(name)
        if tool is None:
            self.metrics.observe_unknown_tool()
            raise UnknownTool(name, self.world)
        return tool

    async def _answer(self, ctx: CallContext, choice: SourceChoice) -> CallResult:
        """The answer to a call, from where ``choice`` says, perturbed as its plan says."""
        match choice.source:
            case AnswerSource.REPLAY if (replayed := choice.replayed) is not None:
                return ctx.result(
                    replayed.text,
                    replayed.structured,
                    replayed.is_error,
                    "replay",
                    content=replayed.content,
                )
            case AnswerSource.INVALID if choice.invalid is not None:
                return ctx.result(choice.invalid, None, True, "validation")
            case AnswerSource.FAULT if (made := choice.fault) is not None:
                return ctx.result(made.text, None, made.is_error, "perturbation")
            case AnswerSource.FIXTURE if (fixture := choice.fixture) is not None:
                result = ctx.result(fixture.text, fixture.structured, fixture.is_error, "fixture")
                if self.page_answerer is not None:
                    await self.page_answerer.observe(ctx, result.text)
            case AnswerSource.PAGES if self.page_answerer is not None:
                result = await self.page_answerer.answer(ctx)
            case _:
                result = await self.answerer.answer(ctx, choice.instruction)
        return _bent(result, choice)


def _bent(result: CallResult, choice: SourceChoice) -> CallResult:
    """``result`` as a ``malformed`` perturbation breaks it."""
    mangled = inject.mangle(choice.plan, result.text)
    # A model that failed has no answer to break; its error stays readable.
    if mangled is None or result.source == "model_error":
        return result
    # A client cannot parse a broken body, so there is no structured content either.
    return replace(result, text=mangled, structured=None)
