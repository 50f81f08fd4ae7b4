"""Where each feature of a GeoJSON collection lies, kept per world state.

A collection is geographic when most of its records are GeoJSON ``Feature`` objects with a
geometry (see :mod:`mcp_sim.runtime.geometry`): a ``FeatureCollection``'s ``features``, or
any array or map of features. For each such feature the index keeps one point (a ``Point``'s
position, another geometry's middle) and, for an area, its geometry, so a search by box or
distance, or for the features inside an area, reads a list instead of walking the document.
A session's changed records are read as they are now.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from itertools import chain, islice
from typing import Any

from mcp_sim.runtime.geometry import Box, Point, bounds, geometry_of, is_area, location
from mcp_sim.runtime.state_index import StateIndex, StateOverlay
from mcp_sim.runtime.state_paths import resolve
from mcp_sim.runtime.state_shape import Collection, record_items

_SAMPLE = 50
"""The first records of a collection looked at to tell whether it holds features."""


@dataclass(frozen=True)
class Placed:
    pointer: str
    point: Point
    area: dict[str, Any] | None
    """The feature's geometry when it covers an area (a district, a park), else ``None``."""
    box: Box | None = None
    """The area's bounds: a point outside them is outside the area, found without its rings."""


def placed(pointer: str, record: Any) -> Placed | None:
    """Where the record at ``pointer`` lies, when it is a feature with a geometry."""
    geometry = geometry_of(record)
    point = location(geometry) if geometry is not None else None
    if geometry is None or point is None:
        return None
    if not is_area(geometry):
        return Placed(pointer, point, None)
    return Placed(pointer, point, geometry, bounds(geometry))


class GeoIndex:
    """The features of the starting state's geographic collections."""

    def __init__(self, index: StateIndex) -> None:
        self.index = index
        self.features: dict[str, list[Placed]] = {}
        for collection in index.collections:
            found = self._features(collection)
            if found is not None:
                self.features[collection.pointer] = found

    @classmethod
    def of(cls, index: StateIndex) -> GeoIndex:
        found = index.derived.get("geo")
        if not isinstance(found, GeoIndex):
            found = index.derived["geo"] = cls(index)
        return found

    def _features(self, collection: Collection) -> list[Placed] | None:
        """The features of ``collection``, when most of its first records are features."""
        items = record_items(collection, resolve(self.index.state, collection.pointer))
        sample = [(pointer, record) for _, pointer, record in islice(items, _SAMPLE)]
        featured = sum(geometry_of(record) is not None for _, record in sample)
        if featured * 2 <= len(sample) or not sample:
            return None
        rest = ((pointer, record) for _, pointer, record in items)
        return [f for p, record in chain(sample, rest) if (f := placed(p, record)) is not None]

    def collection(self, pointer: str) -> Collection | None:
        """The geographic collection at ``pointer``, if it is one."""
        if pointer not in self.features:
            return None
        return next(c for c in self.index.collections if c.pointer == pointer)

    def largest(self) -> Collection | None:
        """The geographic collection of the most features, when there is one."""
        if not self.features:
            return None
        return self.collection(max(self.features, key=lambda p: len(self.features[p])))

    def now(self, collection: str, overlay: StateOverlay, state: Any) -> Iterator[Placed]:
        """The features of ``collection`` as they are in ``state``, a session's: those it
        changed or added read again, those it removed left out."""
        changed = overlay.changed
        for feature in self.features.get(collection, []):
            if feature.pointer not in changed:
                yield feature
        for pointer, facts in changed.items():
            if facts is not None and facts.collection == collection:
                found = placed(pointer, resolve(state, pointer))
                if found is not None:
                    yield found
