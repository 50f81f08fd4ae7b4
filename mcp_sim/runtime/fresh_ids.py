"""Fresh ids: for every entity with an ``ids:`` pattern the session keeps the next number to
hand out. Write calls are offered the next few ids, so a created record gets a fresh,
well-formed id chosen by the server rather than invented by the model. The counter only moves
forward (past every id seen in the state or in an observation), so an id is never handed out
twice, not even after its record was deleted.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from mcp_sim.runtime.entities import EntityIndex
from mcp_sim.spec.state import id_format_regex
from mcp_sim.spec.world import World

FRESH_IDS_OFFERED = 3
"""Fresh ids offered per entity to a write call: enough for a call that creates a few records,
few enough to keep the prompt short."""


@dataclass
class IdAllocator:
    """The next number of every entity's id pattern; copied with the session it belongs to."""

    next_n: dict[str, int] = field(default_factory=dict)

    @classmethod
    def start(cls, world: World, index: EntityIndex) -> IdAllocator:
        allocator = cls({name: 1 for name in world.ids})
        allocator.advance(world, index, ())
        return allocator

    def offer(self, world: World, count: int = FRESH_IDS_OFFERED) -> dict[str, list[str]]:
        """The next ``count`` ids of each entity, without using them up."""
        return {
            name: [pattern.format(n=self.next_n.get(name, 1) + i) for i in range(count)]
            for name, pattern in world.ids.items()
        }

    def advance(self, world: World, index: EntityIndex, texts: Iterable[str]) -> None:
        """Move every counter past the highest number in use: ids in the state, and ids that
        appeared in ``texts`` (observations), even if their record was never committed."""
        texts = list(texts)
        for name, pattern in world.ids.items():
            numbers = [*index.ids(name)]
            if texts:
                regex = world.id_regex(name)
                if regex is not None:
                    numbers += [m.group() for t in texts for m in regex.finditer(t)]
            highest = max((_number_in(pattern, i) for i in numbers), default=0)
            self.next_n[name] = max(self.next_n.get(name, 1), highest + 1)


def _number_in(pattern: str, record_id: str) -> int:
    """The ``n`` that ``pattern`` formats into ``record_id`` (0 if it does not fit the pattern)."""
    match = re.fullmatch(id_format_regex(pattern, capture=True), record_id)
    return int(match.group(1)) if match else 0
