"""The map of the ``osm`` shape: a town's OpenStreetMap data as the editing API's ``GET
/api/0.6/map.json`` answers it: one ``elements`` array of nodes, then ways, then relations,
each in order of id; every element with its ``version``, ``changeset``, ``timestamp``, ``user``
and ``uid``; ``tags`` string-valued and absent where none are mapped. A node alone holds a
position: a street or a building is a way listing node ids (a building's first node repeated
last), a way's vertices carry no tags, a junction is a node two streets share. A bus route is
a relation whose members are ``{"type", "ref", "role"}`` (its stops as ``platform`` nodes, its
streets as ways); a turn restriction is a relation of a ``from`` way, a ``via`` node and a
``to`` way. Beside the map: the changesets the elements were last edited in (as ``GET
/api/0.6/changesets.json`` answers them) and the account the tools edit as."""

from __future__ import annotations

import datetime as dt
import random
from typing import Any

from benchmarks.zoo.kit import CITIES, LAST, WORDS, State, fill, size_of
from benchmarks.zoo.osm_tags import poi

GENERATOR = "CGImap 0.9.3 (2041905 spike-08.openstreetmap.org)"
ENVELOPE = {
    "version": "0.6",
    "generator": GENERATOR,
    "copyright": "OpenStreetMap and contributors",
    "attribution": "http://www.openstreetmap.org/copyright",
    "license": "http://opendatacommons.org/licenses/odbl/1-0/",
}
BOUNDS = {"minlat": 50.7, "minlon": -1.62, "maxlat": 50.76, "maxlon": -1.52}
SUFFIXES = ["Road", "Street", "Lane", "Close", "Avenue", "Way", "Gardens", "Hill"]
HIGHWAYS = ["residential", "residential", "residential", "unclassified", "tertiary", "secondary"]
PEOPLE = [("harbourmapper", 1283745), ("Rosslare_GIS", 4471902), ("tidal_survey", 88213)]
PEOPLE += [("quayle.j", 9901237), ("SomeoneElse", 61942), ("kellsey_walks", 15523871)]
PEOPLE += [("Mallow Buses", 7023458), ("pine_ridge", 230817), ("oban_osm", 11874403)]
EDITORS = ["JOSM/1.5 (19160 en)", "iD 2.30.4", "StreetComplete 58.2", "Every Door 5.1"]
COMMENTS = ["Added shops from survey", "Fixed street names", "Bus stops from NaPTAN check"]
COMMENTS += ["Opening hours updated", "Traced buildings from Bing", "Speed limits from survey"]
ME = {"id": 21477312, "display_name": "brimhaven_council_gis"}
ROUTES = [("X1", "Aldmouth", "Fairport"), ("12", "Corran", "Harbour"), ("12A", "Corran", "Mill")]
ROUTES += [("31", "Dunmore", "Station"), ("47", "Eastwick", "Quay"), ("N7", "Glenarm", "Quay")]


def elements(state: State) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = state["map"]["elements"]
    return found


def changesets(state: State) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = state["changesets"]["changesets"]
    return found


def boundary(state: State, kind: str) -> int:
    """Where the elements of ``kind`` end (new ones go there, keeping the map's order)."""
    order = ["node", "way", "relation"]
    return sum(1 for e in elements(state) if order.index(e["type"]) <= order.index(kind))


