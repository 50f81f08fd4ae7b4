"""Searches of GeoJSON features by where they are, and by the areas they lie in.

When the collection a call searches holds GeoJSON features (see
:mod:`mcp_sim.runtime.geo_index`), the field-aware search (see
:mod:`mcp_sim.prompting.field_search`) is read again as a map reads it:

- a bounding box, or a point and a radius (see :mod:`mcp_sim.prompting.geo_arguments`),
  selects the features whose location meets it, nearest first with their distance shown,
  instead of matching its numbers to any numeric property (or to coordinates);
- an argument whose value names an area feature (a district by its ``ref``) while the call
  constrains other properties too selects the features inside that area's polygon (ray
  casting, holes and multipolygons too): a point's region is known by geometry alone; the
  area is shown as well;
- an argument no property's value matches, whose name and value together are a
  colon-namespaced property key (``socket=type2`` ↔ ``socket:type2``, as OpenStreetMap tags
  are written), selects the features holding that key.

Coordinates are never matched as plain numbers: a search's bounds say nothing of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from itertools import islice
from typing import Any

from mcp_sim.prompting.constraints import Constraint, Reading
from mcp_sim.prompting.field_search import FieldSearch
from mcp_sim.prompting.field_tables import FieldTables, Places
from mcp_sim.prompting.geo_arguments import GeoQuery, read_place
from mcp_sim.prompting.geo_keys import holding, namespaced_constraints
from mcp_sim.prompting.search_result import SearchResult
from mcp_sim.runtime.geo_index import GeoIndex, Placed, placed
from mcp_sim.runtime.geometry import (
    Box,
    covers,
    distance_km,
    geometry_of,
    in_box,
    positions,
)
from mcp_sim.runtime.state_index import StateOverlay
from mcp_sim.runtime.state_paths import resolve
from mcp_sim.runtime.state_shape import Collection

GEOMETRY = "geometry"
MOST_AREAS = 3
"""An argument naming more area features than this names no region (a town many share)."""
MOST_POSITIONS = 12
"""A geometry of at most this many positions is shown beside a found feature's properties (a
point, a small area); a park's long boundary is outlined."""
MOST_POINTS = 5
"""Points named by a call whose regions are looked up (a lookup names one or two)."""
MOST_DISTANCES = 12
"""Distances a search's description lists (the nearest features')."""


@dataclass
class GeoSearchResult(SearchResult):
    """A search of features: each one's geometry is part of what the view shows of it."""

    spatial: Constraint | None = None

    def focus_of(self, pointer: str, record: Any) -> set[str]:
        plain = [c for c in self.constraints if c is not self.spatial]
        reading = Reading(self.reading.collection, tuple(plain), 1.0)
        found = SearchResult(self.collection, reading, [], [])
        focus = found.focus_of(pointer, record)
        geometry = geometry_of(record)
        if geometry is not None and _small(geometry):
            focus.add("/" + GEOMETRY)
        return focus


def _small(geometry: dict[str, Any]) -> bool:
    if geometry["type"] == "Point":
        return True
    return sum(1 for _ in islice(positions(geometry), MOST_POSITIONS + 1)) <= MOST_POSITIONS


def as_geo(result: SearchResult) -> GeoSearchResult:
    """``result`` unchanged but for showing its features' geometry."""
    return GeoSearchResult(**{f.name: getattr(result, f.name) for f in fields(SearchResult)})


def _on_geometry(constraint: Constraint) -> bool:
    return all(f == GEOMETRY or f.startswith(GEOMETRY + "/") for f in constraint.fields)


