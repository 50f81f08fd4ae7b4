"""Grounding recall: does each prompt hold the facts the real answer needs?

Teacher-forced over recorded calls (an episode id, the tool, its arguments, the real response,
and optionally the real state patch): every call goes through the simulator's real path (the
code ``serve`` runs) against :class:`TeacherModel`, which records the prompt it is sent and
answers with the real response and patch, so each prompt is built on the real earlier calls,
answers and state. No model runs. ``benchmarks/grounding.py`` prints the figures.

Recall of a call (the facts and how they are found: :mod:`mcp_sim.fidelity.answer_facts`): of
the real answer's ``"key": value`` pairs (strings of 3+ characters and all
numbers, numbers compared by value, ``"78"`` matching 78 as a text-only export writes it,
values the call's own arguments hold left out; an array's
items count where they stand in the array after its key; a non-JSON answer's facts are the
values written in it that hold a digit: numbers, dates, ids), the
share that appear in the prompt outside the system message, next to their key (in any casing of
its words: ``"Arrival"`` or ``"arrivalDate"`` holds an answer's ``arrival``/``arrival_date``). State-grounded
recall counts only the pairs whose value the state holds (as a value or a key, in the world's
state or written by an earlier call, not by the call itself): a count or a sum that no record
holds, and a fresh key a write creates, are left out.
Value presence: the share of the same values that appear anywhere in the prompt outside the
system message, whatever key they stand beside (a summary's ``total`` where the answer says
``amount``): whether the prompt holds the value, not whether it names it as the answer does.

Prefix reuse of a call (not the first of its episode): the share of its prompt, in characters
(``reuse``, the mean over calls) and in tokens (``reuse_tokens``, over all calls) of the chat as
Qwen's template lays it out, that is a prefix of the previous call's prompt followed by that
call's answer: what a server's prefix cache can reuse (see
:mod:`mcp_sim.fidelity.prefix_reuse`). Calls the simulator could not answer (``model_error``) are counted apart (``unsimulated``).
"""

from __future__ import annotations

import json
import statistics
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcp_sim.fidelity.answer_facts import anywhere, facts, present, scalars
from mcp_sim.fidelity.prefix_reuse import PrefixReuse, Reuse
from mcp_sim.models.base import Completion, CompletionRequest, ProgressCallback
from mcp_sim.prompting.native import estimate_tokens
from mcp_sim.runtime.state_shape import normalize
from mcp_sim.settings.combined import Settings
from mcp_sim.simulator.core import Simulator
from mcp_sim.spec.world import World


class TeacherModel:
    """Answers each request with the recorded response (and patch), and keeps the prompt.
    A benchmark double of the model seam: no model runs here."""

    def __init__(self) -> None:
        self.answer = ""
        self.prompts: list[list[dict[str, Any]]] = []
        self.reached: float | None = None

    async def complete(
        self, request: CompletionRequest, progress: ProgressCallback | None = None
    ) -> Completion:
        if self.reached is None:
            self.reached = time.perf_counter()
        self.prompts.append([dict(m) for m in request.messages])
        return Completion(content=self.answer, model="teacher", prompt_tokens=0)

    async def aclose(self) -> None:
        pass


REUSE_FIGURES = (
    "reuse_tokens",
    "reuse_plain_blocks",
    "reuse_hybrid_blocks",
    "reuse_hybrid_dense_blocks",
    "recomputed_tokens_mean",
    "recomputed_tokens_p95",
    "recomputed_hybrid_mean",
    "recomputed_hybrid_p95",
)
"""The figures of :meth:`mcp_sim.fidelity.prefix_reuse.Reuse.row` a group's row shows."""


def _mean(values: list[float]) -> float | None:
    return statistics.fmean(values) if values else None


@dataclass
class Figures:
    recalls: list[float] = field(default_factory=list)
    grounded: list[float] = field(default_factory=list)
    presence: list[float] = field(default_factory=list)
    """Per call, the share of the answer's values anywhere in the prompt (see the module)."""
    tokens: list[int] = field(default_factory=list)
    chars: list[int] = field(default_factory=list)
    build_ms: list[float] = field(default_factory=list)
    reuse: Reuse = field(default_factory=Reuse)
    calls: int = 0
    unsimulated: int = 0
    """Calls the simulator could not answer (a ``model_error`` result), though the stand-in
    model gave the real answer: an answer shape the simulator refuses."""

    def merge(self, other: Figures) -> None:
        for name in ("recalls", "grounded", "presence", "tokens", "chars", "build_ms"):
            getattr(self, name).extend(getattr(other, name))
        self.reuse.merge(other.reuse)
        self.calls += other.calls
        self.unsimulated += other.unsimulated

    def row(self) -> dict[str, Any]:
        tokens = sorted(self.tokens) or [0]
        return {
            "calls": self.calls,
            "unsimulated": self.unsimulated,
            "scored": len(self.recalls),
            "recall": _mean(self.recalls),
            "all_facts": (
                sum(r == 1.0 for r in self.recalls) / len(self.recalls) if self.recalls else None
            ),
            "grounded": _mean(self.grounded),
            "presence": _mean(self.presence),
            "reuse": _mean(self.reuse.per_call),
            **{k: v for k, v in self.reuse.row().items() if k in REUSE_FIGURES},
            "chars_mean": statistics.fmean(self.chars or [0]),
            "tokens_mean": statistics.fmean(tokens),
            "tokens_p95": tokens[min(len(tokens) - 1, int(0.95 * len(tokens)))],
            "tokens_max": tokens[-1],
            "chars_max": max(self.chars or [0]),
            "build_ms_mean": statistics.fmean(self.build_ms) if self.build_ms else 0.0,
            "build_ms_p95": sorted(self.build_ms or [0.0])[int(0.95 * len(self.build_ms or [0]))],
            "build_ms_max": max(self.build_ms or [0.0]),
        }


