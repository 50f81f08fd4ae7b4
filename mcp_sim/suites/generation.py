"""``mcp-sim suite generate``: an environment drafted for every input line, concurrently,
resumably, with near-duplicates dropped and every artefact stamped.

A rerun skips the items a run settled (written, dropped as a duplicate, quarantined) and
retries the failed ones; an item is written whole or not at all (:mod:`~mcp_sim.suites.layout`),
so a run killed part way leaves nothing to clean. Duplicates are decided after drafting, over
every world in input order, so which of two alike worlds is kept does not depend on which
draft came back first.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

import anyio

from mcp_sim.api.assembly import Resolved
from mcp_sim.api.model_launch import LaunchingModel
from mcp_sim.errors import DraftError, ModelError
from mcp_sim.models.base import WorldModel
from mcp_sim.settings.combined import Settings
from mcp_sim.suites.dedupe import DuplicateIndex, tool_shingles
from mcp_sim.suites.environment_drafting import DraftAsking, DraftedEnvironment, draft_environment
from mcp_sim.suites.inputs import SuiteInput
from mcp_sim.suites.layout import SuiteLayout, write_json
from mcp_sim.suites.manifest import write_manifest
from mcp_sim.suites.progress import Progress


@dataclass(frozen=True)
class GenerationPlan:
    """How to generate: concurrency, the base seed (item i gets seed + i), repair tries and
    how each draft is asked for."""

    concurrency: int = 4
    seed: int = 0
    tries: int = 3
    asking: DraftAsking = field(default_factory=DraftAsking)
    progress: TextIO | None = None
    clock: Callable[[], float] = time.monotonic


@dataclass
class GenerationReport:
    made: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    duplicates: dict[str, str] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {
            "made": len(self.made),
            "skipped": len(self.skipped),
            "failed": self.failed,
            "duplicates": self.duplicates,
        }


async def generate_suite(
    inputs: Sequence[SuiteInput], out: Path, model: WorldModel, plan: GenerationPlan
) -> GenerationReport:
    layout = SuiteLayout(out)
    report = GenerationReport()
    pending: list[tuple[int, SuiteInput]] = []
    for index, item in enumerate(inputs):
        if layout.finished(item.id):
            report.skipped.append(item.id)
        else:
            pending.append((index, item))
    progress = Progress(len(pending), plan.progress, plan.clock)
    limiter = anyio.CapacityLimiter(max(1, plan.concurrency))

    async def one(index: int, item: SuiteInput) -> None:
        async with limiter:
            seed = plan.seed + index
            try:
                drafted = await draft_environment(
                    item, model, seed=seed, tries=plan.tries, asking=plan.asking
                )
            except (DraftError, ModelError) as exc:
                report.failed[item.id] = str(exc)
                write_json(layout.failed(item.id), {"id": item.id, "seed": seed, "error": str(exc)})
                progress.advance(failed=True)
                return
            layout.write_item(item.id, drafted.text, drafted.solutions, _stamp(item, drafted, seed))
            report.made.append(item.id)
            progress.advance()

    async with anyio.create_task_group() as group:
        for index, item in pending:
            group.start_soon(one, index, item)
    report.duplicates = drop_duplicates(layout, [i.id for i in inputs])
    write_manifest(layout)
    return report


def _stamp(item: SuiteInput, drafted: DraftedEnvironment, seed: int) -> dict[str, Any]:
    return {
        "id": item.id,
        "input": item.line,
        "input_sha256": item.line_hash,
        "input_kind": item.kind,
        "domain": item.domain,
        "generator_model": drafted.model,
        "seed": seed,
        "world_hash": drafted.world.content_hash(),
        "tries": drafted.tries,
        "generated_at": datetime.now(UTC).isoformat(timespec="seconds"),
    }


def drop_duplicates(layout: SuiteLayout, order: Sequence[str]) -> dict[str, str]:
    """Every world that is a near-duplicate of one before it (in ``order``, then by id) moved
    out of the suite; the dropped id → the kept one."""
    rank = {item_id: i for i, item_id in enumerate(order)}
    items = sorted(layout.items(), key=lambda it: (rank.get(it.id, len(rank)), it.id))
    index = DuplicateIndex()
    dropped: dict[str, str] = {}
    for item in items:
        shingles = tool_shingles(item.data().get("tools") or [])
        nearest = index.nearest(shingles)
        if nearest is None:
            index.keep(item.id, shingles)
            continue
        layout.drop_duplicate(item, nearest[0], nearest[1])
        dropped[item.id] = nearest[0]
    return dropped


async def generate_with_settings(
    inputs: Sequence[SuiteInput],
    out: Path,
    settings: Settings,
    plan: GenerationPlan,
    say: Callable[[str], None] = lambda message: None,
) -> GenerationReport:
    """:func:`generate_suite` with the model ``settings`` name, started for the run and
    stopped after it, each draft asked for under the settings' sampling and output bounds (as
    ``world new`` asks: the embedded model's bounds also make the drafts compact)."""
    resolved = Resolved.of(settings).settings
    given = {k: v for k, v in resolved.sampling.model_dump().items() if v is not None}
    asking = DraftAsking.of(given, resolved.prompt.bounds, seeded=resolved.prompt.model_seeds)
    plan = replace(plan, asking=asking)
    model = LaunchingModel(resolved.model, say)
    try:
        await model.start()
        return await generate_suite(inputs, out, model, plan)
    finally:
        await model.aclose()
