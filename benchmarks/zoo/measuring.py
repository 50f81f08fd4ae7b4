"""The zoo's figures: each shape generated, its calls run teacher-forced through the real
simulator (:func:`mcp_sim.fidelity.grounding_recall.measure_figures`), figures per shape and per
kind of call, and per kind over all shapes measured."""

from __future__ import annotations

import json
import time
from collections import defaultdict
from typing import Any

from benchmarks.zoo import KINDS, SHAPES, generate, is_held_out
from benchmarks.zoo.random_shapes import expand, seed_of
from mcp_sim.fidelity.grounding_recall import Figures, TeacherModel, measure_figures
from mcp_sim.fidelity.prefix_reuse import HYBRID_BLOCK_TOKENS, PLAIN_BLOCK_TOKENS, PrefixReuse
from mcp_sim.prompting.native import estimate_tokens, render_system
from mcp_sim.settings.combined import Settings
from mcp_sim.simulator.core import Simulator
from mcp_sim.spec.world import World

COLUMNS = (
    "calls",
    "unsimulated",
    "recall",
    "all_facts",
    "grounded",
    "presence",
    "reuse",
    "reuse_tokens",
    "reuse_plain_blocks",
    "reuse_hybrid_blocks",
    "reuse_hybrid_dense_blocks",
    "recomputed_tokens_mean",
    "recomputed_hybrid_mean",
    "recomputed_hybrid_p95",
    "chars_mean",
    "tokens_mean",
    "tokens_max",
    "build_ms_mean",
    "build_ms_p95",
)
"""The figures printed per row (the JSON output has every figure of
:meth:`mcp_sim.fidelity.grounding_recall.Figures.row`)."""


def chosen_shapes(names: str | None, include_held_out: bool) -> list[str]:
    """The shapes to run: those named (comma-separated; ``random:A-B`` names the random
    shapes of seeds A to B), else every hand-written shape; the held-out ones only when asked
    for."""
    tokens = [n.strip() for n in names.split(",") if n.strip()] if names else list(SHAPES)
    wanted = [name for token in tokens for name in expand(token)]
    unknown = [n for n in wanted if n not in SHAPES and seed_of(n) is None]
    if unknown:
        raise ValueError(f"unknown shapes {unknown}; the zoo has {sorted(SHAPES)} and random:A-B")
    return [n for n in wanted if include_held_out or not is_held_out(n)]


BLOCKS = (PLAIN_BLOCK_TOKENS, HYBRID_BLOCK_TOKENS)
"""The cache blocks of a plain and of a hybrid model's server (see :class:`PrefixReuse`)."""


async def measure_shape(
    shape: str,
    size_mb: float,
    seed: int,
    episodes: int,
    settings: Settings,
    blocks: tuple[int, int] = BLOCKS,
    misses: list[dict[str, Any]] | None = None,
) -> tuple[dict[str, Figures], dict[str, Any]]:
    """Figures per group (``overall``, ``kind K``) and facts about the run; ``misses`` (when
    given) gets the calls whose prompt lacks facts of their answer, each with its shape."""
    started = time.perf_counter()
    spec, calls = generate(shape, size_mb, seed, episodes)
    generated = time.perf_counter() - started
    world = World.model_validate(spec)
    missed: list[dict[str, Any]] = []
    groups, index_ms = await measure_figures(
        world, calls, settings, PrefixReuse(*blocks), missed if misses is not None else None
    )
    if misses is not None:
        misses.extend({"shape": shape, **miss} for miss in missed)
    bound = (
        estimate_tokens(render_system(world))
        + Simulator(world, TeacherModel(), settings=settings).budget.bound
    )
    largest = groups["overall"].row()["tokens_max"] if "overall" in groups else 0
    info = {
        "state_chars": len(json.dumps(spec["state"])),
        "calls": len(calls),
        "episodes": episodes,
        "generate_s": round(generated, 2),
        "index_ms": round(index_ms, 1),
        "prompt_bound": bound,
        "largest_prompt": largest,
    }
    kept = {name: figures for name, figures in groups.items() if not name.startswith("tool ")}
    return kept, info


async def measure_zoo(
    shapes: list[str],
    size_mb: float,
    seed: int,
    episodes: int,
    settings: Settings,
    blocks: tuple[int, int] = BLOCKS,
    misses: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """``{"shapes": {shape: {"info": ..., "rows": {group: row}}}, "all": {group: row}}``:
    rows per shape and group (``overall``, ``kind K``), and per group over all shapes
    (``misses`` as :func:`measure_shape` fills it)."""
    merged: dict[str, Figures] = defaultdict(Figures)
    report: dict[str, Any] = {"shapes": {}, "held_out": [s for s in shapes if is_held_out(s)]}
    for shape in shapes:
        groups, info = await measure_shape(shape, size_mb, seed, episodes, settings, blocks, misses)
        for name, figures in groups.items():
            merged[name].merge(figures)
        report["shapes"][shape] = {"info": info, "rows": _rows(groups)}
    report["all"] = _rows(merged)
    report["over_bound"] = [
        shape
        for shape, block in report["shapes"].items()
        if block["info"]["largest_prompt"] > block["info"]["prompt_bound"]
    ]
    return report


def _rows(groups: dict[str, Figures]) -> dict[str, dict[str, Any]]:
    order = ["overall", *(f"kind {k}" for k in KINDS)]
    return {name: groups[name].row() for name in order if name in groups}


def table(report: dict[str, Any]) -> list[str]:
    """The report as tab-separated lines: one per shape and group, then the totals."""
    lines = ["\t".join(["shape", "group", *COLUMNS])]
    blocks = [*report["shapes"].items(), ("ALL", {"rows": report["all"]})]
    for shape, block in blocks:
        for group, row in block["rows"].items():
            cells = [_cell(row.get(c)) for c in COLUMNS]
            lines.append("\t".join([shape, group.removeprefix("kind "), *cells]))
    return lines


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.3f}" if value < 10 else f"{value:.0f}"
    return str(value)
