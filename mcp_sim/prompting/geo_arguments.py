"""A call's arguments read as a place: a bounding box, or a point and a radius around it.

A map's tools take a place in a few conventional ways, which the arguments' names and value
types tell apart (never a data set's own vocabulary): a ``bbox`` of four numbers in GeoJSON
order (``west,south,east,north``, a string or a list); a point as ``lat``/``latitude`` and
``lon``/``lng``/``longitude``, or one argument (``near``, ``center``, ``location``) holding
``"lat,lon"`` as a string (as map URLs write it), ``[lon, lat]`` as a list (GeoJSON's order)
or an object of those names; a radius in km (``radius_km``, ``radius``, ``within_km``), in
metres (``radius_m``) or miles (``radius_mi``); bounds as ``min_lat``/``max_lon`` pairs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from mcp_sim.runtime.geometry import Box, Point

_SPLIT = re.compile(r"[^a-z0-9]+|(?<=[a-z])(?=[0-9])")
_LAT = frozenset({"lat", "latitude"})
_LON = frozenset({"lon", "lng", "long", "longitude"})
_BOX = frozenset({"bbox", "bounds", "extent", "viewport", "box"})
_CENTRE = frozenset({"near", "center", "centre", "location", "point", "around", "position"})
_RADIUS = frozenset({"radius", "distance", "within", "range"})
_LOW, _HIGH = frozenset({"min", "from", "south", "west"}), frozenset({"max", "to", "north", "east"})
_UNITS = {"m": 0.001, "meter": 0.001, "meters": 0.001, "metre": 0.001, "metres": 0.001}
_UNITS |= {"mi": 1.609344, "mile": 1.609344, "miles": 1.609344, "km": 1.0}
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


@dataclass
class GeoQuery:
    """The place a call's arguments ask about."""

    box: Box | None = None
    centre: Point | None = None
    """``(lon, lat)``."""
    radius_km: float | None = None
    used: set[str] = field(default_factory=set)
    """The arguments read as the place: they constrain no property."""

    def __bool__(self) -> bool:
        return self.box is not None or self.centre is not None


def _words(name: str) -> list[str]:
    spaced = re.sub(r"(?<=[a-z])(?=[A-Z])", "_", name).lower()
    return [w for w in _SPLIT.split(spaced) if w]


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str) and _NUMBER.fullmatch(value.strip()):
        return float(value)
    return None


def _numbers(value: Any) -> list[float] | None:
    """Numbers of a list, or of a string separated by commas or spaces."""
    items = value if isinstance(value, list) else None
    if isinstance(value, str):
        items = [p for p in re.split(r"[,\s;]+", value.strip()) if p]
    numbers = [_number(v) for v in items or []]
    return [n for n in numbers if n is not None] if items and None not in numbers else None


def _point(value: Any) -> Point | None:
    """A point argument: ``"lat,lon"``, ``[lon, lat]`` or ``{"lat":…, "lon":…}``."""
    if isinstance(value, dict):
        lat = next((_number(v) for k, v in value.items() if k.lower() in _LAT), None)
        lon = next((_number(v) for k, v in value.items() if k.lower() in _LON), None)
        return (lon, lat) if lat is not None and lon is not None else None
    numbers = _numbers(value)
    if numbers is None or len(numbers) != 2:
        return None
    lon, lat = (numbers[0], numbers[1]) if isinstance(value, list) else (numbers[1], numbers[0])
    return (lon, lat) if abs(lat) <= 90 and abs(lon) <= 180 else None


def _scale(words: list[str]) -> float:
    return next((_UNITS[w] for w in reversed(words) if w in _UNITS), 1.0)


def read_place(arguments: dict[str, Any]) -> GeoQuery:
    """The place ``arguments`` ask about (an empty query when they name none)."""
    query = GeoQuery()
    axes: dict[tuple[str, str], float] = {}
    for name, value in arguments.items():
        if _read(query, axes, _words(name), value):
            query.used.add(name)
    if ("lat", "") in axes and ("lon", "") in axes:
        query.centre = (axes[("lon", "")], axes[("lat", "")])
    edges = [("lon", "low"), ("lat", "low"), ("lon", "high"), ("lat", "high")]
    if query.box is None and all(e in axes for e in edges):
        west, south, east, north = (axes[e] for e in edges)
        query.box = (west, south, east, north)
    return query


def _read(
    query: GeoQuery, axes: dict[tuple[str, str], float], words: list[str], value: Any
) -> bool:
    """Reads one argument into ``query`` (a latitude or longitude into ``axes``, by side);
    whether it is part of the place."""
    plain = set(words)
    number = _number(value)
    if plain & _BOX and (box := _numbers(value)) is not None and len(box) == 4:
        query.box = (box[0], box[1], box[2], box[3])
    elif plain & _RADIUS and number is not None:
        query.radius_km = number * _scale(words)
    elif plain & (_LAT | _LON) and number is not None:
        axis = "lat" if plain & _LAT else "lon"
        side = "low" if plain & _LOW else "high" if plain & _HIGH else ""
        axes[(axis, side)] = number
    elif plain & _CENTRE and (point := _point(value)) is not None:
        query.centre = point
    else:
        return False
    return True
