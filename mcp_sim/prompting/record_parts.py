"""The other keys of a record a flat key-value store splits over several keys.

A key-value store keeps one record under several keys of one keyspace (see
:mod:`mcp_sim.runtime.state_keys`): its main hash ``boat:BT-7``, its parts ``boat:BT-7:specs``
and ``boat:BT-7:crew``, and, for a field the store ranks by, its score in a sorted set of
every record's id (``rank:boat:length_m`` = ``{"BT-7": 12.5, ...}``, node-redis' flat
``[member, score, ...]`` too; a leaderboard ``lb:season:12`` of player ids). An answer about
the record gathers them all, so a view showing the main hash shows them too:

- each sorted set holding the record's id as a member, by that member's entry only
  (``/db0/rank:boat:length_m/BT-7``: a score out of thousands), for every record the call
  names or a search finds alone;
- the record's parts (``kind<sep>id<sep>part``), for a record that the call names (a lookup
  by code finds the main hash alone; one by id finds its parts itself) or that meets every
  constraint of a search, when it is one of at most two such: a listing's records are
  shown by their main hashes (their parts would crowd the others out), and the search
  reads them whole (see :mod:`mcp_sim.runtime.keyed_parts`).

Each extra record follows its owner's, so it is shown where the owner is and dropped first
when room runs out.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from jsonpointer import escape, unescape

from mcp_sim.prompting.grounding import Pick
from mcp_sim.runtime.keyed_parts import store_reading
from mcp_sim.runtime.state_keys import split_key
from mcp_sim.runtime.state_paths import resolve

MOST_SCORED = 12
"""Records whose scores are looked up per call (a search's first ones)."""
MOST_WHOLE = 2
"""Records named or found at most, for their parts to be shown (more: a listing's)."""
_LEAST_MEMBERS = 4
"""A sorted set ranks more than a few members (fewer: a record's own small map)."""


class _Keyspace:
    """One object of composite keys: its separator and its sorted sets (by key)."""

    def __init__(self, value: dict[str, Any]) -> None:
        self.value = value
        self.reading = store_reading(value)
        patterns = self.reading.patterns
        self.separator = patterns[0].prefix[-1] if patterns else ""

    def main(self, key: str) -> tuple[str, str] | None:
        """``(kind, id)`` of ``key`` when it is a record's main key (no part after its id)."""
        if not self.separator:
            return None
        pattern = split_key(key, self.separator)
        if pattern is None or pattern.suffix:
            return None
        ident = pattern.id_of(key)
        return (pattern.prefix, ident) if ident is not None else None

    def parts(self, prefix: str, ident: str) -> list[str]:
        """The keys of the record's parts, in key order."""
        return self.reading.below(f"{prefix}{ident}{self.separator}")

    @property
    def scored(self) -> list[tuple[str, dict[str, Any] | list[Any]]]:
        """The keys holding sorted sets: many members, each a number (read once per store
        object, beside the store's other readings)."""
        found: list[tuple[str, dict[str, Any] | list[Any]]] | None
        found = self.reading.derived.get("sorted sets")
        if found is None:
            found = [(k, v) for k, v in self.value.items() if _sorted_set(v)]
            self.reading.derived["sorted sets"] = found
        return found

    def scores(self, ident: str) -> Iterator[str]:
        """The relative pointers of ``ident``'s entries in the sorted sets."""
        for key, held in self.scored:
            if isinstance(held, dict):
                if ident in held:
                    yield f"{escape(key)}/{escape(ident)}"
                continue
            members = held[::2]
            if ident in members:
                yield f"{escape(key)}/{2 * members.index(ident) + 1}"


def _sorted_set(value: Any) -> bool:
    if isinstance(value, dict):
        sample = list(value.items())[:8]
        return len(value) >= _LEAST_MEMBERS and all(_score(v) for _, v in sample)
    if isinstance(value, list) and len(value) >= 2 * _LEAST_MEMBERS and len(value) % 2 == 0:
        sample = value[:16]
        return all(
            isinstance(m, str) and _score(s) for m, s in zip(sample[::2], sample[1::2], strict=True)
        )
    return False


def _score(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def with_parts(state: Mapping[str, Any], picks: Sequence[Pick]) -> list[Pick]:
    """``picks`` with, after each record a flat store keeps under several keys, the keys
    the call needs of it besides (see the module)."""
    spaces: dict[str, _Keyspace | None] = {}
    picked = {p.pointer for p in picks}
    owners = [p for p in picks if p.reason == "named" or p.complete]
    whole = len(owners) <= MOST_WHOLE
    found: list[Pick] = []
    for pick in picks:
        found.append(pick)
        if pick not in owners[:MOST_SCORED]:
            continue
        parent, _, last = pick.pointer.rpartition("/")
        if parent not in spaces:
            value = resolve(state, parent) if parent else None
            spaces[parent] = _Keyspace(value) if isinstance(value, dict) else None
        space = spaces[parent]
        main = space.main(unescape(last)) if space is not None else None
        if space is None or main is None:
            continue
        extra = [escape(k) for k in space.parts(*main)] if whole else []
        for part in [*extra, *space.scores(main[1])]:
            pointer = f"{parent}/{part}"
            if pointer not in picked:
                picked.add(pointer)
                found.append(Pick(pointer, "named"))
    return found
