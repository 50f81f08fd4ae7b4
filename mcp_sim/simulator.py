"""The call pipeline: the only place that decides what a tool call returns.

validate arguments → plan perturbations → pinned fixture? → prompt in the native format → world
model → extract the observation → validate against the output schema (one repair retry) →
history + journal → injected waits (latency, timeouts) outside the session's lock.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, replace
from typing import Any

import jsonschema

from mcp_sim import inject
from mcp_sim.backends.base import (
    ChatMessage,
    Completion,
    CompletionRequest,
    ProgressCallback,
    Sampling,
    WorldModel,
)
from mcp_sim.errors import ModelError, ModelOutputInvalid, SimError
from mcp_sim.journal import Journal, JournalRecord, Source
from mcp_sim.perturb import NO_PLAN, Perturber, Plan, profiles_for
from mcp_sim.prompt import PastCall, build_messages, extract_observation
from mcp_sim.session import Session, SessionStore, Turn
from mcp_sim.spec import ToolSpec, World


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
        default_sampling: Sampling | None = None,
        perturber: Perturber | None = None,
    ) -> None:
        self.world = world
        self.model = model
        self.journal = journal if journal is not None else Journal()
        self.sessions = (
            sessions if sessions is not None else SessionStore(world, on_expire=self.journal.forget)
        )
        self.sampling = resolve_sampling(world, sampling or SamplingOverrides(), default_sampling)
        self.perturber = perturber or Perturber(
            profiles_for(world.perturbations), seed=self.sampling.seed
        )
        self._input_validators = {
            t.name: jsonschema.Draft202012Validator(t.input_schema) for t in world.tools
        }
        self._output_validators = {
            t.name: jsonschema.Draft202012Validator(t.output_schema)
            for t in world.tools
            if t.output_schema is not None
        }
        self._world_hash = world.content_hash()

    async def call(
        self,
        session_id: str,
        tool_name: str,
        arguments: dict[str, Any] | None,
        progress: ProgressCallback | None = None,
        *,
        perturb: str | list[str] | None = None,
    ) -> CallResult:
        """Answer one call. ``perturb`` names the session's perturbation profiles from this call
        on. Raises :class:`UnknownTool`, :class:`mcp_sim.perturb.UnknownProfile` and, when a
        perturbation says so, :class:`mcp_sim.inject.InjectedProtocolError`; every other
        failure is a result."""
        tool = self.world.tool(tool_name)
        if tool is None:
            raise UnknownTool(tool_name, self.world)
        args = arguments or {}
        session = self.sessions.get(session_id)
        if perturb is not None:
            self.perturber.select(session, perturb)
        async with session.lock:
            started = time.perf_counter()
            completion: Completion | None = None
            plan = NO_PLAN
            errors = sorted(self._input_validators[tool.name].iter_errors(args), key=str)
            if errors:
                details = "\n".join(f"- {_format_validation_error(e)}" for e in errors)
                text = f"Input validation error for {tool.name}:\n{details}"
                result = self._result(session, text, None, True, "validation")
            else:
                plan = self.perturber.plan(session, tool.name, tool.effect, args)
                result, completion = await self._answer(session, tool, args, progress, plan)
            session.steps += 1
            if result.source not in ("model_error", "perturbation"):
                session.history.append(Turn(tool.name, args, result.text, result.is_error))
            self.sessions.touch(session)
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
                    latency_ms=round((time.perf_counter() - started) * 1000, 3),
                    prompt_tokens=completion.prompt_tokens if completion else 0,
                    completion_tokens=completion.completion_tokens if completion else 0,
                    model=completion.model if completion else "",
                    world=self._world_hash,
                    perturbations=plan.records(),
                )
            )
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
        return inject.instruction(plan) is None and self._fixture(tool, args) is not None

    def _result(
        self,
        session: Session,
        text: str,
        structured: Any,
        is_error: bool,
        source: Source,
        reasoning: str | None = None,
    ) -> CallResult:
        return CallResult(
            text=text,
            structured=structured,
            is_error=is_error,
            source=source,
            session=session.id,
            step=session.steps + 1,
            reasoning=reasoning,
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

    async def _answer(
        self,
        session: Session,
        tool: ToolSpec,
        args: dict[str, Any],
        progress: ProgressCallback | None,
        plan: Plan,
    ) -> tuple[CallResult, Completion | None]:
        """The answer to a valid call, perturbed as ``plan`` says: made by the server, or
        from the fixture or the model (told a simulation instruction), perhaps mangled."""
        made = inject.server_answer(plan, tool.name)
        if made is not None:
            return self._result(session, made.text, None, made.is_error, "perturbation"), None
        instruction = inject.instruction(plan)
        completion: Completion | None = None
        if instruction is None and (fixture := self._fixture(tool, args)) is not None:
            result = self._result(session, *fixture, "fixture")
        else:
            result, completion = await self._ask_model(session, tool, args, progress, instruction)
        mangled = inject.mangle(plan, result.text)
        # A model that failed has no answer to break; its error stays readable.
        if mangled is not None and result.source != "model_error":
            # A client cannot parse a broken body, so there is no structured content either.
            result = replace(result, text=mangled, structured=None)
        return result, completion

    async def _ask_model(
        self,
        session: Session,
        tool: ToolSpec,
        args: dict[str, Any],
        progress: ProgressCallback | None,
        instruction: inject.Instruction | None = None,
    ) -> tuple[CallResult, Completion | None]:
        if self.model is None:
            text = (
                f"mcp-sim: no world model is configured and no fixture pins {tool.name} with "
                "these arguments. Start the server with --model-url URL (or without it, to use "
                "the embedded model)."
            )
            return self._result(session, text, None, True, "model_error"), None
        history = [PastCall(t.tool, t.arguments, t.observation) for t in session.history]
        # An injected error is the tool's error text, not a result that follows its schema.
        failing = instruction is not None and instruction.error
        structured = tool.output_schema is not None and not failing
        messages = build_messages(
            self.world,
            history,
            tool,
            args,
            session.state,
            structured=structured,
            simulation_instruction=instruction.text if instruction else None,
        )
        request = CompletionRequest(
            messages=messages,
            sampling=self.sampling,
            response_schema=tool.output_schema if structured else None,
            schema_name=tool.name,
            routing_key=session.id,
        )
        completion: Completion | None = None
        try:
            completion = await self.model.complete(request, progress)
            if not structured:
                text = extract_observation(completion.content)
                if not text:
                    raise ModelOutputInvalid("the world model returned an empty observation")
                return self._result(
                    session, text, None, failing, "model", completion.reasoning
                ), completion
            try:
                data = self._structured(tool, completion.content)
            except ModelOutputInvalid as first_error:
                retry = replace(
                    request, messages=self._repair_messages(messages, completion, first_error)
                )
                repaired = await self.model.complete(retry, progress)
                # The journal records what the call cost: both requests.
                completion = replace(
                    repaired,
                    prompt_tokens=completion.prompt_tokens + repaired.prompt_tokens,
                    completion_tokens=completion.completion_tokens + repaired.completion_tokens,
                )
                data = self._structured(tool, completion.content)
            text = json.dumps(data, ensure_ascii=False)
            return self._result(
                session, text, data, False, "model", completion.reasoning
            ), completion
        except ModelError as exc:
            text = f"mcp-sim could not simulate {tool.name}: {exc}"
            return self._result(session, text, None, True, "model_error"), completion

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

    @staticmethod
    def _repair_messages(
        messages: list[ChatMessage], completion: Completion, error: ModelOutputInvalid
    ) -> list[ChatMessage]:
        return [
            *messages,
            {"role": "assistant", "content": completion.content},
            {
                "role": "user",
                "content": (
                    f"That response is not valid: {error}. Answer again with only a JSON object "
                    "that follows the tool's output schema."
                ),
            },
        ]
