"""``geojson``: EV charging stations from OpenStreetMap, as an Overpass query exported through
``osmtogeojson`` gives them: a GeoJSON ``FeatureCollection`` whose features carry their OSM
tags as string-valued, colon-namespaced properties (``"socket:type2_combo:output": "150 kW"``,
``"capacity": "4"``, ``"addr:city"``), present only where mapped; ids are ``"node/…"`` or
``"way/…"`` (a station mapped as its parking area is a polygon); coordinates are ``[longitude,
latitude]``; districts are boundary polygons a station lies in by geometry alone. Tools take
the OSM type and numeric id, socket types, kW and bounding coordinates; a search answers an OGC
API ``FeatureCollection``; the chargers of a district is a join through its polygon; an
operator's network is a summary no feature holds; retagging a station writes string tags and
bumps ``@version``."""

from __future__ import annotations

import random
from typing import Any

from benchmarks.zoo.geojson_features import (
    OPERATORS,
    SOCKETS,
    inside,
    kilowatts,
    location,
    region,
)
from benchmarks.zoo.kit import (
    Answer,
    Filter,
    Planned,
    Search,
    State,
    Tool,
    ToolError,
    note_tool,
    pointer,
    prop,
    summary,
)
from benchmarks.zoo.shape import Shape

TYPES = ["node", "way"]


def _stations(state: State) -> list[tuple[int, dict[str, Any]]]:
    return [
        (n, f)
        for n, f in enumerate(state["features"])
        if f["properties"].get("amenity") == "charging_station"
    ]


def _districts(state: State) -> list[dict[str, Any]]:
    return [f for f in state["features"] if f["properties"].get("boundary") == "administrative"]


def _sockets(tags: dict[str, Any]) -> list[str]:
    return [k.split(":")[1] for k in tags if k.startswith("socket:") and k.count(":") == 1]


def _power(tags: dict[str, Any]) -> float | None:
    """The fastest socket's output in kW, where any output is tagged."""
    outputs = [
        kilowatts(v) for k, v in tags.items() if k.startswith("socket:") and k.endswith(":output")
    ]
    return max(outputs) if outputs else None


def _view(station: dict[str, Any]) -> dict[str, Any]:
    """A station's searchable facts, read from its tags and geometry."""
    tags = station["properties"]
    lon, lat = location(station)
    return {
        "feature": station,
        "operator": tags.get("operator"),
        "sockets": _sockets(tags),
        "power": _power(tags),
        "capacity": int(tags["capacity"]) if "capacity" in tags else None,
        "free": tags["fee"] == "no" if "fee" in tags else None,
        "always": tags.get("opening_hours") == "24/7" if "opening_hours" in tags else None,
        "city": tags.get("addr:city"),
        "lon": lon,
        "lat": lat,
    }


def _searchable(state: State) -> list[tuple[str, dict[str, Any]]]:
    return [(f["id"], _view(f)) for _, f in _stations(state)]


def _shown(key: str, view: dict[str, Any]) -> dict[str, Any]:
    tags = view["feature"]["properties"]
    kept = ("name", "operator", "capacity", "fee", "opening_hours")
    return {
        "type": "Feature",
        "id": key,
        "properties": {k: tags[k] for k in kept if k in tags},
        "geometry": view["feature"]["geometry"],
    }


def _district(state: State, ref: str) -> dict[str, Any]:
    for found in _districts(state):
        if found["properties"]["ref"] == ref:
            return found
    raise ToolError(f"no district with ref {ref}")


