"""Records holding a write's argument values: the ones holding the most first, a rare value
weighing more than a common one, within the collections a tool's hints say it reads."""

from __future__ import annotations

from typing import Any

from mcp_sim.prompting.value_matches import value_matches
from mcp_sim.runtime.state_index import StateIndex
from mcp_sim.runtime.state_shape import normalize
from mcp_sim.spec.world import World


def ticket_world(grounding: dict[str, Any] | None = None) -> World:
    teams = ["core", "web", "data"]
    tickets = [
        {"ref": f"T-{n}", "team": teams[n % 3], "owner": f"user{n % 7}", "title": f"Job {n}"}
        for n in range(60)
    ]
    notes = [{"ref": f"N-{n}", "owner": f"user{n % 7}", "text": "note"} for n in range(20)]
    tool: dict[str, Any] = {
        "name": "reassign",
        "description": "Reassign a team's work.",
        "effect": "write",
        "input_schema": {"type": "object"},
    }
    if grounding is not None:
        tool["grounding"] = grounding
    return World.model_validate(
        {
            "world": "t",
            "title": "T",
            "description": "Tickets.",
            "state": {"tickets": tickets, "notes": notes},
            "tools": [tool],
        }
    )


def labels(*values: str) -> list[str]:
    return [label for v in values if (label := normalize(v)) is not None]


def test_records_holding_more_values_come_first_and_rare_values_weigh_more() -> None:
    world = ticket_world()
    overlay = StateIndex(world, world.state).overlay_of(world.state)
    arguments = {"team": "web", "owner": "user1"}
    found = value_matches(overlay, world.tools[0], arguments, labels("web", "user1"))
    both = [m.pointer for m in found if m.count == 2]
    # Tickets 1, 22, 43 (n % 3 == 1 and n % 7 == 1) hold both values.
    assert both == ["/tickets/1", "/tickets/22", "/tickets/43"]
    assert found[: len(both)] == [m for m in found if m.count == 2]
    # Of the records holding one value, the rarer owner's come before the team's.
    one = [m.pointer for m in found if m.count == 1]
    assert one.index("/notes/1") < one.index("/tickets/4")
    assert found[0].places == {"/team", "/owner"}


def test_a_tools_hints_keep_the_collections_it_reads() -> None:
    world = ticket_world({"reads": ["/notes"]})
    overlay = StateIndex(world, world.state).overlay_of(world.state)
    found = value_matches(overlay, world.tools[0], {"owner": "user1"}, labels("user1"))
    assert found and all(m.pointer.startswith("/notes/") for m in found)
