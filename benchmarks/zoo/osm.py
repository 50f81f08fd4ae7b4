"""``osm``: a town's OpenStreetMap data as the editing API's ``map.json`` answers it: one
``elements`` array of nodes, ways and relations with their version, changeset and mapper;
string-valued tags, absent where none are mapped; positions held by nodes alone, streets and
buildings as ways listing node ids, bus routes and turn restrictions as relations of typed
member references with roles; the changesets of the last edits beside it. Tools are API 0.6
reads (an element, a way with its nodes, the relations an element is in, the ways through a
node), an Overpass API taking Overpass QL (tag filters, ``out count``, ``make stat``, ``for``
loops grouping by a tag), and edits that check the version read and open a changeset."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from benchmarks.zoo.kit import Planned, State, Tool, note_tool, prop
from benchmarks.zoo.osm_api import (
    create_node,
    get_element,
    get_relations_of,
    get_way_full,
    get_ways_of_node,
    update_tags,
)
from benchmarks.zoo.osm_map import elements, town
from benchmarks.zoo.osm_overpass import overpass, query
from benchmarks.zoo.osm_tags import CUISINES, FOOD, HOURS
from benchmarks.zoo.shape import Shape

TYPE = prop("string", "Element type.", enum=["node", "way", "relation"])
ID = prop("integer", "Element id.")
HEADER = "[out:json][timeout:25];\n"


def _pois(state: State) -> list[dict[str, Any]]:
    return [
        e for e in elements(state) if "name" in e.get("tags", {}) and "addr:street" in e["tags"]
    ]


def _of(state: State, kind: str, key: str) -> list[dict[str, Any]]:
    return [e for e in elements(state) if e["type"] == kind and key in e.get("tags", {})]


def _constraints(rng: random.Random, element: dict[str, Any]) -> list[str]:
    """Overpass filters that ``element`` meets, beyond its main tag, shuffled."""
    tags = element["tags"]
    keys = ("cuisine", "wheelchair", "fee", "addr:street", "addr:postcode", "outdoor_seating")
    found = [f'["{k}"="{tags[k]}"]' for k in keys if k in tags]
    found.append(f'["name"~"^{tags["name"][: rng.randint(3, 7)]}"]')
    found += [f'["{k}"]' for k in ("opening_hours", "phone") if k in tags]
    for key in ("capacity", "building:levels"):
        if key in tags:
            found.append(f'(if: t["{key}"] >= {max(0, int(tags[key]) - rng.randint(0, 10))})')
    if element["type"] == "node":
        d = rng.choice([0.002, 0.005, 0.01])
        box = (element["lat"] - d, element["lon"] - d, element["lat"] + d, element["lon"] + d)
        found.append("({:.4f},{:.4f},{:.4f},{:.4f})".format(*box))
    rng.shuffle(found)
    return found


class Osm(Shape):
    name = "osm"
    title = "Mapping assistant over OpenStreetMap"
    description = (
        "The OpenStreetMap data of Brimhaven (a coastal town): its streets, buildings, shops, "
        "amenities, bus stops, bus routes and turn restrictions, as API 0.6 serves them, with "
        "the changesets they were last edited in. Edits are made as the account "
        "brimhaven_council_gis. Errors are text starting with 'Error:'."
    )
    note = ("add_survey_note", "note")

    def build(self, rng: random.Random, target_bytes: int) -> State:
        return town(rng, target_bytes)

    def tools(self) -> list[Tool]:
        element = {"type": TYPE, "id": ID}
        tags = prop("object", "Tags to set (string values); a null value deletes the tag.")
        return [
            Tool(
                "get_element", "GET /api/0.6/{type}/{id}.json", element, get_element, ("type", "id")
            ),
            Tool(
                "get_way_full",
                "GET /api/0.6/way/{id}/full.json: a way and every node it uses.",
                {"id": ID},
                get_way_full,
                ("id",),
            ),
            Tool(
                "get_relations_of",
                "GET /api/0.6/{type}/{id}/relations.json: relations the element is a member of.",
                element,
                get_relations_of,
                ("type", "id"),
            ),
            Tool(
                "get_ways_of_node",
                "GET /api/0.6/node/{id}/ways.json: the ways that use a node.",
                {"id": ID},
                get_ways_of_node,
                ("id",),
            ),
            Tool(
                "overpass",
                "Run an Overpass QL query on the Overpass API (POST /api/interpreter).",
                {"data": prop("string", "The Overpass QL query, with [out:json].")},
                overpass,
                ("data",),
            ),
            Tool(
                "update_tags",
                "Change an element's tags in a new changeset; the version must be the one read.",
                element
                | {"version": prop("integer", "The element's current version."), "tags": tags}
                | {"comment": prop("string", "Changeset comment.")},
                update_tags,
                ("type", "id", "version", "tags"),
                effect="write",
            ),
            Tool(
                "create_node",
                "Add a tagged node in a new changeset; answers its new id.",
                {"lat": prop("number", "Latitude."), "lon": prop("number", "Longitude.")}
                | {"tags": prop("object", "Tags (string values)."), "comment": prop("string", "")},
                create_node,
                ("lat", "lon", "tags"),
                effect="write",
            ),
            note_tool(
                "add_survey_note", "note", "Keep a note for the next survey (answers nothing)."
            ),
        ]

    def lookup(self, rng: random.Random, state: State) -> Planned:
        pool = rng.choice(
            [
                _pois(state),
                _of(state, "node", "highway"),
                _of(state, "way", "highway"),
                _of(state, "relation", "route"),
            ]
        )
        chosen = rng.choice(pool)
        return Planned("lookup", "get_element", {"type": chosen["type"], "id": chosen["id"]})

    def nested_lookup(self, rng: random.Random, state: State) -> Planned:
        pool = _of(state, "way", rng.choice(["highway", "building"]))
        return Planned("nested_lookup", "get_way_full", {"id": rng.choice(pool)["id"]})

    def search(self, rng: random.Random, state: State) -> Planned:
        element = rng.choice(_pois(state))
        main = "amenity" if "amenity" in element["tags"] else "shop"
        selector = element["type"] if rng.random() < 0.6 else "nwr"
        chosen = [f'["{main}"="{element["tags"][main]}"]']
        wanted = rng.randint(1, 4)
        for extra in _constraints(rng, element):
            if len(chosen) >= wanted and len(query(state, selector + "".join(chosen))) <= 10:
                break
            chosen.append(extra)
        out = rng.choice(["out;", "out tags;", "out meta;"])
        return Planned(
            "search", "overpass", {"data": f"{HEADER}{selector}{''.join(chosen)};\n{out}"}
        )

    def join(self, rng: random.Random, state: State) -> Planned:
        roll = rng.random()
        if roll < 0.5:
            stop = rng.choice(_of(state, "node", "highway"))
            return Planned("join", "get_relations_of", {"type": "node", "id": stop["id"]})
        if roll < 0.75:
            members = [m for r in _of(state, "relation", "type") for m in r["members"]]
            way = rng.choice([m for m in members if m["type"] == "way"])
            return Planned("join", "get_relations_of", {"type": "way", "id": way["ref"]})
        uses = Counter(n for w in _of(state, "way", "highway") for n in set(w["nodes"]))
        shared = sorted(n for n, c in uses.items() if c > 1) or sorted(uses)
        return Planned("join", "get_ways_of_node", {"id": rng.choice(shared)})

    def aggregate(self, rng: random.Random, state: State) -> Planned:
        street = rng.choice(_of(state, "way", "highway"))["tags"]["name"]
        amenity = rng.choice(["restaurant", "cafe", "pub", "fast_food"])
        queries = [
            f'nwr["amenity"="{rng.choice(sorted(FOOD | {"pharmacy", "bank"}))}"];\nout count;',
            f'node["shop"]["addr:street"="{street}"];\nout count;',
            f'nwr["amenity"="{amenity}"];\nfor (t["cuisine"]) {{ make stat cuisine=_.val, '
            "count=count(nwr); out; }",
            'way["highway"];\nfor (t["maxspeed"]) { make stat maxspeed=_.val, '
            "streets=count(ways); out; }",
            'node["shop"];\nfor (t["shop"]) { make stat shop=_.val, count=count(nodes); out; }',
            f'nwr["amenity"="{rng.choice(["parking", "bicycle_parking"])}"];\nmake stat '
            'places=count(nwr), spaces=sum(t["capacity"]), largest=max(t["capacity"]); out;',
            f'way["building"]["addr:street"="{street}"];\nmake stat buildings=count(ways), '
            'uses=set(t["building"]), tallest=max(t["building:levels"]); out;',
            f'nwr["amenity"]["addr:street"="{street}"];\nmake stat places=count(nwr), '
            'kinds=set(t["amenity"]); out;',
        ]
        return Planned("aggregate", "overpass", {"data": HEADER + rng.choice(queries)})

    def write(self, rng: random.Random, state: State) -> tuple[Planned, Planned]:
        roll = rng.random()
        if roll < 0.2:
            street = rng.choice(_of(state, "way", "highway"))
            ids = set(street["nodes"])
            vertex = next(e for e in elements(state) if e["type"] == "node" and e["id"] in ids)
            tags = rng.choice(
                [
                    {"amenity": "bench", "backrest": "yes"},
                    {"amenity": "post_box", "ref": "SO41 88"},
                    {"amenity": "cafe", "name": "Harbour Kiosk", "cuisine": "coffee_shop"},
                ]
            )
            args = {"lat": round(vertex["lat"] + 4e-5, 7), "lon": round(vertex["lon"] + 4e-5, 7)}
            args |= {"tags": tags, "comment": "Added from survey"}
            new = max(e["id"] for e in elements(state) if e["type"] == "node") + 1
            return Planned("write", "create_node", args), Planned(
                "read_after_write", "get_element", {"type": "node", "id": new}
            )
        if roll < 0.4:
            element = rng.choice(_of(state, "way", "highway"))
            tags = {"maxspeed": rng.choice(["20 mph", "30 mph", "40 mph"]), "lit": "yes"}
        else:
            element = rng.choice(_pois(state))
            choices: dict[str, Any] = {
                "opening_hours": rng.choice(HOURS),
                "wheelchair": rng.choice(["yes", "no", "limited"]),
                "phone": f"+44 1590 {rng.randint(700000, 799999)}",
                "check_date": "2026-11-20",
            }
            if element["tags"].get("amenity") in FOOD:
                choices["cuisine"] = rng.choice(CUISINES)
                choices["outdoor_seating"] = None
            picked = rng.sample(sorted(choices), rng.randint(1, 3))
            if all(choices[k] is None for k in picked):
                picked.append("check_date")
            tags = {k: choices[k] for k in picked}
        args = {"type": element["type"], "id": element["id"], "version": element["version"]}
        args |= {"tags": tags, "comment": "Survey update"}
        return Planned("write", "update_tags", args), Planned(
            "read_after_write", "get_element", {"type": element["type"], "id": element["id"]}
        )

    def no_match(self, rng: random.Random, state: State) -> Planned:
        street = rng.choice(_of(state, "way", "highway"))["tags"]["name"]
        data = rng.choice(
            [
                'nwr["amenity"="casino"];\nout;',
                f'node["cuisine"="ethiopian"]["addr:street"="{street}"];\nout tags;',
                'way["highway"]["maxspeed"="70 mph"];\nout;',
            ]
        )
        return Planned("empty", "overpass", {"data": HEADER + data})
