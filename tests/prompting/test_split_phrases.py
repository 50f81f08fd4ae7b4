"""The phrases saying what a tool splits its records by, read from its description, name,
arguments and output schema, and "by" that says how a search finds or orders records read as
no split; with each described phrase, the words of what it splits."""

from __future__ import annotations

from typing import Any

from mcp_sim.prompting.split_phrases import measured, split_phrases
from mcp_sim.spec.world import ToolSpec


def _tool(name: str, description: str, **more: Any) -> ToolSpec:
    return ToolSpec.model_validate(
        {"name": name, "description": description, "input_schema": {"type": "object"}} | more
    )


def test_the_phrases_after_per_and_by_name_the_splits_and_a_search_s_criteria_do_not() -> None:
    report = _tool(
        "sprint_report", "A sprint's issues: count, issues per status and the assignees."
    )
    assert split_phrases(report, {}) == [("status",)]
    both = _tool("stats", "A playlist's figures: tracks per release decade and album type.")
    assert split_phrases(both, {}) == [("release", "decade"), ("album", "type")]
    found = _tool("find_accounts", "Accounts by branch, currency, product and opening date.")
    assert split_phrases(found, {}) == []
    ordered = _tool("top_stats", "Totals of the teams, sorted by points.")
    assert split_phrases(ordered, {}) == []
    assert split_phrases(_tool("issues_by_status", "Issue counts."), {}) == [("status",)]
    assert split_phrases(_tool("count_issues", "Issue counts."), {"group_by": "priority"}) == [
        ("priority",)
    ]
    schema = {"type": "object", "properties": {"by_state": {"type": "object"}}}
    assert split_phrases(_tool("issue_stats", "Figures.", output_schema=schema), {}) == [("state",)]


def test_what_a_phrase_splits_decides_between_counts_and_totals() -> None:
    measures = measured(_tool("t", "Files: count and bytes in all, per type and per owner; links"))
    assert measures[("type",)] >= {"bytes"}
    assert measures[("owner",)] == measures[("type",)]
    tracks = measured(_tool("t", "A playlist's figures: total duration, tracks per decade"))
    assert "duration" not in tracks[("decade",)]
