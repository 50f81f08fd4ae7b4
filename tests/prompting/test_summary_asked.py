"""Summaries named as the tool's description asks for their values: the description's words
read as statistics over fields the state may call otherwise, spelled as the state spells its
names; a count of part of the records; a filter on a nested field or under a name that
usually shapes the answer."""

from __future__ import annotations

from typing import Any

from mcp_sim.prompting.grounding import ground
from mcp_sim.prompting.summary_asked import asked
from mcp_sim.prompting.summary_names import join, style_of
from mcp_sim.runtime.state_index import StateIndex
from mcp_sim.spec.world import ToolSpec, World

_PAINTS = ["red", "blue", "green"]
_DOCKS = [f"Dock {i}" for i in range(9)]


def _world(state: dict[str, Any], name: str, description: str) -> World:
    spec = {"name": name, "description": description, "input_schema": {"type": "object"}}
    return World.model_validate(
        {"world": "t", "title": "T", "description": "Hand-made.", "state": state, "tools": [spec]}
    )


def _values(world: World, arguments: dict[str, Any]) -> dict[str, Any]:
    overlay = StateIndex(world, world.state).overlay_of(world.state)
    grounding = ground(overlay, world.state, world.tools[0], arguments)
    assert grounding.summary is not None
    return grounding.summary.values


def _boats(spell: Any) -> list[dict[str, Any]]:
    return [
        {
            spell("boat_id"): f"B{i:03d}",
            spell("details"): {
                spell("hull_type"): ["sloop", "ketch"][i % 2],
                spell("cost"): 100 + i,
            },
            spell("mass_kg"): 1000 + 10 * i,
            spell("paint"): _PAINTS[i % 3],
            spell("home_dock"): _DOCKS[i % 9],
        }
        for i in range(60)
    ]


def test_a_description_is_read_as_the_statistics_it_asks_for() -> None:
    tool = ToolSpec.model_validate(
        {
            "name": "boat_stats",
            "description": "Count, total and mean price, largest weight and the colour values "
            "of the boats of one hull.",
            "input_schema": {"type": "object"},
        }
    )
    found = [(a.op, a.phrase) for a in asked(tool)]
    assert found == [
        ("count", ()),
        ("sum", ("price",)),
        ("mean", ("price",)),
        ("max", ("weight",)),
        ("values", ("colour",)),
    ]


def test_asked_values_go_under_the_tools_words_in_the_states_spelling() -> None:
    def pascal(name: str) -> str:
        return join([name], "pascal")

    world = _world(
        {"Boats": _boats(pascal)},
        "boat_stats",
        "Count, total price, largest weight and the colour values of the boats of one hull.",
    )
    values = _values(world, {"hull": "sloop"})
    sloops = [b for b in _boats(pascal) if b["Details"]["HullType"] == "sloop"]
    assert values["Count"] == 30
    # No field is named so: each takes the next number the records hold.
    assert values["TotalPrice"] == values["Price"] == sum(b["Details"]["Cost"] for b in sloops)
    assert values["MaxWeight"] == max(b["MassKg"] for b in sloops)
    # Of the text fields, the enumeration (three paints), not the nine docks.
    assert values["ColourValues"] == sorted(_PAINTS)


def test_a_filter_on_a_nested_field_sums_up_whole_records() -> None:
    world = _world(
        {"boats": _boats(lambda n: n)},
        "boat_stats",
        "Count and largest mass_kg of the boats of one hull.",
    )
    values = _values(world, {"hull": "ketch"})
    assert values["count"] == 30 and values["max_mass_kg"] == 1590


def test_a_word_that_usually_shapes_the_answer_still_filters_by_value() -> None:
    world = _world(
        {"boats": _boats(lambda n: n)},
        "boat_stats",
        "Count and total mass_kg of the boats of one format.",
    )
    values = _values(world, {"format": "ketch"})
    assert values["count"] == 30


def test_a_count_of_part_of_the_records_counts_those_a_yes_no_field_picks() -> None:
    visits = [{"visit_id": f"V{i}", "reason": "sprain", "paid": i % 4 == 0} for i in range(40)]
    world = _world(
        {"visits": visits},
        "visit_totals",
        "Count and unpaid count of the visits for a reason.",
    )
    values = _values(world, {"reason": "sprain"})
    assert values["unpaid"] == 30 and values["visits"] == values["count"] == 40


