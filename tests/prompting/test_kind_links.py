"""Joins within one collection: the records found, each followed by the record of their own
collection they refer to, when the tool asks for a kind a field's value names (an issue's
epic)."""

from __future__ import annotations

from typing import Any

from mcp_sim.prompting.grounding import Grounding, ground
from mcp_sim.prompting.link_rows import LinkRows
from mcp_sim.runtime.state_index import StateIndex
from mcp_sim.spec.world import World


def world_of(state: dict[str, Any], tool: str, description: str) -> World:
    return World.model_validate(
        {
            "world": "t",
            "title": "T",
            "description": "A hand-made state.",
            "state": state,
            "tools": [
                {"name": tool, "description": description, "input_schema": {"type": "object"}}
            ],
        }
    )


def grounded(world: World, tool: str, arguments: dict[str, Any]) -> Grounding:
    index = StateIndex(world, world.state)
    return ground(index.overlay_of(world.state), world.state, world.tool(tool), arguments)


def tracker_state() -> dict[str, Any]:
    """Ten epics, then stories and bugs each naming its epic by key; numeric ids and a status
    id that equal other issues' ids by chance."""
    issues: list[dict[str, Any]] = []
    for n in range(1, 121):
        epic = n <= 10
        issues.append(
            {
                "id": str(10000 + n),
                "key": f"APP-{n}",
                "self": f"https://jira.example/rest/api/3/issue/{10000 + n}",
                "fields": {
                    "summary": f"Summary {n}",
                    "issuetype": {"name": "Epic" if epic else ["Story", "Bug", "Task"][n % 3]},
                    "status": {"id": str(10001 + n % 3), "name": ["To Do", "Done", "Doing"][n % 3]},
                    "assignee": {"displayName": ["Ana Berg", "Omar Xu"][n % 2]},
                    "epic": None if epic else f"APP-{n % 10 + 1}",
                },
            }
        )
    return {"issues": issues}


def test_an_issues_epics_are_its_own_collections_records_it_refers_to() -> None:
    world = world_of(tracker_state(), "assignee_epics", "The epics a person's issues belong to.")
    grounding = grounded(world, "assignee_epics", {"assignee": "Ana Berg"})
    assert isinstance(grounding.join, LinkRows)
    join = grounding.join.join
    assert join.links.pointer == join.targets.pointer == "/issues"
    assert join.reference == "fields/epic"
    issues = world.state["issues"]
    for link, targets in join.rows:
        issue = issues[int(link.rsplit("/", 1)[1])]
        assert issue["fields"]["assignee"]["displayName"] == "Ana Berg"
        epic = issue["fields"]["epic"]
        # An epic refers to none: not to itself by its own key, id or ``self`` URL.
        keys = [issues[int(t.rsplit("/", 1)[1])]["key"] for t in targets]
        assert keys == ([epic] if epic else [])


def test_a_kind_no_field_names_joins_nothing() -> None:
    world = world_of(tracker_state(), "assignee_sagas", "The sagas a person's issues belong to.")
    grounding = grounded(world, "assignee_sagas", {"assignee": "Ana Berg"})
    assert grounding.join is None
