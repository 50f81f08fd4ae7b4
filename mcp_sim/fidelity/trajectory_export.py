"""Journals as training and benchmark data (``mcp-sim export``).

Two formats, one line per answered call:

- ``agentworld``: AgentWorldBench records (``task``, ``id``, ``system_str``, ``prompt[]``,
  ``response[]``, ``current_prompt``, ``turn_idx``, ``total_turns``), the evaluated turn being
  the line's call and its ground truth the last ``response``;
- ``sft``: chat-format records (``{"messages": [...]}``) whose last assistant message is the
  observation inside ``<predicted_observation>`` tags, for fine-tuning a world model.

The prompts are built by :mod:`mcp_sim.prompting.native`, the module that builds what the model sees
when mcp-sim asks it, in its native text format: the same system text, the same turn blocks
with the same state sections (the state rebuilt from the world's starting state and the
committed patches in the journal: whole in the first turn, then the changes of each turn),
the virtual time, and the same instruction. Fresh ids offered to write calls are not shown. The whole
history is shown (``serve`` may compact long histories), and the structured-output and
bounded-output variants of the instruction are not used: every target is the raw observation.

Calls whose model request failed (``model_error``) have no observation and are never exported;
they are not in the session's history either, as in the simulator.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Collection, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal

import jsonpatch

from mcp_sim.errors import SimError
from mcp_sim.journal import JournalRecord, Source, answered_by_session
from mcp_sim.models.base import ChatMessage
from mcp_sim.prompting.native import (
    OBSERVATION_MARKER,
    PastCall,
    TurnContext,
    build_messages,
    render_action,
    render_preamble,
)
from mcp_sim.prompting.state_view import StateView
from mcp_sim.runtime.entities import EntityIndex, string_values
from mcp_sim.simulator.core import SimOptions
from mcp_sim.spec.world import World

ExportFormat = Literal["agentworld", "sft"]


class _Turn:
    """One exported call with what the model would have been shown for it."""

    def __init__(
        self, record: JournalRecord, number: int, messages: list[ChatMessage], head: str
    ) -> None:
        self.record = record
        self.number = number
        self.messages = messages
        self.head = head
        """The turn without its closing instruction: sections and action block."""


def _turns(world: World, records: list[JournalRecord]) -> Iterator[_Turn]:
    """The calls of one session, in order, each with its prompt laid out as ``serve`` lays it
    out with the default budgets: the state whole in the first turn, then each turn with the
    changes committed since the turn before and the records its arguments name."""
    state = copy.deepcopy(world.state)
    view = StateView(world, SimOptions.state_budget_tokens)
    history: list[PastCall] = []
    unseen: list[dict[str, Any]] | None = None
    for number, record in enumerate(records, 1):
        tool = world.tool(record.tool)
        if tool is None:
            raise SimError(
                f"the journal calls {record.tool!r} (session {record.session}, step "
                f"{record.step}), which world {world.world!r} does not have; export it with "
                "the world it was recorded or simulated in"
            )
        index = EntityIndex.build(world, state) if world.entities else None
        references = [*string_values(record.arguments)]
        section = view.turn_section(state, index, unseen, record.arguments, references)
        context = TurnContext(state_view=section, now=record.now)
        head = render_action(
            number, record.tool, record.arguments, preamble=render_preamble(state, context)
        )
        messages = build_messages(
            world, history, tool, record.arguments, state, context=replace(context, head=head)
        )
        yield _Turn(record, number, messages, head)
        history.append(PastCall(record.tool, record.arguments, record.observation, head=head))
        unseen = []
        if record.patch_status == "committed" and record.patch:
            state = jsonpatch.apply_patch(state, record.patch)
            unseen = list(record.patch)


def agentworld_row(world: World, turn: _Turn, total: int) -> dict[str, Any]:
    messages = turn.messages
    record = turn.record
    return {
        "task": world.domain,
        "id": record.session,
        "system_str": messages[0]["content"],
        "prompt": [m["content"] for m in messages if m["role"] == "user"],
        "response": [m["content"] for m in messages if m["role"] == "assistant"]
        + [f"{OBSERVATION_MARKER}\n{record.observation}"],
        "current_prompt": turn.head,
        "turn_idx": turn.number,
        "total_turns": total,
    }


def sft_row(turn: _Turn) -> dict[str, Any]:
    target = f"<predicted_observation>\n{turn.record.observation}\n</predicted_observation>"
    return {"messages": [*turn.messages, {"role": "assistant", "content": target}]}


def export_rows(
    world: World,
    records: list[JournalRecord],
    fmt: ExportFormat,
    sources: Collection[Source] | None = None,
) -> Iterator[dict[str, Any]]:
    """One row per call whose source is in ``sources`` (all answered calls by default); the
    history of every row holds all earlier answered calls of its session."""
    for calls in answered_by_session(records).values():
        for turn in _turns(world, calls):
            if sources and turn.record.source not in sources:
                continue
            yield agentworld_row(world, turn, len(calls)) if fmt == "agentworld" else sft_row(turn)


def write_rows(rows: Iterator[dict[str, Any]], path: str | Path) -> int:
    """Write rows as JSONL; returns how many."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    count = 0
    with target.open("w", encoding="utf-8") as out:
        for row in rows:
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
            count += 1
    return count