def test_the_states_spelling_is_read_from_all_its_names() -> None:
    assert style_of(["TOTAL_X", "CROP", "ID"]) == "upper"
    assert style_of(["hull-type", "hull"]) == "kebab"
    assert style_of(["Crop", "AreaM2"]) == "pascal"
    assert style_of(["crop", "id"]) == "snake"
    assert join(["max", "area_m2"], "camel") == "maxAreaM2"
    assert join(["total", "power_kw"], "kebab") == "total-power-kw"
    assert join(["total", "powerKw"], "upper") == "TOTAL_POWER_KW"


def test_an_identifier_is_no_measure_and_a_loose_name_yields_to_the_values() -> None:
    beds = [
        {
            "bed_id": 1000 + i,
            "crop_name": f"Bed {i}",  # the name fits "crop" loosely, but holds no crop
            "plant": ["pepper", "basil"][i % 2],
            "surface": 10 + i,
        }
        for i in range(40)
    ]
    world = _world({"beds": beds}, "bed_stats", "Count and largest area of the beds of one crop.")
    values = _values(world, {"crop": "pepper"})
    assert values["count"] == 20
    assert values["max_area"] == 48  # the surface, not the largest id


def test_the_records_a_description_counts_name_the_count() -> None:
    stock = {
        f"W{w}": {f"SKU-{s}": {"on_hand": 10 * w + s, "reserved": w} for s in range(20)}
        for w in range(1, 6)
    }
    world = _world(
        {"stock": stock}, "stock_totals", "Totals of an item over all warehouses: on hand."
    )
    values = _values(world, {"sku": "SKU-4"})
    assert values["warehouses"] == 5
    listing = _world({"stock": stock}, "stock_totals", "Totals of an item; the list of all bins.")
    assert "bins" not in _values(listing, {"sku": "SKU-4"})


def test_a_count_of_the_records_whose_parts_were_found_counts_records() -> None:
    parcels = [
        {
            "number": f"P{i:04d}",
            "events": [
                {"facility": ["ALD-1", "BRI-2"][(i + j) % 2], "code": ["IN", "OUT"][j % 2]}
                for j in range(3)
            ],
        }
        for i in range(30)
    ]
    world = _world({"parcels": parcels}, "facility_summary", "How many parcels a facility scanned.")
    values = _values(world, {"facility": "ALD-1"})
    assert values["parcels"] == 30  # every parcel passed it once or twice
    assert values["events"] == 45


def test_a_guessed_total_beside_quantities_and_prices_is_still_named() -> None:
    stations: list[dict[str, Any]] = [
        {"sign": f"S{i}", "genre": ["pop", "jazz"][i % 2], "power": i % 90, "mhz": 88.5 + i / 4}
        for i in range(40)
    ]
    world = _world(
        {"stations": stations},
        "station_stats",
        "Count, total frequency and largest power_kw of the stations of one genre.",
    )
    values = _values(world, {"genre": "pop"})
    pop = [s for s in stations if s["genre"] == "pop"]
    assert values["total_frequency"] == round(sum(s["mhz"] for s in pop), 2)
    assert values["max_power_kw"] == max(s["power"] for s in pop)


def test_a_description_listing_the_answers_keys_is_read_word_by_word() -> None:
    def pascal(name: str) -> str:
        return join([name], "pascal")

    world = _world(
        {"Boats": _boats(pascal)},
        "fetchBoatStats",
        "Figures (Count, TotalPrice, MaxWeight, PaintValues) of the boats of one hull.",
    )
    values = _values(world, {"hull": "sloop"})
    sloops = [b for b in _boats(pascal) if b["Details"]["HullType"] == "sloop"]
    assert values["Count"] == 30
    assert values["TotalPrice"] == sum(b["Details"]["Cost"] for b in sloops)
    assert values["MaxWeight"] == max(b["MassKg"] for b in sloops)
    assert values["PaintValues"] == sorted(_PAINTS)