class GeoSearch:
    """Reads a call's field-aware search again over GeoJSON features."""

    def __init__(self, search: FieldSearch) -> None:
        self.search = search
        self.geo = GeoIndex.of(search.overlay.base)
        self.hits: dict[int, set[str]] = {}

    def refine(self, results: list[SearchResult], arguments: dict[str, Any]) -> list[SearchResult]:
        """``results`` as the features' geometry reads them (unchanged for a collection of
        no features)."""
        if not self.geo.features:
            return results
        place = read_place(arguments)
        first = results[0] if results else None
        collection = first.collection if first is not None else self.geo.largest()
        if collection is None or self.geo.collection(collection.pointer) is None:
            return results
        if first is not None and (first.nested is not None or first.through is not None):
            return results
        given = first.constraints if first is not None else ()
        kept = [c for c in given if c.argument not in place.used and not _on_geometry(c)]
        claimed = {c.argument for c in kept}
        schema = FieldTables.of(self.search.overlay.base).schema(collection)
        keyed = namespaced_constraints(schema, arguments, claimed | place.used)
        areas, region = self._region(collection, kept) if len(kept) + len(keyed) > 1 else ([], None)
        if not (place or region or keyed or len(kept) < len(given)):
            return [as_geo(first), *results[1:]] if first is not None else results
        kept = [c for c in kept if c is not region]
        found = self._run(collection, [*kept, *keyed], place, areas, region)
        named = self._area_result(collection, region, areas) if region is not None else None
        rest = results[1:] if results else []
        # The area first: it is small and names the region; a summary sums the last search,
        # what lies inside it.
        return [*([named] if named is not None else []), found, *rest]

    def _region(
        self, collection: Collection, constraints: list[Constraint]
    ) -> tuple[list[Placed], Constraint | None]:
        """The area features an equality constraint names, with that constraint."""
        features = {f.pointer: f for f in self._features(collection)}
        for constraint in constraints:
            if constraint.op != "eq":
                continue
            hits = self._hits(collection, constraint)
            areas = [features[p] for p in hits if p in features]
            if 0 < len(areas) == len(hits) <= MOST_AREAS and all(a.area for a in areas):
                return areas, constraint
        return [], None

    def _hits(self, collection: Collection, constraint: Constraint) -> set[str]:
        """The records meeting ``constraint``, found once per call; a key's holders are
        read off the key's values, not tested one by one."""
        found = self.hits.get(id(constraint))
        if found is None:
            if constraint.op == "ne" and constraint.value == "":
                found = holding(self.search, collection, constraint.fields)
            else:
                found = self.search.meeting(collection, constraint)
            self.hits[id(constraint)] = found
        return found

    def _features(self, collection: Collection) -> list[Placed]:
        return list(self.geo.now(collection.pointer, self.search.overlay, self.search.state))

    def _run(
        self,
        collection: Collection,
        constraints: list[Constraint],
        place: GeoQuery,
        areas: list[Placed],
        region: Constraint | None,
    ) -> GeoSearchResult:
        met: dict[str, int] = {}
        for constraint in constraints:
            for pointer in self._hits(collection, constraint):
                met[pointer] = met.get(pointer, 0) + 1
        spatial, distances = None, {}
        if place or areas:
            features = self._features(collection)
            boxed = [(a.box, a.area) for a in areas if a.area and a.box is not None]
            inside = [f for f in features if _meets(f, place, boxed)]
            centre = place.centre
            if centre is not None:
                distances = {f.pointer: distance_km(centre, f.point) for f in inside}
                inside.sort(key=lambda f: distances[f.pointer])
            for feature in inside:
                met[feature.pointer] = met.get(feature.pointer, 0) + 1
            spatial = _spatial(place, areas, region)
        wanted = len(constraints) + (spatial is not None)
        position = self.search.tables.position(collection)
        order = sorted(met, key=lambda p: (distances.get(p, 0.0), position.get(p, len(position))))
        full = [p for p in order if met[p] == wanted]
        if spatial is not None and distances:
            nearest = ", ".join(f"{p} {distances[p]:.2f} km" for p in full[:MOST_DISTANCES])
            spatial = Constraint(
                spatial.argument, spatial.op, f"{spatial.value}; nearest: {nearest}", (GEOMETRY,), 1
            )
        partial = sorted(((p, met[p]) for p in order if met[p] < wanted), key=lambda i: -i[1])
        all_constraints = (*constraints, *([spatial] if spatial is not None else []))
        reading = Reading(collection.pointer, all_constraints, 1.0)
        found = GeoSearchResult(collection, reading, full, partial, spatial=spatial)
        found.places = Places(self.search.tables, collection, self.search.overlay.changed)
        return found

    def _area_result(
        self, collection: Collection, region: Constraint, areas: Sequence[Placed]
    ) -> SearchResult:
        """The area features the call names, shown beside what lies in them."""
        reading = Reading(collection.pointer, (region,), 1.0)
        return SearchResult(collection, reading, [a.pointer for a in areas], [])


def _meets(feature: Placed, place: GeoQuery, areas: Sequence[tuple[Box, dict[str, Any]]]) -> bool:
    # An area lies in another by its middle (a car park in a district); the areas the call
    # names hold what lies in them, not themselves.
    if areas and not any(
        a is not feature.area and in_box(feature.point, b) and covers(a, feature.point)
        for b, a in areas
    ):
        return False
    if place.box is not None and not in_box(feature.point, place.box):
        return False
    if place.centre is not None and place.radius_km is not None:
        return distance_km(place.centre, feature.point) <= place.radius_km
    return True


def _spatial(place: GeoQuery, areas: Sequence[Placed], region: Constraint | None) -> Constraint:
    """How the view describes the place a search asks for."""
    said: list[str] = []
    if areas and region is not None:
        named = " or ".join(a.pointer for a in areas)
        # The area's own constraint, unquoted: the description is itself quoted.
        value = ", ".join(
            map(str, region.value if isinstance(region.value, list) else [region.value])
        )
        said.append(f"lies inside the area of {named} (its {' or '.join(region.fields)}: {value})")
    if place.box is not None:
        west, south, east, north = place.box
        said.append(f"lies in lon {west}..{east}, lat {south}..{north} ([lon, lat] order)")
    if place.centre is not None:
        lon, lat = place.centre
        reach = f"within {place.radius_km:g} km of" if place.radius_km is not None else "near"
        said.append(f"{reach} lat {lat}, lon {lon} (haversine)")
    argument = region.argument if region is not None else ", ".join(sorted(place.used))
    return Constraint(argument, "where", "; ".join(said), (GEOMETRY,), 1.0)


def regions_of(overlay: StateOverlay, state: Any, pointers: Sequence[str]) -> list[str]:
    """The area features that each point feature at ``pointers`` lies in (a station's
    district, a tree's park), at most a few per point: what a call about a point may ask."""
    geo = GeoIndex.of(overlay.base)
    points = [
        f
        for p in pointers[:MOST_POINTS]
        if (f := placed(p, resolve(state, p))) is not None and f.area is None
    ]
    found: dict[str, None] = {}
    for collection in geo.features if points else ():
        areas = [
            (f.box, f.pointer, f.area)
            for f in geo.now(collection, overlay, state)
            if f.area is not None and f.box is not None
        ]
        for point in points:
            holding = [
                at
                for box, at, area in areas
                if in_box(point.point, box) and covers(area, point.point)
            ]
            found.update(dict.fromkeys(holding[:MOST_AREAS]))
    return list(found)
