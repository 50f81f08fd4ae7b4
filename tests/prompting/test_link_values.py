"""A join whose answer lists one field of the records reached, each value once: the view
writes those values, under the answer's name for them, over every record reached."""

from __future__ import annotations

import json
from typing import Any

from mcp_sim.prompting.link_values import respelt_word
from mcp_sim.prompting.records_section import records_section
from tests.prompting.test_link_joins import DESCRIPTION, charter_state, grounded, world_of

PORTS_OF_OWNER = "The home ports of the boats an owner has charters with (each once, sorted)."


def ported_state() -> dict[str, Any]:
    state = charter_state("plain")
    for b, boat in enumerate(state["boats"]):
        boat["home_port"] = f"Port {b % 7}"
    return state


def joined_text(description: str, output: dict[str, Any] | None, room: int = 9000) -> str:
    world = world_of(ported_state(), "boat_home_ports_of_owner", description, output)
    grounding = grounded(world, {"owner_id": "OW-1"})
    assert grounding.join is not None
    return records_section(world.state, [], [], room, None, None, grounding.join)


def listed(text: str) -> dict[str, Any]:
    line = next(x for x in text.splitlines() if "each value once" in x)
    found: dict[str, Any] = json.loads(line[line.index("{") :])
    return found


def test_the_field_the_answer_lists_is_written_once_per_value_over_every_record() -> None:
    # Owner 1's charters are 1, 7, 13, … and charter c is of boat 7c mod 60.
    ports = sorted({f"Port {(c * 7) % 60 % 7}" for c in range(1, 120, 6)})
    output = {"type": "object", "properties": {"homePorts": {"type": "array"}}}
    assert listed(joined_text(PORTS_OF_OWNER, output)) == {"homePorts": ports}
    # Without an output schema, the description's word names the list.
    assert listed(joined_text(PORTS_OF_OWNER, None)) == {"ports": ports}
    # A room too small for every row still holds every value.
    small = joined_text(PORTS_OF_OWNER, output, room=1500)
    assert listed(small) == {"homePorts": ports}


def test_an_answer_listing_no_field_of_the_records_reached_has_no_values_line() -> None:
    assert "each value once" not in joined_text(DESCRIPTION, None)


def test_dates_of_the_links_or_of_the_records_entries_are_no_list_of_the_records() -> None:
    state = ported_state()
    for b, boat in enumerate(state["boats"]):
        boat["services"] = [{"date": f"2025-03-{b % 28 + 1:02d}"}]
    said = "The boats an owner has charters for, with the charters' dates."
    world = world_of(state, "boats_of_owner", said)
    grounding = grounded(world, {"owner_id": "OW-1"})
    assert grounding.join is not None
    assert "each value once" not in records_section(
        world.state, [], [], 9000, None, None, grounding.join
    )
    # The links' own dates are the ones a description naming "dates" beside them lists.
    for c, charter in enumerate(state["charters"]):
        charter["charter_date"] = f"2025-04-{c % 28 + 1:02d}"
    for boat in state["boats"]:
        boat["built_date"] = "2020-01-01"
    grounding = grounded(world_of(state, "boats_of_owner", said), {"owner_id": "OW-1"})
    assert grounding.join is not None
    assert "each value once" not in records_section(state, [], [], 9000, None, None, grounding.join)


def test_a_description_word_is_written_in_the_capitals_the_records_fields_share() -> None:
    assert respelt_word("depots", ["HomeDepot", "LocomotiveId", "Name"]) == "Depots"
    assert respelt_word("depots", ["HOME_DEPOT", "LOCO_ID", "NAME"]) == "DEPOTS"
    assert respelt_word("depots", ["home_depot", "loco_id"]) == "depots"
    assert respelt_word("depots", ["homeDepot", "HOME_DEPOT"]) == "depots"
