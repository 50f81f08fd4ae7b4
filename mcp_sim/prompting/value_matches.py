"""Records that hold a call's argument values, when no field-aware search reads the call (a
write, a tool with ``grounding`` hints): the records holding the most values first, rare
values weighing more than common ones (see :mod:`mcp_sim.prompting.grounding`)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Any

from mcp_sim.prompting.argument_values import argument_fields
from mcp_sim.runtime.state_index import StateOverlay
from mcp_sim.spec.world import ToolSpec

MAX_MATCHED = 40
"""Matched records considered per call; the view shows as many of them as fit."""


@dataclass(frozen=True)
class ValueMatch:
    pointer: str
    places: frozenset[str]
    """Where inside the record the values sit (relative pointers)."""
    count: int
    """How many of the call's argument values the record holds."""


def value_matches(
    overlay: StateOverlay, tool: ToolSpec | None, arguments: dict[str, Any], labels: list[str]
) -> list[ValueMatch]:
    """The records holding the most of ``labels`` (the arguments' normalized values), best
    first; a tool's hints keep those of the collections it reads, each argument matching
    the fields its pattern names."""
    hints = tool.grounding if tool is not None else None
    reads = tuple(hints.reads) if hints is not None else ()
    fields = hints.match if hints is not None else {}
    by_argument = argument_fields(arguments)
    total = max(1, len(overlay.base.records))
    scores: dict[str, tuple[int, float]] = {}
    where: dict[str, set[str]] = {}
    # Rare values first: they pick the candidates; common ones only add to their score.
    for label in sorted(labels, key=overlay.holders):
        holders = overlay.holders(label)
        if holders == 0:
            continue
        weight = math.log(1 + total / holders)
        pattern = fields.get(by_argument.get(label, ""))
        open_to_new = len(scores) < MAX_MATCHED * 4
        for pointer, inner in overlay.value_hits(label).items():
            if reads and not any(pointer.startswith(r + "/") for r in reads):
                continue
            if pattern is not None and not fnmatchcase(inner.lstrip("/"), pattern):
                continue
            if pointer not in scores and not open_to_new:
                continue
            count, score = scores.get(pointer, (0, 0.0))
            scores[pointer] = (count + 1, score + weight)
            where.setdefault(pointer, set()).add(inner)
    best = sorted(scores.items(), key=lambda item: (-item[1][0], -item[1][1], item[0]))
    return [ValueMatch(p, frozenset(where[p]), count) for p, (count, _) in best[:MAX_MATCHED]]
