"""Searches over a GeoJSON world nobody tuned for (a city's trees and parks): by distance from
a point, by bounding box, by the park a tree stands in (its polygon, holes and multipolygons
too), by a colon-namespaced key, and lookups of a feature by a ``type/id`` given in parts."""

from __future__ import annotations

from typing import Any

from mcp_sim.prompting.geo_arguments import read_place
from mcp_sim.prompting.grounding import ground
from mcp_sim.prompting.records_section import records_section
from mcp_sim.runtime.geometry import distance_km
from mcp_sim.runtime.state_index import StateIndex, StateOverlay
from mcp_sim.spec.world import ToolSpec, World

SPECIES = ["Linde", "Ahorn", "Eiche"]


def _square(west: float, south: float, east: float, north: float) -> list[list[float]]:
    return [[west, south], [east, south], [east, north], [west, north], [west, south]]


def _tree(n: int, lon: float, lat: float) -> dict[str, Any]:
    properties: dict[str, Any] = {"species": SPECIES[n % 3], "height_m": 5 + n % 17}
    if n % 7 == 0:
        properties["protected:heritage"] = "yes"
    return {
        "type": "Feature",
        "id": f"tree/{1000 + n}",
        "properties": properties,
        "geometry": {"type": "Point", "coordinates": [lon, lat]},
    }


def city() -> dict[str, Any]:
    """Parks (one with a pond cut out, one in two parts), then trees on a grid."""
    stadtpark = {
        "type": "Polygon",
        "coordinates": [
            _square(16.0, 48.0, 16.02, 48.02),
            _square(16.005, 48.005, 16.0101, 48.0101),
        ],
    }
    prater = {
        "type": "MultiPolygon",
        "coordinates": [[_square(16.05, 48.0, 16.06, 48.01)], [_square(16.07, 48.0, 16.08, 48.01)]],
    }
    parks = [
        {"type": "Feature", "id": f"park/{n}", "properties": {"park": name}, "geometry": shape}
        for n, (name, shape) in enumerate([("Stadtpark", stadtpark), ("Prater", prater)])
    ]
    trees = [
        _tree(i * 4 + j, round(16.0 + 0.0025 * i + 0.001, 6), round(48.0025 + 0.005 * j, 6))
        for i in range(40)
        for j in range(4)
    ]
    return {"type": "FeatureCollection", "features": parks + trees}


def world_of(state: dict[str, Any]) -> World:
    tools = [
        ("trees_near", "Trees within a radius of a point."),
        ("trees_in_box", "Trees inside a bounding box."),
        ("park_trees", "Trees of a species standing in a park."),
        ("get_tree", "One tree by kind and number."),
        ("protected_trees", "Trees under a protection of a kind."),
    ]
    return World.model_validate(
        {
            "world": "trees",
            "title": "Street trees",
            "description": "A city's trees and parks as GeoJSON.",
            "state": state,
            "tools": [
                {"name": n, "description": d, "input_schema": {"type": "object"}} for n, d in tools
            ],
        }
    )


def _overlay(world: World) -> StateOverlay:
    return StateIndex(world, world.state).overlay_of(world.state)


def _found(world: World, tool: ToolSpec | None, arguments: dict[str, Any]) -> list[str]:
    grounding = ground(_overlay(world), world.state, tool, arguments)
    return [p.pointer for p in grounding.picks.values() if p.complete]


