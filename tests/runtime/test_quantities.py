"""Quantities written as text with a unit, read by their real magnitude."""

from __future__ import annotations

import math

import pytest

from mcp_sim.runtime.quantities import quantities, quantity, unit_of, without_unit


@pytest.mark.parametrize(
    ("text", "magnitude", "dimension"),
    [
        ("250m", 0.25, ""),
        ("1536Mi", 1536 * 2**20, ""),
        ("2Gi", 2 * 2**30, ""),
        ("500M", 5e8, ""),
        ("1.5", 1.5, ""),
        ("15186376Ki", 15186376 * 1024, ""),
        ("12 kg", 12000.0, "grams"),
        ("3.5 GB", 3.5e9, "bytes"),
        ("3.5GB", 3.5e9, "bytes"),
        ("250 ms", 0.25, "seconds"),
        ("5%", 0.05, "ratio"),
        ("$12.00", 12.0, "money"),
        ("12.50 EUR", 12.5, "money"),
        ("EUR 12.50", 12.5, "money"),
        ("250 m", 250.0, "metres"),
        ("300 millicores", 0.3, ""),
        ("150 kW", 150_000.0, "watts"),
        ("5 MW", 5e6, "watts"),
        ("5 mW", 5e-3, "watts"),
        ("2.4 GHz", 2.4e9, "hertz"),
    ],
)
def test_a_quantity_is_read_by_its_magnitude(text: str, magnitude: float, dimension: str) -> None:
    read = quantity(text)
    assert read is not None
    assert math.isclose(read.magnitude, magnitude)
    assert read.dimension == dimension


@pytest.mark.parametrize(
    "text",
    [
        "2025-03-01",
        "A12",
        "v1.29.3",
        "10.0.16.72",
        "eu-west-1c",
        "m5.large",
        "Running",
        "12 apples",
    ],
)
def test_dates_ids_and_names_are_no_quantities(text: str) -> None:
    assert quantity(text) is None


def test_a_field_of_quantities_sorts_by_magnitude_not_by_text() -> None:
    read = quantities(["512Mi", "2Gi", "64Mi"])
    assert read is not None
    order = sorted(range(3), key=lambda i: read[i].magnitude)
    assert order == [2, 0, 1]  # "2Gi" sorts first as text


def test_plain_numbers_codes_and_mixed_dimensions_are_no_field_of_quantities() -> None:
    assert quantities(["1", "2", "3"]) is None  # numbers in text: left to the number rules
    assert quantities(["250m", "Running"]) is None
    assert quantities(["12 kg", "3 GB"]) is None
    assert quantities(["250m", "1", "2"]) is not None  # cores, some in thousandths


def test_a_name_ending_in_a_unit_says_it() -> None:
    gib = unit_of("min_memory_gib")
    assert gib is not None and gib.size == 2**30 and gib.dimension == "bytes"
    milli = unit_of("cpu_requests_millicores")
    assert milli is not None and milli.size == 1e-3 and milli.dimension == ""
    kg = unit_of("weightKg")
    assert kg is not None and kg.dimension == "grams"
    assert unit_of("items") is None
    assert unit_of("team_b") is None  # a one-letter unit would end too many names
    duration = unit_of("duration_s")
    assert duration is not None and duration.dimension == "seconds"
    assert unit_of("kg") is None
    assert without_unit("cpu_requests_millicores") == ["cpu", "requests"]
    assert without_unit("memory") == ["memory"]
