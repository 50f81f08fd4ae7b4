"""A sample of a large state's containers, which the detectors of its forms read in one walk.

Type tags, attribute keys and property lists (see :mod:`mcp_sim.runtime.value_encodings` and
:mod:`mcp_sim.runtime.property_lists`) recur all over a state that uses them, so a sample is
enough to find them: the containers breadth first, a few hundred items of each, so that
every collection is sampled, not only the first one reached. One walk serves every detector.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator
from itertools import islice
from typing import Any

SAMPLED_NODES = 20_000
"""The objects sampled (and, of the first containers, this many are read for lists)."""
_SAMPLED_ITEMS = 256


def sampled(state: Any) -> Iterator[Any]:
    """``state``'s objects and arrays breadth first, up to :data:`SAMPLED_NODES` objects."""
    queue = deque([state])
    objects = 0
    while queue and objects < SAMPLED_NODES:
        value = queue.popleft()
        if isinstance(value, dict):
            objects += 1
            yield value
            items: Iterable[Any] = islice(value.values(), _SAMPLED_ITEMS)
        elif isinstance(value, list):
            yield value
            items = value[:_SAMPLED_ITEMS]
        else:
            continue
        queue.extend(v for v in items if isinstance(v, dict | list))