def read_calls(path: Path) -> list[dict[str, Any]]:
    calls = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            call = json.loads(line)
            if "episode" not in call:
                call["episode"] = f"{call.get('split', '')}-{call.get('task_index', '')}"
            call["episode"] = str(call["episode"])
            calls.append(call)
    return calls


def kind_of(world: World, simulator: Simulator, call: dict[str, Any]) -> str:
    tool = world.tool(call["tool"])
    if tool is not None and tool.effect == "write":
        return "write"
    index = simulator.view.index
    labels = {normalize(v) for v in scalars(call["arguments"])}
    named = any(
        not hit.inner for label in labels if label is not None for hit in index.keys.get(label, ())
    )
    return "lookup" if named else "search"


def state_values(value: Any, into: set[str] | None = None) -> set[str]:
    """Every scalar and key the state holds, as :func:`normalize` looks values up."""
    found = set() if into is None else into
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            found.update(k for k in map(normalize, item) if k is not None)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif (label := normalize(item)) is not None:
            found.add(label)
    return found


async def measure(
    world: World,
    calls: list[dict[str, Any]],
    settings: Settings,
    reuse: PrefixReuse | None = None,
    misses: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """The figures per group of calls; ``reuse`` (when given) keeps each episode's prefix
    reuse too, ``misses`` the calls whose prompt lacks facts (see :func:`measure_figures`)."""
    groups, index_ms = await measure_figures(world, calls, settings, reuse, misses)
    rows = {name: figures.row() for name, figures in sorted(groups.items())}
    rows["overall"]["index_ms"] = index_ms
    return rows


async def measure_figures(
    world: World,
    calls: list[dict[str, Any]],
    settings: Settings,
    reuse: PrefixReuse | None = None,
    misses: list[dict[str, Any]] | None = None,
) -> tuple[dict[str, Figures], float]:
    """Figures per group (``overall``, ``tool NAME``, ``kind KIND``: a call's ``kind`` field if
    it has one, else :func:`kind_of`), and the milliseconds the world's index took to build.
    ``misses`` (when given) gets one entry per call whose prompt lacks some of the answer's
    facts: the call, the facts missing, and the prompt's last message (the call's view)."""
    model = TeacherModel()
    simulator = Simulator(world, model, settings=settings)
    # The world's index is built once, on the first call: timed apart from the calls.
    started = time.perf_counter()
    _ = simulator.view.index
    index_ms = (time.perf_counter() - started) * 1000
    held = state_values(world.state)
    groups: dict[str, Figures] = defaultdict(Figures)
    reuse = reuse or PrefixReuse()
    for call in calls:
        patch = call.get("patch") or []
        tool = world.tool(call["tool"])
        answer = f"<predicted_observation>\n{call['response']}\n</predicted_observation>"
        if tool is not None and tool.effect == "write":
            answer += f"\n<state_patch>{json.dumps(patch)}</state_patch>"
        model.answer, model.reached, model.prompts = answer, None, []
        started = time.perf_counter()
        result = await simulator.call(str(call["episode"]), call["tool"], call["arguments"])
        kind = call.get("kind") or kind_of(world, simulator, call)
        figures = [groups["overall"], groups[f"tool {call['tool']}"], groups[f"kind {kind}"]]
        if result.source == "model_error":
            for group in figures:
                group.unsimulated += 1
        if not model.prompts:
            state_values([op.get("value") for op in patch], held)
            continue
        messages = model.prompts[0]
        build_ms = ((model.reached or started) - started) * 1000
        shared = reuse.add(str(call["episode"]), messages, answer)
        for group in figures:
            group.calls += 1
            group.chars.append(sum(len(m["content"]) for m in messages))
            group.build_ms.append(build_ms)
            if shared is not None:
                group.reuse.add(shared)
        missing = _score(figures, call, messages, held)
        if misses is not None and missing:
            misses.append(_miss(call, kind, missing, messages))
        # What a call writes is state for the calls after it, not for its own answer: a
        # fresh key the write's patch holds is no value its prompt could have held.
        state_values([op.get("value") for op in patch], held)
    return groups, index_ms


def _miss(
    call: dict[str, Any], kind: str, missing: list[tuple[str | None, Any]], messages: list[Any]
) -> dict[str, Any]:
    return {
        "episode": call["episode"],
        "tool": call["tool"],
        "kind": kind,
        "arguments": call["arguments"],
        "missing": [[key, value] for key, value in missing],
        "response": call["response"],
        "view": messages[-1]["content"],
    }


def _score(
    figures: list[Figures], call: dict[str, Any], messages: list[dict[str, Any]], held: set[str]
) -> list[tuple[str | None, Any]]:
    """Adds the call's prompt size and recall (in context, and state-grounded) to ``figures``;
    the answer's facts the prompt lacks (next to their key) are returned."""
    tokens = estimate_tokens("".join(m["content"] for m in messages))
    checked = facts(call["response"], call["arguments"])
    text = "\n".join(m["content"] for m in messages[1:])
    hits = [present(k, v, text) for k, v in checked]
    grounded = [hit for hit, (_, v) in zip(hits, checked, strict=True) if normalize(v) in held]
    found = [hit or anywhere(v, text) for hit, (_, v) in zip(hits, checked, strict=True)]
    for group in figures:
        group.tokens.append(tokens)
        if checked and not call.get("is_error"):
            group.recalls.append(sum(hits) / len(checked))
            group.presence.append(sum(found) / len(checked))
            if grounded:
                group.grounded.append(sum(grounded) / len(grounded))
    if not checked or call.get("is_error"):
        return []
    return [fact for fact, hit in zip(checked, hits, strict=True) if not hit]
