"""Arrays of records of several kinds, told apart by a field whatever it is called, become one
collection per kind, keyed by each kind's own ids; typed references are read whatever their
spelling."""

from __future__ import annotations

from typing import Any

import pytest

from mcp_sim.runtime.mixed_collections import kinds_of
from mcp_sim.runtime.state_index import StateIndex
from mcp_sim.runtime.state_paths import resolve
from mcp_sim.runtime.typed_references import kind_word, typed_reference
from mcp_sim.spec.world import World


def harbour_items() -> list[dict[str, Any]]:
    """Vessels, berths and crew in one array, told apart by ``category``; numbered ids that
    repeat across the kinds (vessel 3 and berth 3); crew point to their vessel by a typed
    path and berths to theirs by an object naming the kind."""
    vessels = [
        {"category": "Vessel", "ref": str(n), "hull": f"H-{n}", "tonnage": 900 + n, "flag": "NO"}
        for n in range(1, 13)
    ]
    berths = [
        {
            "category": "Berth",
            "ref": str(n),
            "quay": f"Q{n % 3}",
            "depth_m": 8 + n,
            "holds": {"of": "vessel", "ref": str(13 - n)},
        }
        for n in range(1, 9)
    ]
    crew = [
        {
            "category": "CrewMember",
            "ref": str(n),
            "given": f"Sailor {n}",
            "rank": "mate",
            "serves_on": f"vessels/{n % 12 + 1}",
        }
        for n in range(1, 21)
    ]
    return [*vessels, *berths, *crew]


def world_of(state: dict[str, Any]) -> World:
    return World.model_validate(
        {
            "world": "t",
            "title": "T",
            "description": "A harbour.",
            "state": state,
            "tools": [
                {
                    "name": "get_vessel",
                    "description": "A vessel.",
                    "input_schema": {"type": "object"},
                }
            ],
        }
    )


def test_a_field_of_few_type_values_whose_records_differ_splits_the_array() -> None:
    kinds = kinds_of(harbour_items())
    assert kinds and {k.field for k in kinds} == {"/category"}
    assert {k.value for k in kinds} == {"Vessel", "Berth", "CrewMember"}


def test_a_status_whose_records_share_their_fields_leaves_the_array_whole() -> None:
    orders = [
        {"order": f"O-{n}", "status": ["open", "paid", "shipped"][n % 3], "total": n * 3}
        | ({"shipped_on": "2025-01-02"} if n % 3 == 2 else {})
        for n in range(60)
    ]
    assert kinds_of(orders) == []


def test_the_kind_may_sit_in_an_object_each_item_wraps_its_record_in() -> None:
    entries = [{"url": f"https://x/{i}", "body": item} for i, item in enumerate(harbour_items())]
    kinds = kinds_of(entries)
    assert {k.field for k in kinds} == {"/body/category"}
    assert all(k.inner == "/body" for k in kinds)


def test_each_kind_is_a_collection_keyed_by_its_own_ids() -> None:
    state = {"harbour": {"items": harbour_items()}}
    index = StateIndex(world_of(state), state)
    pointers = {c.pointer: c for c in index.collections}
    assert set(pointers) == {
        "/harbour/items/@Berth",
        "/harbour/items/@CrewMember",
        "/harbour/items/@Vessel",
    }
    vessels = pointers["/harbour/items/@Vessel"]
    assert vessels.id_field == "ref" and vessels.size == 12
    overlay = index.overlay_of(state)
    named = {index.records[h.pointer].collection for h in overlay.key_hits("3")}
    assert named == set(pointers)  # vessel 3, berth 3 and crew member 3: each its own kind
    for hit in overlay.key_hits("3"):
        found = index.collection_of(hit.pointer)
        assert found is not None
        assert resolve(state, hit.pointer)["category"] == found.pointer.rsplit("@", 1)[1]


def test_a_record_appended_to_a_mixed_array_counts_for_its_own_kind() -> None:
    state = {"harbour": {"items": harbour_items()}}
    index = StateIndex(world_of(state), state)
    overlay = index.overlay_of(state)
    added = {"category": "Vessel", "ref": "13", "hull": "H-13", "tonnage": 1000, "flag": "IS"}
    after = {"harbour": {"items": [*harbour_items(), added]}}
    patch = [{"op": "add", "path": "/harbour/items/-", "value": added}]
    moved = overlay.advance(state, after, patch)
    assert moved.record_count("/harbour/items/@Vessel") == 13
    assert moved.record_count("/harbour/items/@Berth") == 8
    added_facts = [moved.changed.get(h.pointer) for h in moved.key_hits("13")]
    assert [f.collection for f in added_facts if f is not None] == ["/harbour/items/@Vessel"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Patient/10234", ("Patient", "10234")),
        ("vessels/12", ("vessels", "12")),
        ("/api/v2/berths/B-7", ("berths", "B-7")),
        ("https://fhir.example.org/fhir/Encounter/88", ("Encounter", "88")),
        ("gid://harbour/Vessel/12", ("Vessel", "12")),
        ("urn:vessel:12", ("vessel", "12")),
        ("apps/v1", ("apps", "v1")),
        ("plain words", None),
        ("docs/readme", None),
        (12, None),
    ],
)
def test_typed_references_are_read_whatever_their_spelling(
    text: Any, expected: tuple[str, str] | None
) -> None:
    assert typed_reference(text) == expected


def test_kind_names_agree_across_plural_singular_and_case() -> None:
    assert kind_word("Vessels") == kind_word("vessel") == kind_word("VESSEL")
    assert kind_word("categories") == kind_word("Category")
    assert kind_word("CrewMember") == kind_word("crew_members")
