"""Links that reach the records a call asks for through records in between: a stop's stop
times name trips, the trips name routes, and ``routes_for_stop`` lists the routes."""

from __future__ import annotations

from typing import Any

from mcp_sim.prompting.link_rows import LinkRows
from mcp_sim.prompting.records_section import records_section
from tests.prompting.test_link_joins import grounded, world_of

DESCRIPTION = "The routes serving a stop, each once."


def feed() -> dict[str, Any]:
    """Routes; trips each on one route; stop times each of one trip at one stop (stop
    ``S{n}`` is served by the trips ``n % 7``, ``n % 7 + 7``, ...)."""
    routes = [{"route_id": f"R{r}", "long_name": f"Line {r}", "colour": f"C0{r}"} for r in range(6)]
    trips = [
        {"trip_id": f"TR{t:03d}", "route_id": f"R{t % 6}", "headsign": "North"} for t in range(70)
    ]
    stop_times = [
        {"trip_id": f"TR{t:03d}", "stop_id": f"S{s}", "arrival": f"0{s % 10}:{t % 60:02d}:00"}
        for t in range(70)
        for s in range(t % 7, 40, 7)
    ]
    return {"routes": routes, "trips": trips, "stop_times": stop_times}


def test_the_links_reach_the_records_asked_for_through_the_records_they_name() -> None:
    world = world_of(feed(), "routes_for_stop", DESCRIPTION)
    grounding = grounded(world, {"stop_id": "S3"})
    assert isinstance(grounding.join, LinkRows)
    join = grounding.join.join
    assert (join.links.pointer, join.targets.pointer) == ("/stop_times", "/routes")
    assert join.middle is not None and join.middle.collection.pointer == "/trips"
    assert (join.reference, join.middle.onward) == ("trip_id", "route_id")
    # Stop S3 is served by the trips 3, 10, 17, ...: routes 3, 4, 5, 0, 1, 2, 3, ...
    trips = range(3, 70, 7)
    assert [targets for _, targets in join.rows] == [[f"/routes/{t % 6}"] for t in trips]
    text = records_section(world.state, [], [], 9000, None, None, grounding.join)
    assert "by trip_id to /trips, whose route_id refers" in text
    assert '"long_name":"Line 3"' in text


def test_links_referring_to_the_records_asked_for_need_nothing_in_between() -> None:
    state = feed()
    for row in state["stop_times"]:
        row["route"] = f"R{int(row['trip_id'][2:]) % 6}"
    world = world_of(state, "routes_for_stop", DESCRIPTION)
    grounding = grounded(world, {"stop_id": "S3"})
    assert isinstance(grounding.join, LinkRows)
    assert grounding.join.join.middle is None
    assert grounding.join.join.reference == "route"
