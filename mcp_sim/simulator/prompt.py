"""What the model is shown for one call: the history kept within its budget, the state section
(the whole state, or a view of it; see :mod:`mcp_sim.prompting.state_view`) and the call's
turn, in the native format (see :mod:`mcp_sim.prompting.native`).

Building a prompt reads the session only. What a prompt needs the session to hold first is one
explicit step, :meth:`PromptShaper.prepare`: it fills in the actions of turns restored from a
snapshot, compacts the history when it outgrows its budget, and keeps the session's grounding
overlay in step with its state.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from mcp_sim.models.base import ChatMessage
from mcp_sim.prompting.answer_names import OTHER_ANSWERS
from mcp_sim.prompting.answer_shape import AnswerShape
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
from mcp_sim.prompting.search_count import EARLIER_ANSWERS
from mcp_sim.prompting.shown_records import known_records
from mcp_sim.prompting.state_view import StateView
from mcp_sim.runtime.entities import EntityIndex, string_values
from mcp_sim.runtime.session import Session, Turn
from mcp_sim.runtime.state import PatchOp
from mcp_sim.settings.prompt import PromptSettings
from mcp_sim.simulator.compaction import compaction_start
from mcp_sim.simulator.prompt_budget import fit_budget
from mcp_sim.spec.world import ToolSpec, World

MAX_FOLDED_TURNS = 256
"""Turns a session keeps folded behind its anchor at most, for the changes they committed."""


def turn_tokens(turn: Turn) -> int:
    """A past turn's share of the prompt: its user message (as shown) and observation."""
    head = (
        turn.head
        if turn.head is not None
        else render_action(0, turn.tool, turn.arguments, turn.action)
    )
    return estimate_tokens(head + turn.observation)


def unseen_changes(session: Session, shown: Sequence[Turn]) -> list[PatchOp] | None:
    """The state changes the model has not been shown yet, when the shown turns (the
    session's :func:`shown_turns`) let it know the current state: an anchor turn (the whole
    state) is among them, and every change since the last turn shown with its sections
    (folded turns' included) is one the history committed. ``None`` when the next turn must
    anchor the state again (none shown, or the state changed outside the calls)."""
    if not any(t.anchor for t in shown):
        return None
    last = max(i for i, t in enumerate(shown) if t.head is not None)
    since = session.turns_from(shown_numbers(session)[last])
    changes = [t.change for t in since if t.change is not None]
    if session.version != shown[last].version + len(changes):
        return None
    return [op for change in changes for op in change]


def folded(session: Session) -> bool:
    """Whether turns after the shown anchor are folded away (see :func:`shown_numbers`)."""
    return session.history_resume > session.history_start + 1


def shown_numbers(session: Session) -> list[int]:
    """The numbers (0-based) of the turns the prompt shows: from ``history_start`` on, or,
    when turns are folded, the anchor ``history_start`` and those from ``history_resume``."""
    if folded(session):
        return [session.history_start, *range(session.history_resume, session.turn_count)]
    return list(range(session.history_start, session.turn_count))


def shown_known(session: Session, shown: Sequence[Turn]) -> set[str]:
    """The records the shown turns show whole and no change since touched (folded turns'
    changes included), which the next turn names instead of repeating."""
    turns = session.turns_from(session.history_start)
    visible = {id(t) for t in shown}
    heads = [t.head if id(t) in visible else None for t in turns]
    return known_records(heads, [t.change or () for t in turns])


def fold_notice(session: Session, changed: bool) -> str:
    """The note opening the first turn after a fold, on the turns folded away."""
    first, last = session.history_start + 2, session.history_resume
    turns = f"Turn {first} is" if first == last else f"Turns {first} to {last} are"
    effect = "the state changes below include theirs" if changed else "they changed no state"
    return f"*({turns} not shown; {effect}.)*"


@dataclass(frozen=True)
class Prompt:
    """The messages of one request, and the call's turn as they show it."""

    messages: list[ChatMessage]
    head: str
    """The call's turn as shown, kept in the history so later prompts repeat it unchanged."""
    anchor: bool
    """Whether the turn shows the whole state (or its view) rather than changes since."""


