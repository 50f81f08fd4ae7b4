"""The records section: how a record meeting a search's constraints is shown within the room."""

from __future__ import annotations

from typing import Any

from mcp_sim.prompting.grounding import Pick
from mcp_sim.prompting.records_section import records_section


def _record(n: int) -> dict[str, Any]:
    # A catalogue record whose id sits deep in one field, and whose copies fill another.
    copies = [{"barcode": f"3999900{n}{i:04d}", "branch": "MDL", "due": None} for i in range(40)]
    return {"fields": {"999": {"c": str(n)}, "952": copies, "245": {"a": f"Title {n}"}}}


STATE = {"records": [_record(1001), _record(1002)]}


def _pick(index: int) -> Pick:
    return Pick(
        f"/records/{index}", "matched", {"/fields/999"}, matched=1, complete=True, constraints=1
    )


def test_the_one_record_meeting_every_constraint_is_shown_whole_where_it_fits() -> None:
    section = records_section(STATE, [_pick(0)], [], 20_000)
    assert "39999001001" + "0039" in section  # its last copy: nothing outlined
    assert "large parts outlined" not in section


def test_records_sharing_the_room_are_shown_around_what_matched() -> None:
    section = records_section(STATE, [_pick(0), _pick(1)], [], 20_000)
    assert section.count("large parts outlined") == 2
    assert "39999001001" + "0039" not in section
