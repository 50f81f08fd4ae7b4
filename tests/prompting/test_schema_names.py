"""Fields an output schema names otherwise than the store, matched by words and type."""

from __future__ import annotations

from typing import Any

from mcp_sim.prompting.answer_sources import Source
from mcp_sim.prompting.schema_names import schema_sources

GUEST = {
    "GuestRef": {"@idref": "G-0042"},
    "Name": {"Given": "Kaito", "Family": "Sato"},
    "Stay": {"Nights": "3", "Note": "late arrival"},
    "Phone": [{"Number": "+47 555 0100"}],
}
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "given_name": {"type": "string"},
        "family_name": {"type": "string"},
        "stay_nights": {"type": "integer"},
        "stays": {"type": "array", "items": {"properties": {"stay_note": {"type": "string"}}}},
        "name": {"type": "string"},
        "number": {"type": "number"},
    },
}


def test_properties_name_the_one_field_their_words_and_type_fit() -> None:
    found = schema_sources(SCHEMA, GUEST)
    assert found["given_name"] == Source("Name/Given")
    assert found["family_name"] == Source("Name/Family")
    # A number a store writes as text fits an integer.
    assert found["stay_nights"] == Source("Stay/Nights")
    # An array's items' properties count too.
    assert found["stay_note"] == Source("Stay/Note")
    # ``name`` fits two fields (Name/Given, Name/Family): it names neither.
    assert "name" not in found


def test_a_property_that_the_record_has_as_is_or_no_schema_names_nothing() -> None:
    # The record holds ``givenName`` as it is, in its own casing: nothing to relabel.
    record = {"givenName": "Kaito", "profile": {"given": {"name": "K"}}}
    assert schema_sources(SCHEMA, record) == {}
    assert schema_sources(None, GUEST) == {}


def test_a_property_takes_no_field_of_another_type() -> None:
    record = {"Phone": {"Number": True}, "Count": {"Nights": {"label": "three"}}}
    schema = {"properties": {"number": {"type": "number"}}}
    assert schema_sources(schema, record) == {}
