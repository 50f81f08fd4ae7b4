"""A perturbation profile as JSON, as ``mcp-sim perturbations --json`` lists it."""

from __future__ import annotations

from mcp_sim.perturb.planner import BUILTIN_PROFILES


def test_a_profile_is_its_source_description_and_rules() -> None:
    flaky = BUILTIN_PROFILES["flaky"].as_json()
    assert flaky["source"] == "built-in" and "retry" in flaky["description"]
    assert [rule["kind"] for rule in flaky["rules"]] == ["error", "timeout"]
    assert "tools" not in flaky["rules"][0]  # defaults are left out