class Town:
    """A town mapped street by street: each street its vertices, way, shops, amenities,
    buildings and bus stops, made in the changesets of the mappers who added them."""

    def __init__(self, rng: random.Random, state: State) -> None:
        self.rng, self.state = rng, state
        self.nodes: list[dict[str, Any]] = []
        self.ways: list[dict[str, Any]] = []
        self.relations: list[dict[str, Any]] = []
        self.ids = {"node": 2_104_553_000, "way": 198_400_000, "relation": 8_340_000}
        self.streets: list[dict[str, Any]] = []
        self.names: set[str] = set()
        self.changeset: dict[str, Any] = {}
        self.time = 1_700_000_000
        self.postcode = 0
        self.routes = [self.relation(self.route_tags(*r), []) for r in ROUTES]

    def next_id(self, kind: str) -> int:
        self.ids[kind] += self.rng.randint(1, 40)
        return self.ids[kind]

    def meta(self) -> dict[str, Any]:
        rng = self.rng
        if not self.changeset or self.changeset["changes_count"] >= rng.randint(6, 30):
            self.open_changeset()
        self.changeset["changes_count"] += 1
        return {
            "timestamp": self.changeset["closed_at"],
            "version": rng.choice([1, 1, 1, 2, 2, 3, 4, 7]),
            "changeset": self.changeset["id"],
            "user": self.changeset["user"],
            "uid": self.changeset["uid"],
        }

    def open_changeset(self) -> None:
        rng = self.rng
        self.time += rng.randint(20_000, 400_000)
        user, uid = rng.choice(PEOPLE)
        start = _iso(self.time)
        self.changeset = {
            "id": (self.changeset.get("id") or 71_400_000) + rng.randint(50, 9_000),
            "created_at": start,
            "closed_at": _iso(self.time + rng.randint(60, 3_000)),
            "open": False,
            "comments_count": 0,
            "changes_count": 0,
            "uid": uid,
            "user": user,
            "tags": {"comment": rng.choice(COMMENTS), "created_by": rng.choice(EDITORS)},
        }
        changesets(self.state).append(self.changeset)

    def node(self, lat: float, lon: float, tags: dict[str, str] | None = None) -> dict[str, Any]:
        node = {"type": "node", "id": self.next_id("node"), "lat": round(lat, 7)}
        node |= {"lon": round(lon, 7)} | self.meta() | ({"tags": tags} if tags else {})
        self.nodes.append(node)
        return node

    def way(self, nodes: list[int], tags: dict[str, str]) -> dict[str, Any]:
        way = {"type": "way", "id": self.next_id("way")} | self.meta()
        way |= {"nodes": nodes, "tags": tags}
        self.ways.append(way)
        return way

    def relation(self, tags: dict[str, str], members: list[dict[str, Any]]) -> dict[str, Any]:
        relation = {"type": "relation", "id": self.next_id("relation")} | self.meta()
        relation |= {"members": members, "tags": tags}
        self.relations.append(relation)
        return relation

    def route_tags(self, ref: str, start: str, end: str) -> dict[str, str]:
        return {
            "from": start,
            "name": f"Bus {ref}: {start} => {end}",
            "network": "Wessex",
            "operator": "Brimhaven Buses",
            "public_transport:version": "2",
            "ref": ref,
            "route": "bus",
            "to": end,
            "type": "route",
        }

    def street_name(self) -> str:
        stems = [w.title() for w in WORDS] + CITIES + LAST
        while True:
            name = f"{self.rng.choice(stems)} {self.rng.choice(SUFFIXES)}"
            if len(self.names) > 500:
                name = f"{self.rng.choice(['North', 'South', 'Upper', 'Lower'])} {name}"
            if name not in self.names:
                self.names.add(name)
                return name

    def add_street(self) -> None:
        rng = self.rng
        name = self.street_name()
        lat = rng.uniform(BOUNDS["minlat"] + 0.003, BOUNDS["maxlat"] - 0.003)
        lon = rng.uniform(BOUNDS["minlon"] + 0.005, BOUNDS["maxlon"] - 0.005)
        step = (rng.uniform(-0.0009, 0.0009), rng.uniform(-0.0012, 0.0012))
        vertices = [
            self.node(lat + step[0] * i, lon + step[1] * i) for i in range(rng.randint(3, 9))
        ]
        ids = [v["id"] for v in vertices]
        junction = None
        if self.streets and rng.random() < 0.5:
            other = rng.choice(self.streets)
            junction = rng.choice(other["nodes"][1:-1] or other["nodes"])
            ids.insert(0, junction)
        kind = rng.choice(HIGHWAYS)
        tags = {"highway": kind, "name": name, "maxspeed": rng.choice(["20 mph", "30 mph"])}
        tags |= {"surface": rng.choice(["asphalt", "asphalt", "paving_stones", "concrete"])}
        tags |= {"lit": rng.choice(["yes", "yes", "no"])}
        if kind in ("tertiary", "secondary"):
            tags |= {"lanes": "2", "ref": f"B{rng.randint(3001, 3099)}", "maxspeed": "40 mph"}
        if rng.random() < 0.15:
            tags["oneway"] = "yes"
        street = self.way(ids, dict(sorted(tags.items())))
        if junction is not None and rng.random() < 0.3:
            members = [{"type": "way", "ref": other["id"], "role": "from"}]
            members += [{"type": "node", "ref": junction, "role": "via"}]
            members += [{"type": "way", "ref": street["id"], "role": "to"}]
            turn = rng.choice(["no_left_turn", "no_right_turn", "no_u_turn", "only_straight_on"])
            self.relation({"restriction": turn, "type": "restriction"}, members)
        self.streets.append(street)
        self.postcode += 1
        letters = chr(65 + self.postcode % 26) + chr(65 + rng.randint(0, 25))
        postcode = f"SO41 {self.postcode % 9 + 1}{letters}"
        for number in sorted(rng.sample(range(1, 120), rng.randint(1, 4))):
            at = rng.choice(vertices)
            near = (at["lat"] + rng.uniform(-2e-4, 2e-4), at["lon"] + rng.uniform(-2e-4, 2e-4))
            address = {"addr:housenumber": str(number), "addr:postcode": postcode}
            address["addr:street"] = name
            if rng.random() < 0.3:
                self.building(near, address)
            else:
                self.node(*near, tags=poi(self.rng, address))
        if rng.random() < 0.45 or len(self.streets) <= len(self.routes):
            self.stop(street, rng.choice(vertices))

    def building(self, at: tuple[float, float], address: dict[str, str]) -> None:
        rng = self.rng
        d = rng.uniform(4e-5, 1.2e-4)
        corners = [(0, 0), (0, d), (d, d), (d, 0)]
        ring = [self.node(at[0] + a, at[1] + b)["id"] for a, b in corners]
        tags = {"building": rng.choice(["house", "detached", "retail", "apartments"])} | address
        tags["building:levels"] = str(rng.randint(1, 5))
        if rng.random() < 0.4:
            tags |= poi(self.rng, {})
        self.way([*ring, ring[0]], dict(sorted(tags.items())))

    def stop(self, street: dict[str, Any], at: dict[str, Any]) -> None:
        rng = self.rng
        tags = {"bus": "yes", "highway": "bus_stop", "name": street["tags"]["name"]}
        tags |= {"naptan:AtcoCode": f"1900HA{rng.randint(30000, 39999)}"}
        tags |= {"public_transport": "platform", "shelter": rng.choice(["yes", "no"])}
        stop = self.node(at["lat"] + 6e-5, at["lon"] - 6e-5, dict(sorted(tags.items())))
        count = len(self.streets)
        serving = [self.routes[count % len(self.routes)]] if count <= len(self.routes) else []
        serving = serving or rng.sample(self.routes, rng.randint(1, 2))
        for route in serving:
            route["members"].append({"type": "node", "ref": stop["id"], "role": "platform"})
            route["members"].append({"type": "way", "ref": street["id"], "role": ""})

    def assemble(self) -> None:
        self.state["map"]["elements"] = [*self.nodes, *self.ways, *self.relations]


def _iso(unix: int) -> str:
    return dt.datetime.fromtimestamp(unix, dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def town(rng: random.Random, target_bytes: int) -> State:
    """The town's map, streets added until the state is about ``target_bytes``."""
    state: State = {"map": ENVELOPE | {"bounds": BOUNDS, "elements": []}}
    state["changesets"] = {k: ENVELOPE[k] for k in ("version", "generator")} | {"changesets": []}
    state["user"] = ME | {"account_created": "2021-03-02T10:14:55Z"}
    maker = Town(rng, state)
    for _ in range(6):
        maker.add_street()

    def measure() -> int:
        return size_of([state, maker.nodes, maker.ways, maker.relations])

    fill(maker.add_street, measure, target_bytes)
    maker.assemble()
    return state
