"""Values written with a URI scheme answer to their bare value too."""

from __future__ import annotations

from mcp_sim.runtime.state_index import StateIndex
from mcp_sim.runtime.uri_schemes import unschemed
from mcp_sim.spec.world import World


def test_a_scheme_prefixed_value_names_its_value_without_the_scheme_words() -> None:
    assert unschemed("mailto:ana@example.org") == "ana@example.org"
    assert unschemed("tel:+47-22-00-00-00") == "+47-22-00-00-00"
    assert unschemed("urn:isbn:0451450523") == "0451450523"


def test_urls_times_drives_and_prose_are_not_scheme_prefixed_values() -> None:
    for value in ("https://example.org/a", "T10:30", "10:30", "C:/temp", "Note: hi", "a@b.org"):
        assert unschemed(value) is None


def test_a_record_holding_a_mailto_uri_is_indexed_under_the_bare_address() -> None:
    people = [{"cn": f"P{i}", "value": f"mailto:p{i}@example.org"} for i in range(3)]
    meetings = [{"uid": f"m-{i}", "organizer": people[i]} for i in range(3)]
    state = {"meetings": meetings}
    tool = {"name": "get_meeting", "description": "A meeting.", "input_schema": {"type": "object"}}
    world = World.model_validate(
        {"world": "t", "title": "T", "description": "Meetings.", "state": state, "tools": [tool]}
    )
    index = StateIndex(world, state)
    assert index.values["p1@example.org"] == {"/meetings/1": "/organizer/value"}
