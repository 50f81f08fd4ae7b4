"""A journal of real calls (``mcp-sim record``) evaluated against the simulator of its world
(``mcp-sim eval``): the world opened with the settings it is to be served with, each recorded
call predicted teacher-forced (:func:`mcp_sim.fidelity.evaluate.evaluate`), and scored by an
LLM judge too when one is given."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from contextlib import AsyncExitStack
from pathlib import Path

from mcp_sim.api.worlds import ModelSource, Worlds, WorldSource
from mcp_sim.fidelity.evaluate import Report, evaluate
from mcp_sim.fidelity.judge import Judge, JudgeSettings
from mcp_sim.journal import JournalRecord
from mcp_sim.models.openai import EndpointSettings, OpenAICompatibleModel
from mcp_sim.settings.combined import Settings


def selected_calls(
    records: Sequence[JournalRecord],
    sessions: Collection[str] = (),
    max_calls: int | None = None,
) -> list[JournalRecord]:
    """The records of ``sessions`` (all when none are named), cut after the first
    ``max_calls`` calls that were answered (a failed model request is no call to predict; it
    is kept, for the report to count as skipped)."""
    selected = [r for r in records if r.session in sessions] if sessions else list(records)
    if max_calls is None:
        return selected
    kept: list[JournalRecord] = []
    answered = 0
    for record in selected:
        if answered == max_calls:
            break
        kept.append(record)
        answered += record.source != "model_error"
    return kept


async def evaluate_journal(
    world: WorldSource,
    records: Sequence[JournalRecord],
    settings: Settings | None = None,
    *,
    model: ModelSource = None,
    journal: str = "",
    predictions: Path | None = None,
    judge: EndpointSettings | None = None,
    judge_settings: JudgeSettings | None = None,
    say: Callable[[str], None] = lambda message: None,
) -> Report:
    """How close the simulator of ``world``, opened with ``settings`` and answered by ``model``
    (see :meth:`~mcp_sim.api.worlds.Worlds.open`), comes to ``records``
    (read from the file named ``journal``, which the report names): per call and per tool,
    scored by the model at ``judge`` too when one is given. The simulator's answers are
    journaled to ``predictions`` when given (else where the settings say). ``say`` is told
    what is started and how far the evaluation has come."""
    settings = settings or Settings()
    if predictions is not None:
        records_settings = settings.records.model_copy(update={"journal": predictions})
        settings = settings.model_copy(update={"records": records_settings})
    async with AsyncExitStack() as stack:
        worlds = await stack.enter_async_context(
            await Worlds.open(world, settings=settings, model=model, say=say)
        )
        scorer = None
        if judge is not None:
            judge_model = OpenAICompatibleModel(judge)
            stack.push_async_callback(judge_model.aclose)
            scorer = Judge(judge_model, judge_settings)
        return await evaluate(
            worlds.simulator(),
            records,
            journal=journal,
            judge=scorer,
            judge_model=(judge.model or judge.base_urls[0]) if judge else None,
            progress=say,
        )
