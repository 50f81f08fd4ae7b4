"""Journals as training and benchmark data (``mcp-sim export``).

Two formats, one line per call the world model was asked:

- ``agentworld``: AgentWorldBench records (``task``, ``id``, ``system_str``, ``prompt[]``,
  ``response[]``, ``current_prompt``, ``turn_idx``, ``total_turns``), the evaluated turn being
  the line's call and its ground truth the last ``response``;
- ``sft``: chat-format records (``{"messages": [...]}``) whose last assistant message is the
  observation inside ``<predicted_observation>`` tags, for fine-tuning a world model.

The prompts are the ones ``serve`` sends, byte for byte, because they are made by the same
code: each session of the journal is played again through a :class:`Simulator` whose world
model is the journal itself (:class:`_JournalModel`). It answers every request of a call with
the journaled observation and committed patch, so the session's state, history, compaction,
re-anchoring, state views, fresh ids and instructions evolve exactly as they did when the
journal was written, and it keeps the first request of each call: the prompt to export. The
simulator's settings (budgets, output bounds) must be the ones the journal was served with;
the defaults are ``serve``'s.

A row is written for each call the simulator asks the model about: answers of the model, and
answers recorded from a real server (``real``) or replayed, which take the model's place.
Calls settled without the model (fixtures, bad arguments, pages a world's memory already
holds) have no prompt and no row, but stay in the history as they did. Calls whose model
request failed (``model_error``) and faults the server made itself (``perturbation``) are in
neither, as in the simulator; they still count as steps (the virtual clock moves on).
Perturbation instructions are not injected again: a perturbed call is exported with the prompt
of the unperturbed call.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, Literal

import anyio

from mcp_sim.api.assembly import Resolved
from mcp_sim.errors import ModelUnavailable, SimError
from mcp_sim.journal import JournalRecord, Source
from mcp_sim.models.base import (
    ChatMessage,
    Completion,
    CompletionRequest,
    ProgressCallback,
    Sampling,
)
from mcp_sim.prompting.bounds import ENVELOPE_KEY
from mcp_sim.prompting.native import OBSERVATION_MARKER
from mcp_sim.settings.combined import Settings
from mcp_sim.simulator.core import Simulator
from mcp_sim.spec.world import World

ExportFormat = Literal["agentworld", "sft"]

_OUTSIDE_HISTORY: frozenset[Source] = frozenset({"model_error", "perturbation"})
"""Sources of calls that ``serve`` keeps out of the session's history."""


@dataclass(frozen=True)
class _Turn:
    """One exported call with what the model was shown for it."""

    record: JournalRecord
    number: int
    """The call's turn number in its session's history (1-based)."""
    messages: list[ChatMessage]
    head: str
    """The turn without its closing instruction: sections and action block."""


class _JournalModel:
    """A world model that answers with the journal: every request of the call being played
    gets the journaled answer in the form the request asks for, and the first request's
    messages are kept as the call's prompt."""

    def __init__(self) -> None:
        self.record: JournalRecord | None = None
        self.prompt: list[ChatMessage] | None = None

    def expect(self, record: JournalRecord) -> None:
        self.record, self.prompt = record, None

    async def complete(
        self, request: CompletionRequest, progress: ProgressCallback | None = None
    ) -> Completion:
        record = self.record
        if record is None:
            raise ModelUnavailable("the export asked the model outside a journaled call")
        patch = record.patch if record.patch_status == "committed" and record.patch else []
        if request.schema_name == "state_patch":
            return Completion(content=json.dumps({"patch": patch}), model=record.model)
        if self.prompt is None:
            self.prompt = list(request.messages)
        schema = request.response_schema or {}
        if ENVELOPE_KEY in schema.get("properties", {}) and len(schema["properties"]) == 1:
            return Completion(content=json.dumps({ENVELOPE_KEY: record.observation}))
        content = f"<predicted_observation>\n{record.observation}\n</predicted_observation>"
        return Completion(content=f"{content}\n<state_patch>{json.dumps(patch)}</state_patch>")

    async def aclose(self) -> None:
        pass