def _trees(state: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [(f"/features/{n}", f) for n, f in enumerate(state["features"]) if n >= 2]


def test_a_radius_search_finds_the_trees_within_it_nearest_first_with_distances() -> None:
    world = world_of(city())
    arguments = {"lat": 48.0075, "lon": 16.021, "radius_km": 0.3}
    centre = (16.021, 48.0075)
    near = sorted(
        (distance_km(centre, tuple(f["geometry"]["coordinates"])), p)
        for p, f in _trees(world.state)
    )
    expected = [p for d, p in near if d <= 0.3]
    assert 2 <= len(expected) < 20
    found = _found(world, world.tool("trees_near"), arguments)
    assert found == expected
    grounding = ground(_overlay(world), world.state, world.tool("trees_near"), arguments)
    text = records_section(world.state, list(grounding.picks.values()), grounding.searches, 20_000)
    assert f"{expected[0]} {near[0][0]:.2f} km" in text
    lon, lat = world.state["features"][int(expected[0].rsplit("/", 1)[1])]["geometry"][
        "coordinates"
    ]
    assert f'(at {{"lat": {lat}, "lon": {lon}}})' in text


def test_a_bounding_box_selects_by_location_not_by_numeric_properties() -> None:
    world = world_of(city())
    box = [16.03, 48.004, 16.045, 48.013]
    expected = [
        p
        for p, f in _trees(world.state)
        if box[0] <= f["geometry"]["coordinates"][0] <= box[2]
        and box[1] <= f["geometry"]["coordinates"][1] <= box[3]
    ]
    assert expected
    assert _found(world, world.tool("trees_in_box"), {"bbox": box}) == expected
    as_text = ",".join(map(str, box))
    assert _found(world, world.tool("trees_in_box"), {"bbox": as_text}) == expected


def test_a_park_named_by_value_selects_the_trees_inside_its_polygon() -> None:
    world = world_of(city())

    def inside(lon: float, lat: float) -> bool:
        in_park = 16.0 <= lon <= 16.02 and 48.0 <= lat <= 48.02
        in_pond = 16.005 <= lon <= 16.0101 and 48.005 <= lat <= 48.0101
        return in_park and not in_pond

    expected = [
        p
        for p, f in _trees(world.state)
        if f["properties"]["species"] == "Linde" and inside(*f["geometry"]["coordinates"])
    ]
    grounding = ground(
        _overlay(world),
        world.state,
        world.tool("park_trees"),
        {"park": "Stadtpark", "species": "Linde"},
    )
    complete = [p.pointer for p in grounding.picks.values() if p.complete]
    assert complete == ["/features/0", *expected]  # the park itself is shown first
    text = records_section(world.state, list(grounding.picks.values()), grounding.searches, 30_000)
    assert "lies inside the area of /features/0" in text


def test_a_multipolygon_park_holds_the_trees_of_each_part() -> None:
    world = world_of(city())
    expected = [
        p
        for p, f in _trees(world.state)
        if f["properties"]["species"] == "Eiche"
        and 48.0 <= f["geometry"]["coordinates"][1] <= 48.01
        and any(w <= f["geometry"]["coordinates"][0] <= w + 0.01 for w in (16.05, 16.07))
    ]
    found = _found(world, world.tool("park_trees"), {"park": "Prater", "species": "Eiche"})
    assert found == ["/features/1", *expected]
    assert {int(p.rsplit("/", 1)[1]) for p in expected} > set()


def test_a_name_and_value_spelling_a_namespaced_key_select_its_holders() -> None:
    world = world_of(city())
    expected = [p for p, f in _trees(world.state) if "protected:heritage" in f["properties"]]
    found = _found(world, world.tool("protected_trees"), {"protected": "heritage"})
    assert found == expected


def test_a_feature_is_looked_up_by_its_type_and_number_given_apart() -> None:
    world = world_of(city())
    grounding = ground(
        _overlay(world), world.state, world.tool("get_tree"), {"kind": "tree", "number": 1017}
    )
    named = [p.pointer for p in grounding.picks.values() if p.reason == "named"]
    assert named == ["/features/19"]
    # Its park is known by geometry alone: the tree's point lies in the park's polygon.
    assert grounding.picks["/features/0"].reason == "linked"
    in_pond = ground(
        _overlay(world), world.state, world.tool("get_tree"), {"kind": "tree", "number": 1013}
    )
    assert [p.pointer for p in in_pond.picks.values()] == ["/features/15"]


def test_places_are_read_from_conventional_argument_shapes() -> None:
    assert read_place({"near": "48.2,16.3", "radius_m": 250}).centre == (16.3, 48.2)
    assert read_place({"near": "48.2,16.3", "radius_m": 250}).radius_km == 0.25
    assert read_place({"center": [16.3, 48.2]}).centre == (16.3, 48.2)
    assert read_place({"location": {"latitude": 1, "lng": 2}}).centre == (2.0, 1.0)
    edges = {"min_lat": 1, "max_lat": 2, "min_lon": 3, "max_lon": 4}
    assert read_place(edges).box == (3.0, 1.0, 4.0, 2.0)
    assert not read_place({"species": "Linde", "min_height": 4})