def test_a_number_of_records_goes_under_their_singular_count() -> None:
    visits = [{"visit-id": f"V{i}", "keeper-id": f"K{i % 2}", "minutes": i} for i in range(40)]
    world = _world(
        {"visits": visits},
        "keeperVisitTotals",
        "A keeper's number of inspections, their total and average minutes.",
    )
    values = _values(world, {"keeperId": "K1"})
    assert values["inspection-count"] == values["inspections"] == 20


def test_a_number_of_records_keeps_its_counted_name_where_room_is_short() -> None:
    turns = [
        {"turn_id": f"T{i}", "driver_id": f"D{i % 2}", "km": i, "units": i % 5, "rate": i / 3}
        for i in range(40)
    ]
    world = _world(
        {"turns": turns}, "driver_turn_totals", "A driver's number of turns, their total km."
    )
    overlay = StateIndex(world, world.state).overlay_of(world.state)
    grounding = ground(overlay, world.state, world.tools[0], {"driver_id": "D1"})
    assert grounding.summary is not None
    short = grounding.summary.render(700)
    assert '"turn_count": 20' in short and '"total_km": 400' in short


def test_a_count_the_description_names_as_one_word_goes_under_that_name() -> None:
    world = _world(
        {"Boats": _boats(lambda n: join([n], "pascal"))},
        "find_count_boats",
        "How many boats the filters select (a totalCount).",
    )
    values = _values(world, {"hull": "sloop"})
    # As written, not in the state's spelling; and no total of a field named "Count".
    assert values["totalCount"] == values["Count"] == 30
    assert "TotalCount" not in values


def test_values_asked_of_a_field_no_name_fits_are_an_enumerations() -> None:
    beds = [
        {
            "bed_id": 1000 + i,
            "source": "https://ids.example.com/beds",  # one value, every record alike
            "planting": f"Planting {i}",  # nearly each its own
            "substrate": ["coir", "soil", "hydro"][i % 3],
        }
        for i in range(40)
    ]
    world = _world({"beds": beds}, "list_medium_values", "Every medium any bed has.")
    values = _values(world, {})
    assert values["medium_values"] == ["coir", "hydro", "soil"]


def test_a_listed_kind_of_record_counts_those_the_records_refer_to() -> None:
    readings = [
        {"id": f"obs-{i}", "code": "8310-5", "subject": {"reference": f"Patient/{i % 7}"}}
        | {"value": 36 + i % 3}
        for i in range(40)
    ]
    world = _world(
        {"readings": readings}, "vital_statistics", "Count, patients and mean of a reading."
    )
    values = _values(world, {"code": "8310-5"})
    assert values["patients"] == 7 and values["count"] == 40


def test_an_operation_listed_alone_goes_under_its_own_word() -> None:
    tool = ToolSpec.model_validate(
        {
            "name": "reading_stats",
            "description": "Count, patients, min, max and mean of a reading, optionally for "
            "one city.",
            "input_schema": {"type": "object"},
        }
    )
    found = [(a.op, a.phrase) for a in asked(tool)]
    # "optionally" names no measure: each operation is of the reading, under its own word.
    assert ("min", ()) in found and ("max", ()) in found and ("mean", ()) in found
    boats: list[dict[str, Any]] = [
        {"boat_id": f"B{i}", "paint": _PAINTS[i % 3], "mass_kg": 1000 + i} for i in range(30)
    ]
    world = _world({"boats": boats}, "boat_stats", "Count, min, max and mean of the boats.")
    values = _values(world, {"paint": "red"})
    masses: list[int] = [b["mass_kg"] for b in boats if b["paint"] == "red"]
    assert values["min"] == min(masses) and values["max"] == max(masses)
    # One plain name each: the same value under the common names would only repeat it.
    assert "minMassKg" not in values and "min_mass_kg" not in values
    assert "lowest" not in values and "mean_mass_kg" not in values


def test_distinct_things_among_figures_are_counted_and_listed() -> None:
    world = _world(
        {"boats": _boats(lambda n: n)}, "fleet_figures", "A fleet's figures: count, distinct docks."
    )
    values = _values(world, {"paint": "red"})
    docks = sorted({b["home_dock"] for b in _boats(lambda n: n) if b["paint"] == "red"})
    assert values["distinct_docks"] == len(docks) == 3
    assert values["docks"] == docks