class PromptShaper:
    """Builds the prompts of one world's calls within the budgets of its options."""

    def __init__(self, world: World, options: PromptSettings, max_tokens: int) -> None:
        """``max_tokens`` is the answer's limit, which the prompt leaves room for in the
        model's context window when that is known."""
        self.world = world
        self.options = options
        self.budget = fit_budget(
            options.state_budget,
            options.turn_budget,
            options.history_budget,
            system_tokens=estimate_tokens(render_system(world)),
            context_tokens=options.context_window,
            max_tokens=max_tokens,
            action_tokens=options.action_budget,
        )
        self.view = StateView(
            world, self.budget.state_tokens, self.budget.turn_tokens, warm=options.warm_tables
        )

    def prepare(self, session: Session) -> None:
        """Make ``session`` ready to be shown: the one step that changes it. Fills in the
        actions of turns restored from a snapshot, compacts the history (:meth:`compact`)
        and moves the grounding overlay on to the state."""
        history = session.history
        for i in range(max(0, session.history_start - session.history_offset), len(history)):
            if history[i].action is None and history[i].head is None:  # restored from a snapshot
                turn = history[i]
                history[i] = replace(turn, action=action_json(turn.tool, turn.arguments))
        self.compact(session)
        session.grounding = self.view.overlay_for(session.state, session.grounding)

    def compact(self, session: Session) -> None:
        """Keep the shown history within its budget, in rare large cuts (see
        :mod:`mcp_sim.simulator.compaction`), then let go of the turns folded away (all but
        the last ``reference_turns``, which pick the records a view shows)."""
        shown = self.shown_history(session)
        sizes = [turn_tokens(t) for t in shown]
        anchors = [i for i, t in enumerate(shown) if t.anchor]
        if anchors and unseen_changes(session, shown) is not None:
            # The newest anchor's state section has the state budget; when the next turn
            # anchors again instead, that one has it.
            sizes[anchors[-1]] = max(0, sizes[anchors[-1]] - self.budget.state_tokens)
        start = compaction_start(
            sizes,
            self.budget.history_tokens,
            keep_turns=self.options.keep_turns,
            keep_share=self.options.history_keep_share,
        )
        if start and self.can_fold(session, shown, sizes[0]):
            session.history_resume = session.turn_count
        elif start:
            numbers = shown_numbers(session)
            session.history_start = numbers[start] if start < len(numbers) else session.turn_count
            session.history_resume = 0
        session.let_go(session.turn_count - self.options.reference_turns)

    def can_fold(self, session: Session, shown: Sequence[Turn], anchor_size: int) -> bool:
        """Whether a compaction may keep the anchor turn shown (so the prompt's prefix up to
        its end stays cached) and fold away every turn after it: the anchor still tells the
        state, the changes since it fit a later turn's budget, and the folded turns kept for
        them stay few."""
        if not shown or not shown[0].anchor or unseen_changes(session, shown) is None:
            return False
        since = session.turns_from(session.history_start)
        if len(since) > MAX_FOLDED_TURNS:
            return False
        changes = [op for t in since for op in (t.change or ())]
        room = self.budget.turn_tokens // 2
        return anchor_size <= self.budget.history_tokens // 2 and (
            estimate_tokens(json.dumps(changes)) <= room
        )

    @staticmethod
    def shown_history(session: Session) -> list[Turn]:
        """The turns the prompt shows (those :meth:`prepare` kept)."""
        turns = session.turns_from(session.history_start)
        if folded(session):
            return [turns[0], *session.turns_from(session.history_resume)]
        return turns

    def references(self, session: Session, args: dict[str, Any]) -> list[str]:
        """The texts that pick the records a view shows: the call's arguments, then the
        arguments and observations of the last ``reference_turns`` turns, newest first."""
        texts = [*string_values(args)]
        turns = self.options.reference_turns
        recent = session.history[-turns:] if turns else []
        for turn in reversed(recent):
            texts += [*string_values(turn.arguments), turn.observation]
        return texts

    def messages(
        self,
        session: Session,
        tool: ToolSpec,
        args: dict[str, Any],
        now: str | None,
        before: EntityIndex | None,
        shape: AnswerShape,
        simulation_instruction: str | None = None,
        *,
        sections: Sequence[str] = (),
    ) -> Prompt:
        """The prompt of a call of ``tool`` with ``args`` at virtual time ``now`` (``before``
        indexes the state for worlds with entities), asking for an answer of ``shape``; reads
        ``session`` only."""
        shown = self.shown_history(session)
        unseen = unseen_changes(session, shown)
        references = self.references(session, args) if unseen is None else ()
        overlay = self.view.overlay_for(session.state, session.grounding)
        known = shown_known(session, shown) if unseen is not None else set()
        state_section = self.view.turn_section(
            session.state,
            before,
            unseen,
            args,
            references,
            tool=tool,
            overlay=overlay,
            known=known,
            answers=earlier_answers(session, tool.name),
            others=other_answers(session, tool.name),
        )
        context = TurnContext(
            state_view=state_section,
            now=now,
            fresh_ids=session.ids.offer(self.world) if shape.writes else {},
            first_turn=session.history_start + 1,
            sections=sections,
        )
        number = session.turn_count + 1
        preamble = render_preamble(session.state, context)
        if folded(session) and len(shown) == 1:
            preamble = f"{fold_notice(session, bool(unseen))}\n\n{preamble}"
        head = render_action(number, tool.name, args, preamble=preamble)
        history = [
            PastCall(t.tool, t.arguments, t.observation, t.action, head=t.head, number=n + 1)
            for n, t in zip(shown_numbers(session), shown, strict=True)
        ]
        messages = build_messages(
            self.world,
            history,
            tool,
            args,
            session.state,
            shape=shape,
            context=replace(context, head=head),
            simulation_instruction=simulation_instruction,
        )
        return Prompt(messages, head, anchor=unseen is None)


def earlier_answers(session: Session, tool: str) -> list[str]:
    """The last answers of ``tool`` in the session, oldest first: they may show how it wraps
    a search's results and their count."""
    return [t.observation for t in session.history if t.tool == tool][-EARLIER_ANSWERS:]


def other_answers(session: Session, tool: str) -> list[str]:
    """The last answers of the session's other tools, oldest first: a service names a
    record's fields alike across its tools (see :mod:`mcp_sim.prompting.answer_names`)."""
    return [t.observation for t in session.history if t.tool != tool][-OTHER_ANSWERS:]
