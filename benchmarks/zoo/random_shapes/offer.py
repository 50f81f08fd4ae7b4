"""A call a random shape offers: a tool, the kind of call it makes (for the benchmark's
figures) and the planner of its arguments, which sees the episode's current state."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from benchmarks.zoo.kit import State, Tool

Plan = Callable[[random.Random, State], dict[str, Any]]


@dataclass(frozen=True)
class Offer:
    kind: str
    tool: Tool
    plan: Plan
    variant: str = ""
    """Which of its kind's variants it is (:mod:`.surface`'s names; ``id``, ``calendar``,
    ``records``, ``no_match`` for the ones every seed has)."""


def object_schema(required: list[str], **properties: dict[str, Any]) -> dict[str, Any]:
    """An output schema: an object with these properties (extra ones allowed)."""
    return {"type": "object", "properties": properties, "required": required}