async def _turns(
    world: World, records: list[JournalRecord], simulator: Simulator, model: _JournalModel
) -> list[_Turn]:
    """The calls of the journal that were put to the model, each with its prompt as ``serve``
    built it (``simulator`` asks ``model``, which answers from the journal), in journal order."""
    turns: list[_Turn] = []
    for record in records:
        if world.tool(record.tool) is None:
            raise SimError(
                f"the journal calls {record.tool!r} (session {record.session}, step "
                f"{record.step}), which world {world.world!r} does not have; export it with "
                "the world it was recorded or simulated in"
            )
        session = simulator.sessions.get(record.session)
        # The journal's steps count every call, those left out of the history too.
        session.steps = record.step - 1
        if record.source in _OUTSIDE_HISTORY:
            continue
        model.expect(record)
        result = await simulator.call(record.session, record.tool, record.arguments)
        if model.prompt is None or result.source == "model_error":
            continue
        head = session.history[-1].head
        if head is None:
            raise SimError(f"the prompt of step {record.step} kept no turn head")
        turns.append(_Turn(record, session.turn_count, model.prompt, head))
    return turns


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


async def exported_rows(
    world: World,
    records: list[JournalRecord],
    fmt: ExportFormat,
    sources: Collection[Source] | None = None,
    settings: Settings | None = None,
    *,
    default_sampling: Sampling | None = None,
) -> list[dict[str, Any]]:
    """One row per call put to the model whose source is in ``sources`` (all by default),
    grouped by session; ``settings`` are the ones the journal was served with (as resolved
    for its model: :class:`mcp_sim.api.assembly.Resolved`)."""
    model = _JournalModel()
    simulator = Simulator(world, model, settings=settings, default_sampling=default_sampling)
    turns = await _turns(world, records, simulator, model)
    by_session: dict[str, list[_Turn]] = {}
    for turn in turns:
        by_session.setdefault(turn.record.session, []).append(turn)
    history_lengths: dict[str, int] = {}
    for record in records:
        if record.source not in _OUTSIDE_HISTORY:
            history_lengths[record.session] = history_lengths.get(record.session, 0) + 1
    rows: list[dict[str, Any]] = []
    for session, session_turns in by_session.items():
        for turn in session_turns:
            if sources and turn.record.source not in sources:
                continue
            if fmt == "agentworld":
                rows.append(agentworld_row(world, turn, history_lengths[session]))
            else:
                rows.append(sft_row(turn))
    return rows


def export_rows(
    world: World,
    records: list[JournalRecord],
    fmt: ExportFormat,
    sources: Collection[Source] | None = None,
    settings: Settings | None = None,
    *,
    default_sampling: Sampling | None = None,
) -> Iterator[dict[str, Any]]:
    """:func:`exported_rows` for synchronous callers (outside an event loop)."""
    rows = anyio.run(
        partial(exported_rows, default_sampling=default_sampling),
        world,
        records,
        fmt,
        sources,
        settings,
    )
    return iter(rows)


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


def export_journal(
    world: World,
    records: Sequence[JournalRecord],
    fmt: ExportFormat,
    output: str | Path,
    *,
    sources: Collection[Source] | None = None,
    settings: Settings | None = None,
) -> int:
    """Write the rows of ``records`` (those answered from ``sources``, all by default) to
    ``output`` as JSONL, with the prompts ``serve`` made under ``settings``: resolved as it
    resolves them, with the embedded model's bounds and sampling when they name no model.
    Returns how many rows were written."""
    resolved = Resolved.of(settings or Settings())
    rows = export_rows(
        world,
        list(records),
        fmt,
        sources,
        resolved.settings,
        default_sampling=resolved.default_sampling,
    )
    return write_rows(rows, output)
