"""Where the answer to a call comes from: the one such decision of the pipeline.

In order: a recorded answer (replay), the server's input validation, a fault the server makes
itself (a perturbation), then — unless a perturbation tells the model how to bend the answer,
which only the model can do — a pinned fixture, the page store of a world with a web, and
finally the world model. :meth:`SourceChooser.choose` makes the decision both for a call
(:meth:`mcp_sim.simulator.core.Simulator.call`) and for the question whether a call needs the
model (:meth:`~mcp_sim.simulator.core.Simulator.answers_without_model`), so the two cannot
disagree.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import Any

import jsonschema

from mcp_sim.models.replay import Replay, ReplayAnswer
from mcp_sim.perturb import injection as inject
from mcp_sim.perturb.planner import NO_PLAN, Plan
from mcp_sim.prompting.native import action_json, estimate_tokens
from mcp_sim.runtime.session import Session
from mcp_sim.simulator.answers import format_validation_error
from mcp_sim.spec.world import ToolSpec, World
from mcp_sim.web.pages import PageStore


class AnswerSource(Enum):
    """Who answers a call."""

    REPLAY = "replay"
    INVALID = "invalid"
    FAULT = "fault"
    FIXTURE = "fixture"
    PAGES = "pages"
    MODEL = "model"


def choose_source(
    *, replayed: bool, invalid: bool, fault: bool, instructed: bool, pinned: bool, paged: bool
) -> AnswerSource:
    """Who answers a call, from what is known of it: a recorded answer, invalid arguments, a
    fault the server makes, a simulation instruction for the model, a fixture, a page store
    that handles the tool."""
    if replayed:
        return AnswerSource.REPLAY
    if invalid:
        return AnswerSource.INVALID
    if fault:
        return AnswerSource.FAULT
    if instructed:
        # A perturbed call bypasses fixtures and the page store: its bent answer must not
        # become canon.
        return AnswerSource.MODEL
    if pinned:
        return AnswerSource.FIXTURE
    return AnswerSource.PAGES if paged else AnswerSource.MODEL


@dataclass(frozen=True)
class Fixture:
    """A pinned answer of the world spec, as the call returns it."""

    text: str
    structured: Any
    is_error: bool


@dataclass(frozen=True)
class SourceChoice:
    """The source chosen to answer one call, with what was found on the way to it."""

    source: AnswerSource
    plan: Plan = NO_PLAN
    replayed: ReplayAnswer | None = None
    invalid: str | None = None
    """The validation error message, for invalid arguments."""
    fault: inject.ServerAnswer | None = None
    instruction: inject.Instruction | None = None
    fixture: Fixture | None = None


def validation_message(tool: str, errors: list[jsonschema.ValidationError]) -> str:
    details = "\n".join(f"- {format_validation_error(e)}" for e in errors)
    return f"Input validation error for {tool}:\n{details}"


def oversized_message(tool: str, args: dict[str, Any], action_tokens: int | None) -> str | None:
    """The validation error for a call too large to show the model, or ``None``.

    The model answers from a prompt of bounded size, and a write's change is the model's to
    write: arguments past ``action_tokens`` (a 1 MB file to save) could be neither shown within
    the bound nor written into the state, so the server refuses them as real servers refuse an
    oversized request, saying by how much."""
    if action_tokens is None:
        return None
    action = action_json(tool, args)
    if estimate_tokens(action) <= action_tokens:
        return None
    limit = 3 * action_tokens
    return (
        f"Input validation error for {tool}:\n- the arguments are too large: "
        f"{len(action):,} characters, where this server accepts at most {limit:,}"
    )


def fixture_for(tool: ToolSpec, args: dict[str, Any], world: World) -> Fixture | None:
    """The world's fixture pinning this call, if any (structured only for a tool with an
    output schema and an object result that is not an error)."""
    for fixture in world.fixtures:
        if fixture.when.tool == tool.name and fixture.when.arguments == args:
            result = fixture.result
            text = result if isinstance(result, str) else json.dumps(result, ensure_ascii=False)
            structured = result if isinstance(result, dict) and not fixture.is_error else None
            if tool.output_schema is None:
                structured = None
            return Fixture(text, structured, fixture.is_error)
    return None


class SourceChooser:
    """Chooses who answers the calls of one world."""

    def __init__(
        self,
        world: World,
        *,
        replay: Replay | None,
        pages: PageStore | None,
        action_tokens: int | None = None,
    ) -> None:
        """``action_tokens`` bounds a call's arguments as the model is shown them (``None``:
        no bound)."""
        self.world = world
        self.replay = replay
        self.pages = pages
        self.action_tokens = action_tokens
        self._validators = {
            t.name: jsonschema.Draft202012Validator(t.input_schema) for t in world.tools
        }

    def choose(
        self,
        tool: ToolSpec,
        args: dict[str, Any],
        plan: Callable[[], Plan],
        *,
        session: Session | None,
    ) -> SourceChoice:
        """The source of the answer to a call of ``tool`` with ``args``. ``plan`` plans its perturbations,
        and is called only for valid arguments without a recorded answer (planning counts the
        call). A recorded answer is looked up as the next call of ``session``; looking it up
        uses it, so a question that must not change anything passes no session and sees no
        recording."""
        replayed = None
        if session is not None and self.replay is not None:
            replayed = self.replay.answer(session.id, session.steps + 1, tool.name, args)
        errors = sorted(self._validators[tool.name].iter_errors(args), key=str)
        invalid = validation_message(tool.name, errors) if errors else None
        if invalid is None:
            invalid = oversized_message(tool.name, args, self.action_tokens)
        planned = plan() if replayed is None and invalid is None else NO_PLAN
        fault = inject.server_answer(planned, tool.name)
        instruction = inject.instruction(planned)
        fixture = fixture_for(tool, args, self.world)
        source = choose_source(
            replayed=replayed is not None,
            invalid=invalid is not None,
            fault=fault is not None,
            instructed=instruction is not None,
            pinned=fixture is not None,
            paged=self.pages is not None and self.pages.handles(tool.name),
        )
        return SourceChoice(
            source,
            planned,
            replayed,
            invalid,
            fault,
            instruction,
            fixture,
        )

    def needs_model(self, choice: SourceChoice, tool: ToolSpec, args: dict[str, Any]) -> bool:
        """Whether a call of this ``choice`` asks the world model (the page store only for what it has
        not seen yet)."""
        if choice.source is AnswerSource.PAGES:
            return self.pages is not None and not self.pages.settled(tool.name, args)
        return choice.source is AnswerSource.MODEL
