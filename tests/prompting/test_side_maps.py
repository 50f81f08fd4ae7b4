"""Field labels a state keeps in a side map beside its records, as a Jira search answered with
``expand=names`` keeps ``"customfield_10016": "Story point estimate"`` apart from the issues."""

from __future__ import annotations

from typing import Any

from mcp_sim.prompting.grounding import ground
from mcp_sim.prompting.side_maps import side_maps
from mcp_sim.prompting.state_view import StateView
from mcp_sim.runtime.state_index import StateIndex
from mcp_sim.spec.world import World

NAMES = {
    "summary": "Summary",
    "status": "Status",
    "issuetype": "Issue Type",
    "customfield_10016": "Story point estimate",
    "customfield_10031": "Business value",
}


def issue(n: int) -> dict[str, Any]:
    """Points and business value range alike: only the labels tell which is which."""
    fields: dict[str, Any] = {"summary": f"Task {n}", "issuetype": "Story"}
    fields |= {"status": ["To Do", "Done"][n % 2]}
    fields |= {"customfield_10016": n % 13, "customfield_10031": (n * 7) % 13}
    return {"key": f"PAY-{n}", "fields": fields}


def site(extra: dict[str, Any] | None = None) -> World:
    state = {"names": NAMES, "issues": [issue(n) for n in range(400)]} | (extra or {})
    return World.model_validate(
        {
            "world": "t",
            "title": "T",
            "description": "Issues.",
            "state": state,
            "tools": [
                {
                    "name": "search_issues",
                    "description": "Issues by status and story points.",
                    "input_schema": {"type": "object"},
                }
            ],
        }
    )


def test_a_map_naming_most_record_fields_labels_the_opaque_ones() -> None:
    world = site({"defaults": {"summary": "Untitled", "status": "To Do", "issuetype": "Task"}})
    index = StateIndex(world, world.state)
    found = side_maps(index.state, index.collections)
    assert list(found) == ["/issues"]
    assert found["/issues"].pointer == "/names"
    assert found["/issues"].labels == {
        "customfield_10016": "Story point estimate",
        "customfield_10031": "Business value",
    }


def test_an_argument_named_by_a_label_constrains_the_field_it_labels() -> None:
    world = site()
    overlay = StateIndex(world, world.state).overlay_of(world.state)
    arguments = {"status": "Done", "min_points": 11}
    grounding = ground(overlay, world.state, world.tool("search_issues"), arguments)
    said = "; ".join(c.describe() for s in grounding.searches for c in s.constraints)
    assert "fields/customfield_10016 ≥ 11" in said
    assert "customfield_10031" not in said


def test_the_view_labels_the_opaque_keys_of_the_records_shown_once() -> None:
    world = site()
    text = StateView(world, budget_tokens=3000).render(
        world.state, None, [], tool=world.tool("search_issues"), arguments={"status": "Done"}
    )
    assert text.count("- Field labels (from /names):") == 1
    assert 'customfield_10016 = "Story point estimate"' in text


def test_a_state_without_a_side_map_gets_no_labels() -> None:
    world = site({"names": {"a": "x"}})
    text = StateView(world, budget_tokens=3000).render(
        world.state, None, [], tool=world.tool("search_issues"), arguments={"status": "Done"}
    )
    assert "Field labels" not in text
