"""The steps a record's entries make straight from one place to the next, named as the tool's
description names what happened at each (a train that left one station and reached another)."""

from __future__ import annotations

from itertools import pairwise
from typing import Any

from mcp_sim.prompting.grounding import ground
from mcp_sim.prompting.movement_times import Steps
from mcp_sim.prompting.records_section import records_section
from mcp_sim.runtime.state_index import StateIndex
from mcp_sim.spec.world import World

STATIONS = ["Arden", "Brill", "Corwen", "Dunmore", "Elgin"]


def stops(t: int) -> list[dict[str, Any]]:
    """A train's log: it reaches and leaves each station of its route in turn; every third
    train is held at Brill (``HELD``), so it never leaves Brill straight for Corwen."""
    route = STATIONS[t % 2 :] if t % 2 else STATIONS
    log: list[dict[str, Any]] = []
    for n, station in enumerate(route):
        hour = f"2025-04-{t % 28 + 1:02d}T{6 + n * 2:02d}:15"
        log.append({"when": hour, "event": "REACHED", "station": station})
        left = "HELD" if station == "Brill" and t % 3 == 0 else "LEFT"
        log.append({"when": hour.replace(":15", ":40"), "event": left, "station": station})
    return log


def train_world() -> World:
    trains = {f"IC{700 + t}": {"operator": "Rail", "stops": stops(t)} for t in range(30)}
    tool = {
        "name": "segment_trains",
        "description": "Trains that left one station and then reached another.",
        "input_schema": {
            "type": "object",
            "properties": {"from_station": {"type": "string"}, "to_station": {"type": "string"}},
        },
    }
    return World.model_validate(
        {
            "world": "t",
            "title": "T",
            "description": "A hand-made railway.",
            "state": {"trains": trains},
            "tools": [tool],
        }
    )


def test_each_step_between_the_two_places_is_shown_with_its_named_times() -> None:
    world = train_world()
    index = StateIndex(world, world.state)
    arguments = {"from_station": "Brill", "to_station": "Corwen"}
    grounding = ground(
        index.overlay_of(world.state), world.state, world.tool("segment_trains"), arguments
    )
    assert isinstance(grounding.join, Steps)
    text = records_section(world.state, [], grounding.searches, 9000, None, None, grounding.join)
    expected = []
    for key, train in world.state["trains"].items():
        for left, right in pairwise(train["stops"]):
            if (left["event"], left["station"], right["station"]) == ("LEFT", "Brill", "Corwen"):
                expected.append(
                    f'- /trains/{key} {{"left":"{left["when"]}","reached":"{right["when"]}"}}'
                )
    assert len(expected) == 20
    rows = [line for line in text.splitlines() if line.startswith("- /trains/") and "{" in line]
    assert [r for r in rows if r in expected] == expected
    assert "- Steps: 20 steps of the 30 records of /trains" in text
