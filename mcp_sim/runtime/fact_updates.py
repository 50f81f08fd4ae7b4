"""A session's fact maps moved on by the records one write changed, not rebuilt whole.

Each :class:`~mcp_sim.runtime.state_index.StateOverlay` keeps maps of the facts of every
record its session changed (see :mod:`mcp_sim.runtime.fact_maps`). After an insert before an
array's end, that is every record after it: thousands in a large world, and every later write
would file them all again. :func:`moved_on` takes the last version's maps and changes only
the labels of the records this write changed, copying a map or a holders' list before it
changes one (the last version keeps its own). The holders of a label stay in the order of
the changed records, as :func:`~mcp_sim.runtime.fact_maps.add_facts` over all of them would
list them: a lookup lists records in that order.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Mapping
from dataclasses import dataclass, field

from mcp_sim.runtime.fact_maps import Hit, key_labels
from mcp_sim.runtime.state_shape import RecordFacts

Changes = Mapping[str, RecordFacts | None]


@dataclass
class FactMaps:
    """The three maps of one state version's changed records (see :func:`add_facts`)."""

    keys: dict[str, list[Hit]] = field(default_factory=dict)
    inner_keys: dict[str, list[Hit]] = field(default_factory=dict)
    values: dict[str, dict[str, str]] = field(default_factory=dict)


class _Update:
    """The maps of ``changed`` from those of ``before``, edited copy-on-write."""

    def __init__(self, maps: FactMaps, before: Changes, changed: Changes) -> None:
        self.maps = FactMaps(dict(maps.keys), dict(maps.inner_keys), dict(maps.values))
        self.before = before
        self.changed = changed
        self.own: set[tuple[int, str]] = set()
        """(map, label) whose holders this version copied: its own to change."""
        self._rank: dict[str, int] | None = None

    def hits(self, which: int, label: str) -> list[Hit]:
        held = self.maps.keys if which == 0 else self.maps.inner_keys
        if (which, label) not in self.own:
            self.own.add((which, label))
            held[label] = list(held.get(label, ()))
        return held[label]

    def holders(self, label: str) -> dict[str, str]:
        if (2, label) not in self.own:
            self.own.add((2, label))
            self.maps.values[label] = dict(self.maps.values.get(label, {}))
        return self.maps.values[label]

    def change(self, pointer: str, was: RecordFacts | None, facts: RecordFacts | None) -> None:
        """The record at ``pointer`` now has ``facts`` (``None``: gone), where it had
        ``was``: a label it holds still keeps its place among the holders."""
        old_keys = key_labels(pointer, was) if was is not None else []
        new_keys = key_labels(pointer, facts) if facts is not None else []
        if old_keys != new_keys:
            self._hits(0, pointer, [(label, "") for label in old_keys], [])
            self._hits(0, pointer, [], [(label, "") for label in new_keys])
        old_inner = was.inner_keys if was is not None else {}
        new_inner = facts.inner_keys if facts is not None else {}
        if old_inner != new_inner:
            self._hits(1, pointer, list(old_inner.items()), [])
            self._hits(1, pointer, [], list(new_inner.items()))
        old_values = was.values if was is not None else {}
        for label, inner in (facts.values if facts is not None else {}).items():
            if label not in old_values:
                self._add_value(pointer, label, inner)
            elif old_values[label] != inner:
                self.holders(label)[pointer] = inner
        for label in old_values.keys() - (facts.values if facts is not None else {}).keys():
            if label in self.maps.values:
                self.holders(label).pop(pointer, None)

    def _hits(
        self, which: int, pointer: str, gone: list[tuple[str, str]], new: list[tuple[str, str]]
    ) -> None:
        held = self.maps.keys if which == 0 else self.maps.inner_keys
        for label, _ in gone:
            if label in held:
                hits = self.hits(which, label)
                hits[:] = [h for h in hits if h.pointer != pointer]
        placed = pointer in self.before  # it keeps its place among the changed records
        for label, inner in new:
            hits = self.hits(which, label)
            if placed and hits and self.rank(hits[-1].pointer) > self.rank(pointer):
                # Among the holders after it in the changed records' order, not last.
                at = bisect_right(hits, self.rank(pointer), key=lambda h: self.rank(h.pointer))
                hits.insert(at, Hit(pointer, inner))
            else:
                hits.append(Hit(pointer, inner))

    def _add_value(self, pointer: str, label: str, inner: str) -> None:
        held = self.holders(label)
        placed = pointer in self.before
        if placed and held and self.rank(next(reversed(held))) > self.rank(pointer):
            items = list(held.items())
            at = bisect_right(items, self.rank(pointer), key=lambda h: self.rank(h[0]))
            items.insert(at, (pointer, inner))
            self.maps.values[label] = dict(items)
        else:
            held[pointer] = inner

    def rank(self, pointer: str) -> int:
        if self._rank is None:
            self._rank = {p: i for i, p in enumerate(self.changed)}
        return self._rank[pointer]

    def tidy(self) -> FactMaps:
        """The maps, labels no record holds any more gone."""
        for which, label in self.own:
            if which == 2:
                _drop_empty(self.maps.values, label)
            else:
                _drop_empty(self.maps.keys if which == 0 else self.maps.inner_keys, label)
        return self.maps


def _drop_empty(held: dict[str, list[Hit]] | dict[str, dict[str, str]], label: str) -> None:
    if not held.get(label):
        held.pop(label, None)


def moved_on(maps: FactMaps, before: Changes, changed: Changes, updates: Changes) -> FactMaps:
    """The maps of ``changed`` (``before`` with ``updates`` made), from ``maps``, those of
    ``before``: only the labels of the updated records change."""
    update = _Update(maps, before, changed)
    for pointer, facts in updates.items():
        was = before.get(pointer)
        if was is not facts:
            update.change(pointer, was, facts)
    return update.tidy()
