"""Records whose own array of keys lists the record a call names (``boats_listing_owner``):
a search on the array the tool's description names, not the links to the named record."""

from __future__ import annotations

from typing import Any

from mcp_sim.prompting.field_search import FieldSearch
from mcp_sim.runtime.state_index import StateIndex
from tests.prompting.test_link_joins import DESCRIPTION, charter_state, world_of


def membered_state(array: str = "member_ids") -> dict[str, Any]:
    """The charter state with an array of owners' keys in each boat that no charter agrees
    with (boat ``b`` lists owners ``b % 5`` and ``(b + 1) % 5``)."""
    state = charter_state("plain")
    for b, boat in enumerate(state["boats"]):
        boat[array] = [f"OW-{b % 5}", f"OW-{(b + 1) % 5}"]
    return state


def searched(
    state: dict[str, Any], tool: str, description: str, arguments: dict[str, Any] | None = None
) -> list[Any]:
    world = world_of(state, tool, description)
    index = StateIndex(world, world.state)
    search = FieldSearch(index.overlay_of(world.state), world.state)
    return search.search(world.tools[0], arguments or {"owner_id": "OW-2"})


def test_the_array_the_description_names_decides_the_records_listed() -> None:
    for array, said in (("member_ids", "member_ids"), ("ownerKeys", "owner keys")):
        found = searched(
            membered_state(array),
            "boats_listing_owner",
            f"The boats whose {said} include an owner.",
        )
        assert [r.collection.pointer for r in found] == ["/boats"]
        assert found[0].through is None
        listing = [b for b in range(60) if 2 in (b % 5, (b + 1) % 5)]
        assert found[0].full == [f"/boats/{b}" for b in listing]


def test_a_description_naming_no_array_follows_the_links() -> None:
    found = searched(membered_state(), "boats_of_owner", DESCRIPTION)
    assert found[0].collection.pointer == "/charters"
    assert found[0].through is not None
    assert found[0].through.targets.pointer == "/boats"


def test_an_array_that_holds_no_argument_is_no_listing() -> None:
    found = searched(
        charter_state("plain"), "boats_listing_owner", "The boats whose tags hold one."
    )
    assert found[0].collection.pointer == "/charters"


def test_a_value_that_names_no_record_is_searched_with_the_other_arguments() -> None:
    arguments = {"tag": "sail", "length_min": 40}
    said = "The boats whose tags include a tag, at least so long."
    found = searched(charter_state("plain"), "search_boats", said, arguments)
    assert found[0].collection.pointer == "/boats"
    assert len(found[0].constraints) == 2


def test_records_filed_in_members_are_called_by_the_field_holding_them() -> None:
    # The boats are filed in their two fleets' ``boats`` arrays: the collection at
    # ``/fleets`` holds the boats a ``boats_listing_owner`` names.
    state = membered_state()
    boats = state.pop("boats")
    state["fleets"] = [
        {"fleet": f"F{f}", "skipper": f"Skipper {f}", "boats": boats[f * 30 : f * 30 + 30]}
        for f in range(2)
    ]
    found = searched(state, "boats_listing_owner", "The boats whose member_ids include an owner.")
    assert [r.collection.pointer for r in found] == ["/fleets"]
    listing = [b for b in range(60) if 2 in (b % 5, (b + 1) % 5)]
    assert found[0].full == [f"/fleets/{b // 30}/boats/{b % 30}" for b in listing]
