"""The values a call's arguments give: a compound key names its parts; a time does not."""

from __future__ import annotations

from mcp_sim.prompting.argument_values import argument_fields, argument_values, queried_values


def test_a_compound_key_names_its_parts_innermost_first() -> None:
    assert list(argument_values({"unit": "GRA12/AMB2452"})) == ["gra12/amb2452", "amb2452", "gra12"]
    assert list(argument_values(["wh-3|sku-9"])) == ["wh-3|sku-9", "sku-9", "wh-3"]


def test_a_time_is_one_value_not_a_path_of_numbers() -> None:
    for time in (
        "2025-03-02T04:40:00Z",
        "2025-03-02 04:40",
        "04:40:00",
        "9:05",
        "04:40:00.250+01:00",
    ):
        assert list(argument_values({"at": time})) == [time.lower()], time
    # A key whose parts merely look numeric is still split.
    assert "40" in list(argument_values({"path": "rack:12:40:7"}))


def test_each_argument_value_is_named_by_its_argument() -> None:
    named = argument_fields({"since": "2025-03-02T04:40:00Z", "unit": "A/B"})
    assert named == {"2025-03-02t04:40:00z": "since", "a/b": "unit", "b": "unit", "a": "unit"}


def test_a_query_gives_its_values_not_its_fields_bounds_or_exclusions() -> None:
    query = "from:alice@x.org wd:Q5 after:2025-01-03 -in:trash sort:created-desc"
    assert list(argument_values({"q": query})) == [query.lower(), "alice@x.org", "q5"]
    assert queried_values({"q": query, "id": "m1"}) == {"alice@x.org", "q5"}
