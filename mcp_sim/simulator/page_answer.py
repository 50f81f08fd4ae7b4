"""The page store's side of a world with a web: its search and open calls are answered by the
:class:`~mcp_sim.web.pages.PageStore` from what the world has already shown, and it asks the
model, through the same prompt and gateway as any call, only for what it has not (see
:mod:`mcp_sim.web.pages`)."""

from __future__ import annotations

from dataclasses import replace

from mcp_sim.errors import ModelError
from mcp_sim.models.base import ChatMessage, CompletionRequest, Sampling
from mcp_sim.simulator.answers import page_text
from mcp_sim.simulator.context import CallContext, CallResult
from mcp_sim.simulator.gateway import ModelGateway
from mcp_sim.simulator.metrics import error_kind
from mcp_sim.simulator.prompt import PromptShaper
from mcp_sim.simulator.transition import PATCH_MAX_TOKENS
from mcp_sim.web.pages import PageStore
from mcp_sim.web.questions import Ask, ModelQuestion, ModelReply


class PageAnswerer:
    """Answers the search and open calls of one world with a web."""

    def __init__(
        self,
        pages: PageStore,
        *,
        prompts: PromptShaper,
        gateway: ModelGateway,
        sampling: Sampling,
    ) -> None:
        self.pages = pages
        self.prompts = prompts
        self.gateway = gateway
        self.sampling = sampling

    async def answer(self, ctx: CallContext) -> CallResult:
        """The page store's answer to the call, asking the model what it has not seen."""
        try:
            answer = await self.pages.answer(ctx.tool.name, ctx.arguments, self._asker(ctx))
        except ModelError as exc:
            text = f"mcp-sim could not simulate {ctx.tool.name}: {exc}"
            return ctx.result(text, None, True, "model_error", failure=error_kind(exc))
        result = ctx.result(answer.text, None, answer.is_error, answer.source, answer.reasoning)
        return replace(result, violations=answer.violations)

    async def observe(self, ctx: CallContext, text: str) -> None:
        """Remember what a fixture showed for a call the page store handles."""
        if self.pages.handles(ctx.tool.name):
            await self.pages.observe(ctx.tool.name, ctx.arguments, text)

    def _asker(self, ctx: CallContext) -> Ask:
        async def ask(question: ModelQuestion) -> ModelReply:
            return await self._ask(ctx, question)

        return ask

    async def _ask(self, ctx: CallContext, question: ModelQuestion) -> ModelReply:
        tool = ctx.tool
        if self.gateway.model is None:
            raise ModelError(
                f"no world model is configured, and the page store has not seen this "
                f"{tool.name} call yet; start the server with --model-url URL (or without "
                "it, to use the embedded model)"
            )
        shape = ctx.shape.for_question(question.response_schema)
        self.prompts.prepare(ctx.session)
        prompt = self.prompts.messages(
            ctx.session, tool, question.arguments, ctx.now, None, shape, sections=question.sections
        )
        if question.arguments == ctx.arguments:
            ctx.usage.turn_head, ctx.usage.turn_anchor = prompt.head, prompt.anchor
        messages: list[ChatMessage] = prompt.messages
        if question.then is not None:
            answer, next_ask = question.then
            messages = [
                *messages,
                {"role": "assistant", "content": answer},
                {"role": "user", "content": next_ask},
            ]
        sampling = self.sampling
        if question.follow_up:
            sampling = replace(
                sampling, thinking=False, max_tokens=min(sampling.max_tokens, PATCH_MAX_TOKENS)
            )
        request = CompletionRequest(
            messages,
            sampling,
            shape.response_schema,
            schema_name=tool.name,
            routing_key=ctx.session.id,
        )
        completion = await self.gateway.complete(ctx.session, request, ctx.progress, ctx.usage)
        text = page_text(completion.content, shape)
        return ModelReply(text, completion.content, completion.reasoning)
