"""A search's focus per record, found once per call (``SearchResult.focused``)."""

from __future__ import annotations

from mcp_sim.prompting.field_search import FieldSearch
from tests.prompting.test_field_search import flights_state, overlay_of, world_of


def test_a_records_focus_is_found_once_and_given_as_a_copy() -> None:
    world = world_of(flights_state(), ("search_flights", "Flights."))
    tool = world.tool("search_flights")
    result, *_ = FieldSearch(overlay_of(world), world.state).search(tool, {"date": "2025-05-03"})
    record = world.state["flights"]["FL001"]
    focus = result.focus_of("/flights/FL001", record)
    assert focus == {"/dates/2025-05-03"}
    focus.add("/elsewhere")  # a caller's set of its own: the one kept is not changed
    # The second reading is the one kept (the record is not walked again), as it was found.
    assert result.focus_of("/flights/FL001", {}) == {"/dates/2025-05-03"}
    assert result.focused == {"/flights/FL001": frozenset({"/dates/2025-05-03"})}


def test_an_equalitys_labels_are_read_once_per_constraint() -> None:
    world = world_of(flights_state(), ("search_flights", "Flights."))
    tool = world.tool("search_flights")
    result, *_ = FieldSearch(overlay_of(world), world.state).search(tool, {"date": "2025-05-03"})
    assert result.places is not None
    (constraint,) = result.constraints
    for pointer in ("/flights/FL001", "/flights/FL002"):
        assert result.places.of(pointer, "dates/#", constraint) == ["/dates/2025-05-03"]
    assert list(result.places.labels.values()) == [(constraint, {"2025-05-03"})]
