"""Searches whose arguments no field's name fits, read from the values: a bound a query writes
as text, a bound whose name's stem names one of several date fields, a time bound on a
collection of several kinds of records, a prefix typed from a record's own name rather than
its comments, and a name that bounds after a word that would mark a prefix."""

from __future__ import annotations

from typing import Any

from mcp_sim.prompting.constraints import read_collection
from mcp_sim.prompting.field_names import read_argument
from mcp_sim.prompting.record_fields import FieldSchema
from mcp_sim.prompting.value_fields import range_distance, written_number

WORDS = ["Onyx", "Amber", "Ridge", "Cedar", "Vale", "Fjord", "Kelp", "Pine"]


def barrels() -> list[tuple[str, Any]]:
    """Barrels whose volume is a sheet's text cell under another name (``volume l``), each with
    comments whose bodies start with the same words as the barrels' names."""
    records = []
    for i in range(80):
        records.append(
            (
                str(i),
                {
                    "cuvee": f"{WORDS[i % 8]} {WORDS[(i // 8) % 8]}",
                    "volume l": str(110 + (i * 37) % 490),
                    "grape": ["pinot", "gamay", "syrah"][i % 3],
                    "reviews": [
                        {"body": f"{WORDS[(i + k) % 8]} {WORDS[k % 8]} {i}.", "likes": k}
                        for k in range(i % 3 + 1)
                    ],
                },
            )
        )
    return records


def fields_of(schema: FieldSchema, arguments: dict[str, Any]) -> dict[str, tuple[str, ...]]:
    return {c.argument: c.fields for c in read_collection(schema, arguments).constraints}


def test_a_bound_written_as_text_is_compared_by_its_number() -> None:
    schema = FieldSchema.of("/barrels", barrels())
    assert written_number("442") == 442 and written_number("12.5") == 12.5
    assert written_number("2025-01-01") == "2025-01-01"
    assert range_distance(schema.fields["volume l"], "442") == 0.0
    # A query's operand (``litres:<=442``) is text: it bounds the volumes all the same.
    assert fields_of(schema, {"litres_max": "442"})["litres_max"] == ("volume l",)


def test_a_prefix_goes_to_the_records_own_names_not_their_comments() -> None:
    schema = FieldSchema.of("/barrels", barrels())
    # More distinct comment bodies start with "Onyx" than names do; a name is what is typed.
    assert fields_of(schema, {"label_starts": "Onyx"})["label_starts"] == ("cuvee",)


def pods() -> list[tuple[str, Any]]:
    return [
        (
            str(i),
            {
                "metadata": {"creationTimestamp": f"2025-0{1 + i % 9}-1{i % 10}T08:00:00Z"},
                "status": {
                    "startTime": f"2025-0{1 + i % 9}-1{i % 10}T08:00:05Z",
                    "lastProbe": f"2025-0{1 + i % 9}-2{i % 10}T09:00:00Z",
                },
                "app": ["web", "api"][i % 2],
            },
        )
        for i in range(60)
    ]


def test_a_bounds_name_chooses_among_date_fields_by_its_stem() -> None:
    schema = FieldSchema.of("/pods", pods())
    # ``created`` and ``creation`` share a stem: the pod's creation, not its start or probe.
    found = fields_of(schema, {"created_after": "2025-03-01T00:00:00Z"})
    assert found["created_after"] == ("metadata/creationTimestamp",)


def objects() -> list[tuple[str, Any]]:
    """A git store: a commit (dated) among every nine trees and blobs (not dated)."""
    records: list[tuple[str, Any]] = []
    for i in range(200):
        if i % 10 == 0:
            dated = f"2025-0{1 + i % 9}-1{i % 10}T10:00:00Z"
            commit = {"type": "commit", "author": {"date": dated}, "message": f"Fix {i}"}
            records.append((f"c{i}", commit))
        else:
            records.append((f"t{i}", {"type": "tree", "tree": [{"path": f"f{i}", "sha": f"b{i}"}]}))
    return records


def test_a_time_bound_on_a_mixed_collection_bounds_the_kind_that_has_a_time() -> None:
    schema = FieldSchema.of("/objects", objects())
    found = fields_of(schema, {"since": "2025-02-01T00:00:00Z", "until": "2025-06-01T00:00:00Z"})
    assert found == {"since": ("author/date",), "until": ("author/date",)}


def test_a_last_word_that_bounds_outranks_a_first_that_marks_a_prefix() -> None:
    assert read_argument("starts_after").op == "min"
    assert read_argument("starts_after").words == ("start",)
    assert read_argument("ends_before").op == "max"
    assert read_argument("title_starts").op == "prefix"
    assert read_argument("starts_with").op == "prefix"


def items() -> list[tuple[str, Any]]:
    return [
        (
            str(i),
            {
                "name": f"{WORDS[i % 8]} saw {i}",
                "supplier": {"name": f"{WORDS[(i + 3) % 8]} Supply"},
                "attributes": {"type": "Item"},
                "Type": ["tool", "part"][i % 2],
            },
        )
        for i in range(60)
    ]


def test_a_name_fitting_own_and_held_fields_means_the_records_own() -> None:
    schema = FieldSchema.of("/items", items())
    # Both ``name`` fields start with "Onyx" somewhere: the item's own is meant.
    assert fields_of(schema, {"name_prefix": "Onyx"})["name_prefix"] == ("name",)
    # No own ``Type`` holds "Item": the held object's ``type`` does, and keeps the constraint.
    assert "attributes/type" in fields_of(schema, {"type": "Item"})["type"]
    assert fields_of(schema, {"type": "tool"})["type"] == ("Type",)
