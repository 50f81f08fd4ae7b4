"""GeoJSON geometry read by its standard's structure: [lon, lat] order, polygons with holes,
multipolygons, boxes across the antimeridian, great-circle distances."""

from __future__ import annotations

import math

import pytest

from mcp_sim.runtime.geometry import (
    bounds,
    covers,
    distance_km,
    geometry_of,
    in_box,
    is_geometry,
    location,
)

SQUARE = [[0.0, 0.0], [4.0, 0.0], [4.0, 4.0], [0.0, 4.0], [0.0, 0.0]]
HOLE = [[1.0, 1.0], [2.0, 1.0], [2.0, 2.0], [1.0, 2.0], [1.0, 1.0]]


def test_a_polygon_with_a_hole_covers_its_ring_but_not_the_hole() -> None:
    polygon = {"type": "Polygon", "coordinates": [SQUARE, HOLE]}
    assert covers(polygon, (3.0, 3.0))
    assert not covers(polygon, (1.5, 1.5))
    assert not covers(polygon, (5.0, 1.0))


def test_a_multipolygon_covers_each_of_its_parts() -> None:
    far = [[[10.0, 10.0], [11.0, 10.0], [11.0, 11.0], [10.0, 10.0]]]
    multi = {"type": "MultiPolygon", "coordinates": [[SQUARE], far]}
    assert covers(multi, (10.8, 10.2)) and covers(multi, (0.5, 3.5))
    assert not covers(multi, (7.0, 7.0))
    assert not covers({"type": "Point", "coordinates": [0.5, 0.5]}, (0.5, 0.5))


def test_positions_are_longitude_then_latitude() -> None:
    berlin = {"type": "Point", "coordinates": [13.405, 52.52]}
    paris = {"type": "Point", "coordinates": [2.3522, 48.8566]}
    assert location(berlin) == (13.405, 52.52)
    assert distance_km(location(berlin) or (0, 0), location(paris) or (0, 0)) == pytest.approx(
        878, abs=5
    )
    # A degree of latitude is about 111 km anywhere.
    assert distance_km((5.0, 52.0), (5.0, 53.0)) == pytest.approx(111.2, abs=0.5)
    assert math.isclose(distance_km((1.0, 2.0), (1.0, 2.0)), 0.0)


def test_an_area_is_located_at_the_middle_of_its_outer_ring() -> None:
    polygon = {"type": "Polygon", "coordinates": [SQUARE, HOLE]}
    assert location(polygon) == (2.0, 2.0)
    assert bounds(polygon) == (0.0, 0.0, 4.0, 4.0)


def test_boxes_are_west_south_east_north_and_may_cross_the_antimeridian() -> None:
    assert in_box((5.1, 52.2), (5.0, 52.0, 5.2, 52.3))
    assert not in_box((52.2, 5.1), (5.0, 52.0, 5.2, 52.3))
    assert in_box((179.5, 0.0), (179.0, -1.0, -179.0, 1.0))
    assert in_box((-179.5, 0.0), (179.0, -1.0, -179.0, 1.0))
    assert not in_box((0.0, 0.0), (179.0, -1.0, -179.0, 1.0))


def test_features_and_geometries_are_told_by_the_standard_structure() -> None:
    point = {"type": "Point", "coordinates": [1.0, 2.0]}
    assert is_geometry(point) and not is_geometry({"type": "Point"})
    assert geometry_of({"type": "Feature", "properties": {}, "geometry": point}) == point
    assert geometry_of({"type": "Feature", "properties": {}, "geometry": None}) is None
    assert geometry_of({"kind": "Feature", "geometry": point}) is None
