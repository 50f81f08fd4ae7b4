"""Near-duplicate worlds: two worlds whose tools (names, parameter names and types, output
fields) overlap this much are one environment twice, and the later one is dropped. Shingles
of the tool surface, compared by Jaccard similarity, through an index from shingle to world so
that a suite of thousands compares only worlds that share something.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

NEAR_DUPLICATE = 0.8
"""Jaccard similarity of tool shingles at and above which a world is a duplicate."""


def tool_shingles(tools: list[dict[str, Any]]) -> frozenset[str]:
    """The shingles of a world file's ``tools`` (as data: a suite reads thousands of them)."""
    shingles: set[str] = set()
    for tool in tools:
        name = str(tool.get("name", "")).lower()
        shingles.add(f"tool:{name}")
        for kind in ("input", "output"):
            for prop, value in _properties(tool.get(f"{kind}_schema") or {}):
                shingles.add(f"{name}.{kind}.{prop.lower()}:{value}")
    return frozenset(shingles)


def _properties(schema: dict[str, Any]) -> Iterable[tuple[str, str]]:
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return []
    return [
        (str(name), str(value.get("type", "")) if isinstance(value, dict) else "")
        for name, value in properties.items()
    ]


@dataclass
class DuplicateIndex:
    """The worlds kept so far, by shingle."""

    threshold: float = NEAR_DUPLICATE
    _by_shingle: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    _sizes: dict[str, int] = field(default_factory=dict)

    def nearest(self, shingles: frozenset[str]) -> tuple[str, float] | None:
        """The kept world most like ``shingles``, when it is at least ``threshold`` alike."""
        shared: Counter[str] = Counter()
        for shingle in shingles:
            shared.update(self._by_shingle.get(shingle, ()))
        best: tuple[str, float] | None = None
        for other, common in shared.items():
            similarity = common / (len(shingles) + self._sizes[other] - common)
            if similarity >= self.threshold and (best is None or similarity > best[1]):
                best = (other, round(similarity, 3))
        return best

    def keep(self, world_id: str, shingles: frozenset[str]) -> None:
        self._sizes[world_id] = len(shingles)
        for shingle in shingles:
            self._by_shingle[shingle].append(world_id)
