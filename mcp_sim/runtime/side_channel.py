"""The deterministic side channel: what a session decides itself instead of asking the model.

- **Virtual clock.** The time the model is told for the ``k``-th call of a session is
  ``clock.start + (k - 1) * clock.step_seconds``: it depends on the call count only, never on
  the wall clock, so a replayed session sees the same times.
- **Id allocator.** For every entity with an ``ids:`` pattern the session keeps the next number
  to hand out. Write calls are offered the next few ids, so a created record gets a fresh,
  well-formed id chosen by the server rather than invented by the model. The counter only moves
  forward (past every id seen in the state or in an observation), so an id is never handed out
  twice, not even after its record was deleted.
- **Seeded RNG.** Each session owns a ``random.Random``. Every model request draws its sampling
  seed from it, so the same session seed and the same sequence of calls send the same seeds, and
  a deterministic backend answers the same. A session's seed is the one the client names (``_meta``
  ``mcp-sim/seed`` or the control API); failing that, one derived from ``--seed`` and the session
  id, so parallel episodes of one run differ but each is reproducible by name; failing that, a
  random one (reported by the control API, so any session can be replayed).
"""

from __future__ import annotations

import hashlib
import re
import secrets
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import timedelta

from mcp_sim.runtime.entities import EntityIndex
from mcp_sim.spec.state import id_format_regex
from mcp_sim.spec.world import World

FRESH_IDS_OFFERED = 3
"""Fresh ids offered per entity to a write call: enough for a call that creates a few records,
few enough to keep the prompt short."""

SEED_BITS = 63


def virtual_now(world: World, call_number: int) -> str | None:
    """The time of the ``call_number``-th call (1-based) as ISO 8601, or ``None`` without a
    clock. UTC times end in ``Z``."""
    if world.clock is None:
        return None
    start = world.clock.start_time()
    now = start + timedelta(seconds=world.clock.step_seconds * (call_number - 1))
    text = now.isoformat()
    return text.removesuffix("+00:00") + "Z" if now.utcoffset() == timedelta(0) else text


def session_seed(base: int | None, session_id: str) -> int:
    """The seed of a session that did not name its own (see the module docstring)."""
    if base is None:
        return secrets.randbits(SEED_BITS)
    digest = hashlib.sha256(f"{base}:{session_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> (64 - SEED_BITS)


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
