"""The records a call's answer describes: the picked ones, a join's targets, a search's hits."""

from __future__ import annotations

from mcp_sim.prompting.answered_records import MOST_SEARCHED, answered_records, searched_records
from tests.prompting.test_link_joins import DESCRIPTION, charter_state, grounded, world_of


def test_a_joins_answer_describes_the_records_its_links_refer_to() -> None:
    world = world_of(charter_state("plain"), "boats_of_owner", DESCRIPTION)
    grounding = grounded(world, {"owner_id": "OW-1"})
    found = answered_records(grounding.picks, grounding.join)
    # The boats of owner 1's charters (1, 7, 13, ...: boat 7 * c % 60), not the charters.
    assert "/boats/7" in found and "/boats/49" in found
    assert not any(p.startswith("/charters/") for p in found)
    assert found[: len(grounding.picks)] == list(grounding.picks)
    assert len(found) == len(set(found))


def test_a_searchs_answer_describes_its_first_hits() -> None:
    world = world_of(charter_state("url"), "charters_of_owner", "An owner's charters.")
    grounding = grounded(world, {"owner_id": "OW-2"})
    assert grounding.searches
    found = searched_records(grounding.searches)
    assert found == grounding.searches[0].full[:MOST_SEARCHED]
    assert found[0] == "/charters/2"
