"""OpenStreetMap data as an Overpass query exported through ``osmtogeojson`` gives it: one
GeoJSON ``FeatureCollection`` whose features are ``{"type": "Feature", "id": "node/…",
"properties": {...}, "geometry": {...}}``; a feature's properties are its OSM tags, every value
a string (``"capacity": "4"``, ``"socket:type2_combo:output": "150 kW"``), colon-namespaced and
present only where a mapper set them, beside ``@id`` and ``@version``; coordinates are
``[longitude, latitude]``; a charging station is a point (a node) or, where mapped as its
parking area, a polygon (a way); districts are boundary polygons (relations) that a station
lies in by geometry alone (the ``geojson`` shape's state)."""

from __future__ import annotations

import random
from itertools import pairwise
from typing import Any

from benchmarks.zoo.kit import CITIES, State, fill, size_of, words

WEST, SOUTH, COLUMN, ROW = 5.0, 52.0, 0.1, 0.07
TOWNS = CITIES[:6]
QUARTERS = ["Zuid", "Zuidwest", "Centrum", "West", "Oost", "Noord"]
OPERATORS = ["Voltera", "Ampwise", "ChargeNord", "Stroomnet", "Kilowatt Co.", "Gridline"]
SOCKETS = {
    "type2": ["11 kW", "22 kW"],
    "type2_combo": ["50 kW", "150 kW", "300 kW"],
    "chademo": ["50 kW"],
    "schuko": ["3.7 kW"],
    "tesla_supercharger": ["250 kW"],
}
HOURS = ["24/7", "24/7", "24/7", "Mo-Fr 07:00-20:00", "Mo-Sa 08:00-22:00"]


def kilowatts(output: str) -> float:
    """A socket's ``output`` tag (``"150 kW"``) in kW."""
    return float(output.removesuffix("kW").strip())


def feature(ident: str, properties: dict[str, Any], geometry: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "Feature",
        "id": ident,
        "properties": {"@id": ident, **properties},
        "geometry": geometry,
    }


def _corner(rng: random.Random, column: int, row: int) -> tuple[float, float]:
    """A corner of the districts' grid, moved a little unless it is on the outer edge."""
    lon, lat = WEST + column * COLUMN, SOUTH + row * ROW
    if 0 < column < len(TOWNS) and 0 < row < len(QUARTERS):
        lon, lat = lon + rng.uniform(-0.02, 0.02), lat + rng.uniform(-0.014, 0.014)
    return round(lon, 7), round(lat, 7)


def districts(rng: random.Random) -> list[dict[str, Any]]:
    """Boundary polygons that tile the region: a town per column, a quarter per row."""
    corners = {
        (c, r): _corner(rng, c, r) for c in range(len(TOWNS) + 1) for r in range(len(QUARTERS) + 1)
    }
    made = []
    for c, town in enumerate(TOWNS):
        for r, quarter in enumerate(QUARTERS):
            ring = [
                corners[(c, r)],
                corners[(c + 1, r)],
                corners[(c + 1, r + 1)],
                corners[(c, r + 1)],
            ]
            properties = {
                "@version": rng.randint(3, 40),
                "type": "boundary",
                "boundary": "administrative",
                "admin_level": "10",
                "name": f"{town} {quarter}",
                "ref": f"{town[:2].upper()}{r + 1:02d}",
                "is_in:city": town,
            }
            geometry = {"type": "Polygon", "coordinates": [[list(p) for p in [*ring, ring[0]]]]}
            made.append(
                feature(f"relation/{rng.randint(1_000_000, 9_999_999)}", properties, geometry)
            )
    return made


def inside(point: tuple[float, float], ring: list[list[float]]) -> bool:
    """Whether a point lies in a polygon's ring (even-odd ray casting)."""
    x, y = point
    hit = False
    for (x1, y1), (x2, y2) in pairwise(ring):
        if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
            hit = not hit
    return hit


def location(station: dict[str, Any]) -> tuple[float, float]:
    """A station's longitude and latitude: its point, or its area's centre."""
    geometry = station["geometry"]
    if geometry["type"] == "Point":
        return geometry["coordinates"][0], geometry["coordinates"][1]
    ring = geometry["coordinates"][0][:-1]
    return sum(p[0] for p in ring) / len(ring), sum(p[1] for p in ring) / len(ring)


def _tags(rng: random.Random, town: str) -> dict[str, Any]:
    tags: dict[str, Any] = {"amenity": "charging_station"}
    chosen = rng.sample(sorted(SOCKETS), rng.choice([1, 1, 2, 2, 3]))
    total = 0
    for socket in chosen:
        count = rng.choice([1, 2, 2, 4, 6])
        total += count
        tags[f"socket:{socket}"] = str(count)
        if rng.random() < 0.85:
            tags[f"socket:{socket}:output"] = rng.choice(SOCKETS[socket])
    optional = {
        "operator": rng.choice(OPERATORS),
        "name": f"{words(rng, 1).title()} {rng.choice(['Laadplein', 'Hub', 'P+R', 'Garage'])}",
        "capacity": str(total),
        "fee": rng.choice(["yes", "yes", "no"]),
        "opening_hours": rng.choice(HOURS),
        "addr:city": town,
        "addr:street": f"{words(rng, 1).title()}straat",
        "addr:housenumber": str(rng.randint(1, 240)),
        "authentication:app": "yes",
    }
    # Mappers set some tags and not others; most stations carry the main ones.
    tags |= {k: v for k, v in optional.items() if rng.random() < 0.9}
    return tags


def region(rng: random.Random, target_bytes: int) -> State:
    """The export, of about ``target_bytes``: the districts, then the stations by OSM id."""
    state: State = {
        "type": "FeatureCollection",
        "generator": "overpass-turbo",
        "copyright": "The data included in this document is from www.openstreetmap.org. "
        "The data is made available under ODbL.",
        "timestamp": "2025-11-30T21:14:02Z",
        "features": districts(rng),
    }
    node_id, way_id = [3_100_000_000], [410_000_000]

    def station() -> None:
        lon = round(rng.uniform(WEST, WEST + COLUMN * len(TOWNS)), 7)
        lat = round(rng.uniform(SOUTH, SOUTH + ROW * len(QUARTERS)), 7)
        town = TOWNS[min(int((lon - WEST) / COLUMN), len(TOWNS) - 1)]
        tags = {"@version": rng.randint(1, 12), **_tags(rng, town)}
        if rng.random() < 0.12:
            way_id[0] += rng.randint(1, 5000)
            ring = [
                [round(lon + dx, 7), round(lat + dy, 7)]
                for dx, dy in ((0, 0), (0.0004, 0), (0.0004, 0.0003), (0, 0.0003), (0, 0))
            ]
            polygon = {"type": "Polygon", "coordinates": [ring]}
            state["features"].append(feature(f"way/{way_id[0]}", tags, polygon))
            return
        node_id[0] += rng.randint(1, 90000)
        point = {"type": "Point", "coordinates": [lon, lat]}
        state["features"].append(feature(f"node/{node_id[0]}", tags, point))

    fill(station, lambda: size_of(state), target_bytes)
    return state
