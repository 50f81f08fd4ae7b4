"""A value that sits deep inside a collection's records finds the record holding it, not the
leaf it sits in: property-list entries (MARC-in-JSON's one-key subfields) and a value each
record holds once (a patient's one identifier) are parts of their record; nested items with
values of their own and several per record (a unit's members) stay records of their own."""

from __future__ import annotations

from typing import Any

from mcp_sim.prompting.field_search import FieldSearch
from mcp_sim.prompting.grounding import ground
from mcp_sim.prompting.records_section import records_section
from tests.prompting.test_field_search import overlay_of, world_of

BRANCHES = ["MDL", "FRL", "ROS"]
TYPES = ["BK", "DVD", "LP"]


def catalogue() -> dict[str, Any]:
    """Records of tagged fields whose subfields are one-key objects; copies as ``952``."""
    records = []
    for n in range(60):
        copies = [
            {"952": {"ind1": " ", "subfields": [{"b": BRANCHES[(n + k) % 3]}, {"y": TYPES[k]}]}}
            for k in range(2)
        ]
        records.append(
            {
                "leader": f"0{n:04d}cam",
                "fields": [
                    {"001": f"ocn{847000 + n}"},
                    {"245": {"ind1": "1", "subfields": [{"a": f"Title {n} :"}, {"b": "a tale"}]}},
                    *copies,
                    {
                        "999": {
                            "ind1": " ",
                            "subfields": [{"c": str(1000 + n)}, {"d": str(1000 + n)}],
                        }
                    },
                ],
            }
        )
    return {"records": records}


def test_a_value_in_a_property_list_finds_its_record() -> None:
    world = world_of(catalogue(), ("get_biblio", "A catalogue record by biblionumber."))
    overlay = overlay_of(world)
    result, *_ = FieldSearch(overlay, world.state).search(
        world.tool("get_biblio"), {"biblionumber": 1007}
    )
    assert result.nested is None
    assert result.full == ["/records/7"]


def test_constraints_met_in_different_parts_of_a_record_are_met_by_the_record() -> None:
    world = world_of(catalogue(), ("branch_items", "Copies of one type at one branch."))
    overlay = overlay_of(world)
    result, *_ = FieldSearch(overlay, world.state).search(
        world.tool("branch_items"), {"branch": "MDL", "item_type": "DVD"}
    )
    assert result.nested is None
    # Copy 1 (a DVD) is at BRANCHES[(n + 1) % 3]: MDL when n % 3 == 2.
    assert set(result.full) == {f"/records/{n}" for n in range(60) if n % 3 in (0, 2)}
    assert all(p.count("/") == 2 for p, _ in result.partial)


def test_the_record_is_shown_with_the_part_that_matched() -> None:
    world = world_of(catalogue(), ("get_biblio", "A catalogue record by biblionumber."))
    overlay = overlay_of(world)
    grounding = ground(overlay, world.state, world.tool("get_biblio"), {"biblionumber": 1007})
    picks = list(grounding.picks.values())
    section = records_section(world.state, picks, grounding.searches, 4000)
    assert "- /records/7: " in section
    assert "/records/7/fields" not in section


def test_members_of_units_stay_the_records_searched() -> None:
    def unit(code: str) -> dict[str, Any]:
        members = [{"emp_id": f"{code}-{i}", "name": f"P{i}", "grade": i} for i in range(4)]
        return {"code": code, "members": members}

    world = world_of({"units": [unit(f"U{i}") for i in range(20)]}, ("find", "People."))
    overlay = overlay_of(world)
    result, *_ = FieldSearch(overlay, world.state).search(world.tool("find"), {"min_grade": 3})
    assert result.nested == "members"
    assert "/units/4/members/3" in result.full
