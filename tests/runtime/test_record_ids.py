"""A record's id field is found whatever its casing or word for an id, preferring ``id``
itself, and a first field of distinct codes keys records that name no id."""

from __future__ import annotations

import pytest

from mcp_sim.runtime.record_ids import id_field_of, id_named
from mcp_sim.runtime.state_collections import find_collections
from mcp_sim.spec.world import World


@pytest.mark.parametrize(
    ("name", "named"),
    [
        ("id", True),
        ("ID", True),
        ("itemId", True),
        ("item-id", True),
        ("ITEM_REF", True),
        ("sku", True),
        ("orderUUID", True),
        ("valid", False),
        ("paid", False),
        ("title", False),
        ("keyboard", False),
    ],
)
def test_a_field_names_an_id_by_its_last_word(name: str, named: bool) -> None:
    assert id_named(name) is named


def test_the_records_own_id_beats_a_unique_reference_before_it() -> None:
    records = [{"customer_id": f"C{i}", "id": f"O{i}"} for i in range(3)]
    assert id_field_of(records) == "id"


def test_a_first_field_of_distinct_codes_keys_records_that_name_no_id() -> None:
    assert id_field_of([{"plate": f"AB-{i}", "seats": 4} for i in range(3)]) == "plate"
    # Words, repeated codes and numbers (as likely counts) key nothing.
    assert id_field_of([{"name": n, "seats": 4} for n in ("Ann", "Bo")]) is None
    assert id_field_of([{"plate": "AB-1"}, {"plate": "AB-1"}]) is None
    assert id_field_of([{"seats": 4}, {"seats": 5}]) is None


def test_a_unique_field_holding_another_collections_keys_is_a_reference_not_the_id() -> None:
    catalog = {f"C{1000 + n}-5": {"name": f"Item {n}"} for n in range(5)}
    movements = [{"seq": n, "sku": f"C{1000 + n}-5", "qty": 3} for n in range(5)]
    lines = [{"line_ref": f"L-{n}", "sku": f"C{1000 + n}-5"} for n in range(5)]
    world = World.model_validate(
        {"world": "t", "title": "T", "description": "Refs."}
        | {"tools": [{"name": "get", "description": "Get.", "input_schema": {"type": "object"}}]}
        | {"state": {"catalog": catalog, "movements": movements, "lines": lines}}
    )
    found = {c.pointer: c.id_field for c in find_collections(world, world.state)}
    assert found == {"/catalog": None, "/movements": None, "/lines": "line_ref"}


def test_numbered_records_are_not_references_to_records_numbered_alike() -> None:
    people = {str(1000 + n): {"name": f"P{n}"} for n in range(5)}
    runs = [{"run_id": 1000 + n, "person": 1000 + n} for n in range(5)]
    world = World.model_validate(
        {"world": "t", "title": "T", "description": "Numbers."}
        | {"tools": [{"name": "get", "description": "Get.", "input_schema": {"type": "object"}}]}
        | {"state": {"people": people, "runs": runs}}
    )
    found = {c.pointer: c.id_field for c in find_collections(world, world.state)}
    assert found["/runs"] == "run_id"
