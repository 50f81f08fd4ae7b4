"""A call answered by the world model: prompt → answer (one repair retry) → for a write call,
the proposed state change → consistency audit (one regeneration) → commit.

The model is asked through the :class:`~mcp_sim.simulator.gateway.ModelGateway`; a request
that fails ends the call as a ``model_error`` result, except in the regeneration, whose failure
leaves the first answer standing."""

from __future__ import annotations

import contextlib
from dataclasses import replace

import jsonschema

from mcp_sim.errors import ModelError, ModelOutputInvalid
from mcp_sim.models.base import ChatMessage, Completion, CompletionRequest, Sampling
from mcp_sim.perturb.injection import Instruction
from mcp_sim.prompting.answer_format import regeneration_messages
from mcp_sim.runtime.audit import Auditor, Violation
from mcp_sim.runtime.entities import EntityIndex
from mcp_sim.simulator.answers import Answer, repair_messages, unwrap
from mcp_sim.simulator.context import CallContext, CallResult
from mcp_sim.simulator.gateway import ModelGateway
from mcp_sim.simulator.metrics import Metrics, error_kind
from mcp_sim.simulator.prompt import PromptShaper
from mcp_sim.simulator.transition import Change, Transitions
from mcp_sim.spec.world import World

NO_MODEL = (
    "mcp-sim: no world model is configured and no fixture pins {tool} with these arguments. "
    "Start the server with --model-url URL (or without it, to use the embedded model)."
)


class ModelAnswerer:
    """Answers one world's calls with its world model."""

    def __init__(
        self,
        world: World,
        *,
        prompts: PromptShaper,
        gateway: ModelGateway,
        sampling: Sampling,
        metrics: Metrics,
    ) -> None:
        self.world = world
        self.prompts = prompts
        self.gateway = gateway
        self.sampling = sampling
        self.metrics = metrics
        self.transitions = Transitions(world)
        self.auditor = Auditor(world)
        self._output_validators = {
            t.name: jsonschema.Draft202012Validator(t.output_schema)
            for t in world.tools
            if t.output_schema is not None
        }

    async def answer(self, ctx: CallContext, instruction: Instruction | None) -> CallResult:
        """The model's answer to the call, told ``instruction`` if a perturbation bends it;
        a write call's change is committed to the session."""
        if self.gateway.model is None:
            self.metrics.observe_failure("no_model")
            text = NO_MODEL.format(tool=ctx.tool.name)
            return ctx.result(text, None, True, "model_error", failure="no_model")
        tool, shape = ctx.tool, ctx.shape
        before = EntityIndex.build(self.world, ctx.session.state) if self.world.entities else None
        self.prompts.prepare(ctx.session)
        said = instruction.text if instruction is not None else None
        prompt = self.prompts.messages(
            ctx.session, tool, ctx.arguments, ctx.now, before, shape, said
        )
        ctx.usage.turn_head, ctx.usage.turn_anchor = prompt.head, prompt.anchor
        request = CompletionRequest(
            messages=prompt.messages,
            sampling=self.sampling,
            response_schema=shape.response_schema,
            schema_name=tool.name,
            routing_key=ctx.session.id,
        )
        try:
            answer = await self._answer(ctx, request)
            change = await self._change(ctx, request.messages, answer)
        except ModelError as exc:
            self.metrics.observe_failure(error_kind(exc))
            text = f"mcp-sim could not simulate {tool.name}: {exc}"
            return ctx.result(text, None, True, "model_error", failure=error_kind(exc))
        answer, change, violations = await self._consistent(ctx, request, before, answer, change)
        ctx.usage.change, ctx.usage.violations = change, violations
        if self.auditor.enabled:
            ctx.session.consistency.checked += 1
            ctx.session.consistency.flagged += len(violations)
        result = ctx.result(answer.text, answer.structured, shape.error, "model", answer.reasoning)
        self.transitions.commit(ctx.session, change, before, answer.text)
        return result

    async def _consistent(
        self,
        ctx: CallContext,
        request: CompletionRequest,
        before: EntityIndex | None,
        answer: Answer,
        change: Change,
    ) -> tuple[Answer, Change, list[Violation]]:
        """The answer and change after the audit: regenerated once, told what contradicts the
        state, when the first has violations."""
        violations = self._audit(ctx, answer, before, change)
        if not violations:
            return answer, change, violations
        ctx.usage.regenerated = True
        ctx.session.consistency.regenerated += 1
        violated = [str(v) for v in violations]
        retry = regeneration_messages(request.messages, answer.content, violated, ctx.shape)
        # A failed regeneration leaves the first answer standing, its violations counted.
        with contextlib.suppress(ModelError):
            regeneration = replace(request, messages=retry, purpose="regeneration")
            answer = await self._answer(ctx, regeneration)
            change = await self._change(ctx, retry, answer)
            violations = self._audit(ctx, answer, before, change)
        return answer, change, violations

    async def _answer(self, ctx: CallContext, request: CompletionRequest) -> Answer:
        completion = await self.gateway.complete(ctx.session, request, ctx.progress, ctx.usage)
        try:
            return self._unwrapped(ctx, completion)
        except ModelOutputInvalid as first_error:
            # Asked once more, with what was wrong: small models especially sometimes answer
            # with nothing, or with JSON that misses the schema.
            messages = repair_messages(request.messages, completion, first_error, ctx.shape)
            retry = replace(request, messages=messages, purpose="repair")
            completion = await self.gateway.complete(ctx.session, retry, ctx.progress, ctx.usage)
            return self._unwrapped(ctx, completion)

    def _unwrapped(self, ctx: CallContext, completion: Completion) -> Answer:
        validator = self._output_validators.get(ctx.tool.name)
        return unwrap(ctx.tool.name, completion, ctx.shape, validator)

    async def _change(
        self, ctx: CallContext, messages: list[ChatMessage], answer: Answer
    ) -> Change:
        if not ctx.shape.writes:
            return Change()

        async def ask(request: CompletionRequest) -> str:
            completion = await self.gateway.complete(ctx.session, request, ctx.progress, ctx.usage)
            return completion.content

        return await self.transitions.propose(
            ctx.session, messages, answer.content, answer.tagged_patch, self.sampling, ask
        )

    def _audit(
        self, ctx: CallContext, answer: Answer, before: EntityIndex | None, change: Change
    ) -> list[Violation]:
        if before is None:
            return []
        after = EntityIndex.build(self.world, change.after) if change.after is not None else before
        return self.auditor.check(
            answer.text, ctx.arguments, before=before, after=after, deleted=ctx.session.deleted
        )
