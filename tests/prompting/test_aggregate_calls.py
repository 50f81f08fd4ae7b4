"""Which tools answer with a summary: a description listing a statistic as an item, or one
thing's collections mostly in the plural; not one record's fields, nor a search's criteria."""

from __future__ import annotations

import pytest

from mcp_sim.prompting.aggregate_calls import is_aggregate, lists_statistics
from mcp_sim.spec.world import ToolSpec


def _tool(name: str, description: str) -> ToolSpec:
    spec = {"name": name, "description": description, "input_schema": {"type": "object"}}
    return ToolSpec.model_validate(spec)


@pytest.mark.parametrize(
    "description",
    [
        "A channel's month: messages, threads, replies, posters and reactions.",
        "An operator's stations, charge points, socket types and free stations.",
        "A team's servers (count, running, types, root GiB) and databases (count, GiB).",
        "A sprint's issues: count, story points committed and completed, and the assignees.",
    ],
)
def test_a_description_listing_what_a_summary_answers_asks_for_one(description: str) -> None:
    assert lists_statistics(description.lower())
    assert is_aggregate(_tool("team_footprint", description))


@pytest.mark.parametrize(
    "description",
    [
        "A pod's node, phase, IP, restarts, image and resource requests.",
        "A directory's entries: name, type, size of files.",
        "Vehicles by fuel, depot, odometer range, make prefix or tag.",
        "A hotel's reservations by guests, rooms and nights.",
        "An account's details.",
    ],
)
def test_one_records_fields_or_a_searchs_criteria_ask_for_none(description: str) -> None:
    assert not is_aggregate(_tool("get_pod", description))