class GeoJson(Shape):
    name = "geojson"
    title = "EV charging map, OpenStreetMap data"
    description = (
        "A regional EV charging map built on an OpenStreetMap extract: charging stations with "
        "their sockets, operators and opening hours, and the region's districts. Coordinates "
        "are WGS84; power in kW; errors are text starting with 'Error:'."
    )
    note = ("note_to_self", "text")

    def __init__(self) -> None:
        number = "number"
        self.finder = Search(
            "find_chargers",
            "Charging stations by operator, socket type, least power (kW), fewest charge "
            "points, free to use, open all hours, town, and a bounding box.",
            _searchable,
            [
                Filter("operator", "operator", "eq", prop("string", "Operator.", enum=OPERATORS)),
                Filter(
                    "socket", "sockets", "has", prop("string", "Socket type.", enum=sorted(SOCKETS))
                ),
                Filter("min_power_kw", "power", "ge", prop(number, "Least power of a socket, kW.")),
                Filter("min_points", "capacity", "ge", prop("integer", "Fewest charge points.")),
                Filter("free", "free", "eq", prop("boolean", "Free to use.")),
                Filter("open_24_7", "always", "eq", prop("boolean", "Open all hours.")),
                Filter("town", "city", "eq", prop("string", "Town of the address.")),
            ],
            _shown,
            limit=20,
            extra={"bbox": prop("string", "minLon,minLat,maxLon,maxLat (WGS84 degrees).")},
        )

    def build(self, rng: random.Random, target_bytes: int) -> State:
        return region(rng, target_bytes)

    def tools(self) -> list[Tool]:
        element = {
            "osm_type": prop("string", "OSM element type.", enum=TYPES),
            "osm_id": prop("integer", "OSM element id, e.g. 3100045512."),
        }
        return [
            Tool(
                "get_station",
                "A station's OSM tags and location.",
                element,
                self._get,
                ("osm_type", "osm_id"),
            ),
            Tool(
                "socket_details",
                "How many sockets of a type a station has, and their output.",
                element | {"socket": prop("string", "Socket type.", enum=sorted(SOCKETS))},
                self._socket,
                ("osm_type", "osm_id", "socket"),
            ),
            Tool(
                "find_chargers", self.finder.description, self.finder.tool().properties, self._find
            ),
            Tool(
                "district_chargers",
                "An operator's stations with a socket type inside a district's boundary.",
                {
                    "district_ref": prop("string", "District ref, e.g. AL03."),
                    "operator": prop("string", "Operator.", enum=OPERATORS),
                    "socket": prop("string", "Socket type.", enum=sorted(SOCKETS)),
                },
                self._in_district,
                ("district_ref", "operator", "socket"),
            ),
            Tool(
                "operator_network",
                "An operator's stations, charge points, socket types, fastest socket (kW) and "
                "free stations.",
                {"operator": prop("string", "Operator.", enum=OPERATORS)},
                self._network,
                ("operator",),
            ),
            Tool(
                "retag_station",
                "Correct a station's capacity, fee or opening hours (a new version of it).",
                element
                | {
                    "capacity": prop("integer", "Charge points."),
                    "fee": prop("boolean", "Whether charging costs money."),
                    "opening_hours": prop("string", "OSM opening_hours syntax, e.g. 24/7."),
                },
                self._retag,
                ("osm_type", "osm_id"),
                effect="write",
            ),
            note_tool("note_to_self", "text", "Keep a note for later (answers nothing)."),
        ]

    def _index(self, state: State, args: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        wanted = f"{args['osm_type']}/{args['osm_id']}"
        for n, station in _stations(state):
            if station["id"] == wanted:
                return n, station
        raise ToolError(f"no charging station {wanted}")

    def _get(self, state: State, args: dict[str, Any]) -> Answer:
        _, station = self._index(state, args)
        tags = {k: v for k, v in station["properties"].items() if not k.startswith("@")}
        answer = {"id": station["id"], "version": station["properties"]["@version"], "tags": tags}
        if station["geometry"]["type"] == "Point":
            lon, lat = station["geometry"]["coordinates"]
            answer |= {"lat": lat, "lon": lon}
        return answer, []

    def _socket(self, state: State, args: dict[str, Any]) -> Answer:
        _, station = self._index(state, args)
        tags, socket = station["properties"], args["socket"]
        if f"socket:{socket}" not in tags:
            raise ToolError(f"{station['id']} has no {socket} socket")
        return {
            "id": station["id"],
            "socket": socket,
            "count": tags[f"socket:{socket}"],
            "output": tags.get(f"socket:{socket}:output"),
        }, []

    def _find(self, state: State, args: dict[str, Any]) -> Answer:
        found = self.finder.matches(state, args)
        if "bbox" in args:
            west, south, east, north = (float(v) for v in args["bbox"].split(","))
            found = [
                f
                for f in found
                if west <= (point := location(f))[0] <= east and south <= point[1] <= north
            ]
        shown = found[: self.finder.limit]
        return {
            "type": "FeatureCollection",
            "numberMatched": len(found),
            "numberReturned": len(shown),
            "features": shown,
        }, []

    def _in_district(self, state: State, args: dict[str, Any]) -> Answer:
        district = _district(state, args["district_ref"])
        ring = district["geometry"]["coordinates"][0]
        stations = [
            {
                "id": s["id"],
                "name": s["properties"].get("name"),
                "operator": s["properties"].get("operator"),
                "capacity": s["properties"].get("capacity"),
            }
            for _, s in _stations(state)
            if s["properties"].get("operator") == args["operator"]
            and f"socket:{args['socket']}" in s["properties"]
            and inside(location(s), ring)
        ]
        return {
            "district": district["properties"]["name"],
            "operator": args["operator"],
            "stations": stations,
        }, []

    def _network(self, state: State, args: dict[str, Any]) -> Answer:
        views = [
            _view(s)
            for _, s in _stations(state)
            if s["properties"].get("operator") == args["operator"]
        ]
        return {
            "operator": args["operator"],
            "stations": len(views),
            "charge_points": summary("sum", [v["capacity"] for v in views]),
            "socket_types": summary("distinct", [s for v in views for s in v["sockets"]]),
            "fastest_kw": summary("max", [v["power"] for v in views]),
            "free_stations": sum(1 for v in views if v["free"]),
            "towns": summary("distinct", [v["city"] for v in views]),
        }, []

    def _retag(self, state: State, args: dict[str, Any]) -> Answer:
        n, station = self._index(state, args)
        changes: dict[str, str] = {}
        if "capacity" in args:
            changes["capacity"] = str(args["capacity"])
        if "fee" in args:
            changes["fee"] = "yes" if args["fee"] else "no"
        if "opening_hours" in args:
            changes["opening_hours"] = args["opening_hours"]
        if not changes:
            raise ToolError("nothing to change")
        version = station["properties"]["@version"] + 1
        patch = [
            {"op": "add", "path": pointer("features", n, "properties", key), "value": value}
            for key, value in {**changes, "@version": version}.items()
        ]
        return {"id": station["id"], "version": version, "changed": changes}, patch

    def _element(self, rng: random.Random, state: State) -> dict[str, Any]:
        _, station = rng.choice(_stations(state))
        kind, ident = station["id"].split("/")
        return {"osm_type": kind, "osm_id": int(ident)}

    def lookup(self, rng: random.Random, state: State) -> Planned:
        return Planned("lookup", "get_station", self._element(rng, state))

    def nested_lookup(self, rng: random.Random, state: State) -> Planned:
        args = self._element(rng, state)
        _, station = self._index(state, args)
        socket = rng.choice(_sockets(station["properties"]))
        return Planned("nested_lookup", "socket_details", args | {"socket": socket})

    def search(self, rng: random.Random, state: State) -> Planned:
        args = self.finder.plan(rng, state)
        if rng.random() < 0.5:
            # A map view's box around one of the matches, a few kilometres across.
            lon, lat = location(rng.choice(self.finder.matches(state, args)))
            half = rng.uniform(0.01, 0.04)
            box = (lon - half, lat - half * 0.6, lon + half, lat + half * 0.6)
            args["bbox"] = ",".join(f"{v:.4f}" for v in box)
        return Planned("search", "find_chargers", args)

    def join(self, rng: random.Random, state: State) -> Planned:
        args = {
            "district_ref": rng.choice(_districts(state))["properties"]["ref"],
            "operator": rng.choice(OPERATORS),
            "socket": rng.choice(sorted(SOCKETS)),
        }
        return Planned("join", "district_chargers", args)

    def aggregate(self, rng: random.Random, state: State) -> Planned:
        return Planned("aggregate", "operator_network", {"operator": rng.choice(OPERATORS)})

    def write(self, rng: random.Random, state: State) -> tuple[Planned, Planned]:
        args = self._element(rng, state)
        changes = {
            "capacity": rng.randint(1, 12),
            "fee": rng.random() < 0.7,
            "opening_hours": rng.choice(["24/7", "Mo-Su 06:00-23:00"]),
        }
        chosen = rng.sample(sorted(changes), rng.randint(1, 3))
        return Planned("write", "retag_station", args | {k: changes[k] for k in chosen}), Planned(
            "read_after_write", "get_station", args
        )

    def no_match(self, rng: random.Random, state: State) -> Planned:
        return Planned(
            "empty", "find_chargers", {"operator": rng.choice(OPERATORS), "min_power_kw": 1000}
        )
