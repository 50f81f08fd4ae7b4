"""Calls of a zoo shape's tools by hand, for the tests of the shapes' formats: a small state
of a shape, and a tool's answer with its patch applied."""

from __future__ import annotations

from typing import Any

import jsonpatch

from benchmarks.zoo import generate, make_shape
from benchmarks.zoo.kit import State, clone


def small_state(shape: str) -> State:
    """A fresh state of ``shape`` of about 0.1 MB."""
    spec, _ = generate(shape, 0.1, seed=3, episodes=0)
    return clone(spec["state"])


def run_tool(shape: str, state: State, tool: str, arguments: dict[str, Any]) -> Any:
    """A tool's answer; its patch applied to ``state``."""
    answer, patch = {t.name: t for t in make_shape(shape).tools()}[tool].run(state, arguments)
    jsonpatch.apply_patch(state, patch, in_place=True)
    return answer
