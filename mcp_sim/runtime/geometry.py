"""GeoJSON geometry (RFC 7946) read as a map reads it: where a feature is, what it covers.

A GeoJSON position is ``[longitude, latitude]`` (in that order, whatever a tool's arguments
call them), a ``Polygon`` is a list of linear rings (the first the outer boundary, the rest
holes) and a ``MultiPolygon`` a list of polygons. A feature is an object of ``"type":
"Feature"`` with a ``geometry`` object; a ``FeatureCollection`` holds them in ``features``.
These are told by the standard's structure alone, never by what a data set's properties are
called, so a city's trees and parks are read as an OpenStreetMap export's charging stations
and districts are.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from itertools import pairwise
from typing import Any

GEOMETRY_TYPES = frozenset(
    {
        "Point",
        "MultiPoint",
        "LineString",
        "MultiLineString",
        "Polygon",
        "MultiPolygon",
        "GeometryCollection",
    }
)
AREA_TYPES = frozenset({"Polygon", "MultiPolygon"})
EARTH_RADIUS_KM = 6371.0088
"""The mean radius of the WGS84 ellipsoid, as haversine distances use it."""

Point = tuple[float, float]
"""A position as ``(longitude, latitude)``, the order GeoJSON writes it."""
Box = tuple[float, float, float, float]
"""``(west, south, east, north)``: a GeoJSON ``bbox``'s order."""


def is_geometry(value: Any) -> bool:
    """Whether ``value`` is a GeoJSON geometry object (a ``type`` the standard names, with
    ``coordinates`` or, for a collection, ``geometries``)."""
    if not isinstance(value, dict) or value.get("type") not in GEOMETRY_TYPES:
        return False
    held = "geometries" if value["type"] == "GeometryCollection" else "coordinates"
    return isinstance(value.get(held), list)


def geometry_of(record: Any) -> dict[str, Any] | None:
    """A feature's geometry: ``record["geometry"]`` when ``record`` is a GeoJSON ``Feature``
    (``None`` for one without a geometry, which the standard allows)."""
    if not isinstance(record, dict) or record.get("type") != "Feature":
        return None
    geometry = record.get("geometry")
    return geometry if is_geometry(geometry) else None


def is_area(geometry: dict[str, Any] | None) -> bool:
    return geometry is not None and geometry.get("type") in AREA_TYPES


def positions(geometry: dict[str, Any]) -> Iterator[Point]:
    """Every position of a geometry, at whatever depth its type nests them."""

    def walk(value: Any) -> Iterator[Point]:
        if isinstance(value, list) and len(value) >= 2 and all(_number(v) for v in value[:2]):
            yield float(value[0]), float(value[1])
        elif isinstance(value, list):
            for item in value:
                yield from walk(item)

    if geometry.get("type") == "GeometryCollection":
        for part in geometry.get("geometries", []):
            if is_geometry(part):
                yield from positions(part)
        return
    yield from walk(geometry.get("coordinates"))


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def bounds(geometry: dict[str, Any]) -> Box | None:
    """The smallest box holding the geometry, ``None`` when it has no position."""
    found = list(positions(geometry))
    if not found:
        return None
    lons, lats = [p[0] for p in found], [p[1] for p in found]
    return min(lons), min(lats), max(lons), max(lats)


def location(geometry: dict[str, Any]) -> Point | None:
    """Where a geometry is, as one point: a ``Point``'s position, else the mean of its outer
    positions (a parking area's middle), ``None`` when it has none."""
    if geometry.get("type") == "Point":
        return next(positions(geometry), None)
    found = list(positions(_outer(geometry)))
    if len(found) > 2 and found[0] == found[-1]:
        found = found[:-1]  # a ring closes on its first position: count it once
    if not found:
        return None
    return sum(p[0] for p in found) / len(found), sum(p[1] for p in found) / len(found)


def _outer(geometry: dict[str, Any]) -> dict[str, Any]:
    """A polygon's outer ring as a geometry of its own (the holes say nothing of where)."""
    rings = geometry.get("coordinates")
    if geometry.get("type") == "Polygon" and isinstance(rings, list) and rings:
        return {"type": "LineString", "coordinates": rings[0]}
    return geometry


def _in_ring(point: Point, ring: Sequence[Sequence[float]]) -> bool:
    """Even-odd ray casting: whether ``point`` lies inside the closed ``ring``."""
    x, y = point
    hit = False
    closed = [*ring, ring[0]] if ring and list(ring[0]) != list(ring[-1]) else list(ring)
    for (x1, y1, *_), (x2, y2, *_) in pairwise(closed):
        if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
            hit = not hit
    return hit


def _in_polygon(point: Point, rings: Sequence[Sequence[Sequence[float]]]) -> bool:
    """Inside the outer ring and in none of the holes."""
    if not rings or not _in_ring(point, rings[0]):
        return False
    return not any(_in_ring(point, hole) for hole in rings[1:])


def covers(geometry: dict[str, Any], point: Point) -> bool:
    """Whether an area (a ``Polygon``, a ``MultiPolygon``, or a collection holding one)
    covers ``point``; a geometry of no area covers nothing."""
    kind, coordinates = geometry.get("type"), geometry.get("coordinates")
    if kind == "Polygon" and isinstance(coordinates, list):
        return _in_polygon(point, coordinates)
    if kind == "MultiPolygon" and isinstance(coordinates, list):
        return any(_in_polygon(point, polygon) for polygon in coordinates)
    if kind == "GeometryCollection":
        return any(covers(g, point) for g in geometry.get("geometries", []) if is_geometry(g))
    return False


def in_box(point: Point, box: Box) -> bool:
    """Whether ``point`` lies in ``box`` (one crossing the antimeridian, west > east, too)."""
    lon, lat = point
    west, south, east, north = box
    across = lon >= west or lon <= east if west > east else west <= lon <= east
    return across and south <= lat <= north


def distance_km(a: Point, b: Point) -> float:
    """The great-circle (haversine) distance between two ``(lon, lat)`` points in km."""
    lon1, lat1, lon2, lat2 = map(math.radians, (*a, *b))
    h = (
        math.sin((lat2 - lat1) / 2) ** 2
        + math.cos(lat1) * math.cos(lat2) * math.sin((lon2 - lon1) / 2) ** 2
    )
    return 2 * EARTH_RADIUS_KM * math.asin(min(1.0, math.sqrt(h)))
