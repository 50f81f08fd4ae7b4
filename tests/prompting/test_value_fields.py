"""Arguments whose names fit no stored field, matched by the values the fields hold: range
bounds by where a field's values lie (``min_top_speed`` ↔ ``vmax``), prefixes by the text
fields whose values start with them, loose names that yield to the field holding the value,
names written as one word or two, and answer-shaping names (``format``) that select after
all."""

from __future__ import annotations

from typing import Any

from mcp_sim.prompting.constraints import Constraint, read_collection
from mcp_sim.prompting.field_names import name_score
from mcp_sim.prompting.key_names import key_label, key_names, respelt
from mcp_sim.prompting.record_fields import SELF, FieldSchema, magnitude
from mcp_sim.prompting.record_render import record_line
from mcp_sim.prompting.search_result import sub_record
from mcp_sim.prompting.value_fields import containing, numbering, range_distance
from mcp_sim.runtime.state_index import StateIndex
from mcp_sim.spec.world import World

TITLES = ["Delta Ember", "Onyx Pine", "Fjord Kelp", "Amber Ridge", "Nimbus Vale"]


def engines() -> list[tuple[str, Any]]:
    """Locomotives whose fields go by other names than the search's arguments: ``vmax`` for
    the top speed, ``storey`` for the floor, a nested ``info/rated`` for the power."""
    records = []
    for i in range(60):
        records.append(
            {
                "id": 1000 + i * 7,
                "label": f"{TITLES[i % 5]} {i}",
                "traction": ["diesel", "electric", "steam"][i % 3],
                "vmax": 60 + (i * 37) % 190,
                "storey": i % 20,
                "info": {"rated": 300 + (i * 431) % 6100, "ratio": 2.5 + (i % 9) * 1.25},
                "built": f"{1950 + i}-0{1 + i % 9}-1{i % 10}",
                "checks": {f"2025-0{1 + d}-01": {"score": d} for d in range(i % 4 + 1)},
                "genre": ["jazz", "news", "talk"][i % 3],
            }
        )
    return [(str(r["id"]), r) for r in records]


def schema() -> FieldSchema:
    return FieldSchema.of("/engines", engines())


def fields_of(arguments: dict[str, Any]) -> dict[str, tuple[str, ...]]:
    reading = read_collection(schema(), arguments)
    return {c.argument: c.fields for c in reading.constraints}


def test_bounds_go_to_the_field_whose_values_lie_around_them() -> None:
    # No name fits: 177 lies among the speeds (60-249), 4000 among the powers (300-6399).
    found = fields_of({"min_top_speed": 177, "max_top_speed": 207, "min_output": 4000})
    assert found["min_top_speed"] == found["max_top_speed"] == ("vmax",)
    assert found["min_output"] == ("info/rated",)


def test_bounds_of_one_name_share_a_field_and_ids_are_no_measure() -> None:
    # 9 and 11 lie among the floors (0-19), the speeds' low end is 60 and the ids are
    # 1000 up: the floor field, whichever is nearer for either bound alone.
    found = fields_of({"min_floor": 9, "max_floor": 11})
    assert found["min_floor"] == found["max_floor"] == ("storey",)
    # A fraction names a field holding fractions (the ratio, not a count).
    assert fields_of({"min_focus": 4.75})["min_focus"] == ("info/ratio",)


def test_date_bounds_prefer_the_records_own_date_to_a_calendar() -> None:
    # A calendar's dates (2025) are keys of a map; the bound lies among the built dates.
    assert fields_of({"commissioned_after": "1980-01-01"})["commissioned_after"] == ("built",)


def test_a_prefix_goes_to_the_text_field_whose_values_start_with_it() -> None:
    assert fields_of({"name_starts": "Onyx"})["name_starts"] == ("label",)
    # A loose name (``traction_name`` ↔ ``traction``) yields to the values.
    assert fields_of({"traction_name_starts": "Fjord"})["traction_name_starts"] == ("label",)


def test_a_loose_name_yields_to_the_field_holding_the_value() -> None:
    # ``genre_kind`` fits ``genre`` loosely; "diesel" is a traction.
    assert fields_of({"traction": "diesel"})["traction"] == ("traction",)
    found = read_collection(schema(), {"genre_kind": "steam"}).constraints
    assert [c.fields for c in found] == [("traction",)]


def test_an_answer_shaping_name_selects_when_a_field_holds_its_value() -> None:
    assert fields_of({"format": "jazz"})["format"] == ("genre",)
    # A format no field holds shapes the answer: no constraint.
    assert "format" not in fields_of({"format": "json", "traction": "steam"})


def test_a_name_written_as_one_word_or_two_is_one_name() -> None:
    assert name_score(("call", "sign"), (("callsign",),)) == 1.0


def test_range_distance_is_zero_inside_and_grows_outside() -> None:
    info = schema().fields["vmax"]
    assert range_distance(info, 100) == 0
    inside, near, far = (range_distance(info, v) for v in (100, 300, 3000))
    assert inside is not None and near is not None and far is not None
    assert inside < near < far
    assert range_distance(info, "soon") is None
    assert magnitude("2025-01-02") == magnitude("2025-01-01") + 1  # type: ignore[operator]


def test_a_constraint_read_by_value_says_less_than_one_read_by_name() -> None:
    named = read_collection(schema(), {"vmax_min": 100})
    unnamed = read_collection(schema(), {"min_top_speed": 100})
    assert named.constraints[0] == Constraint("vmax_min", "min", 100, ("vmax",), 1.0)
    assert unnamed.score < named.score


def test_a_wrapped_record_shows_its_fields_and_outlines_its_calendar() -> None:
    # A paged list's record sits in ``node``: a match inside focuses the value, so a compact
    # line keeps the record's own fields and outlines its calendar.
    record = {
        "cursor": "c19",
        "node": {
            "call_sign": "Indigo Onyx",
            "details": {"genre": "jazz", "erp_kw": 59},
            "ratings": {f"2025-0{m}-01": {"share": m, "audience": 1000 * m} for m in range(1, 9)},
        },
    }
    focus = {sub_record("/node/details/genre")}
    assert focus == {"/node/details/genre"}
    line = record_line("/stations/edges/25", record, focus, 400, scalars=True)
    assert line is not None
    assert '"call_sign":"Indigo Onyx"' in line and '"genre":"jazz"' in line
    assert "2025-03-01" not in line and "outlined" in line
    # An entry of a calendar is still the sub-record its values focus.
    assert sub_record("/ratings/2025-03-01/share") == "/ratings/2025-03-01"


def test_a_key_is_named_in_the_casing_of_the_records_fields() -> None:
    assert respelt("bed_id", ["CropName", "Props", "SownOn"]) == "BedId"
    assert respelt("station_id", ["erp-kw", "licence-city", "band"]) == "station-id"
    # Fields whose casings disagree or say nothing: the tools' name stands; one word is cased
    # only where every word of the casing shows it (capitals, or a capital first).
    assert respelt("sku", ["CropName"]) == "Sku"
    assert respelt("id", ["BREW_NAME", "SPECS", "VESSEL", "CONTACT_IDS"]) == "ID"
    assert respelt("sku", ["erp-kw", "licence-city"]) == "sku"
    assert respelt("user_id", ["name", "email"]) == "user_id"
    assert respelt("user_id", ["firstName", "last_name"]) == "user_id"


def test_a_compact_line_outlines_a_calendar_by_its_size_alone() -> None:
    record = {"name": "Pine", "nights": {f"2025-0{m}-01": {"seeing": m} for m in range(1, 9)}}
    line = record_line("/scopes/1", record, set(), 400, scalars=True)
    assert (
        line
        == '- /scopes/1 (large parts outlined): {"name":"Pine","nights":"<outlined: object of 8 entries>"}'
    )
    # Shown in full otherwise, and outlined with some of its keys when it must be.
    assert record_line("/scopes/1", record, set(), 400) is not None
    assert "2025-01-01, 2025-02-01" in str(record_line("/scopes/1", record, set(), 200))


def test_a_bound_on_a_time_goes_to_a_field_of_years() -> None:
    books = [(str(i), {"pages": 100 + i * 19, "year": 1800 + i * 2}) for i in range(100)]
    books_schema = FieldSchema.of("/books", books)
    # 1710 lies among the pages (100-1981), not the years (1800-1998): "after" says a time.
    found = read_collection(books_schema, {"published_after": 1710}).constraints
    assert [c.fields for c in found] == [("year",)]
    found = read_collection(books_schema, {"min_length": 1710}).constraints
    assert [c.fields for c in found] == [("pages",)]


def beds_world(id_type: str) -> World:
    beds = {str(1000 + i * 7): {"CropName": f"Bed {i}", "SizeM2": i} for i in range(30)}
    return World.model_validate(
        {
            "world": "t",
            "title": "T",
            "description": "Beds keyed by a number they do not hold.",
            "state": {"beds": beds},
            "tools": [
                {
                    "name": "get_bed",
                    "description": "A bed.",
                    "input_schema": {
                        "type": "object",
                        "properties": {"bed_id": {"type": id_type, "description": "Its id."}},
                    },
                }
            ],
        }
    )


def test_a_key_the_tools_take_as_a_number_is_written_as_one() -> None:
    for id_type, shown in (("integer", '(key "BedId":1007)'), ("string", '(key "BedId":"1007")')):
        world = beds_world(id_type)
        names = key_names(world, StateIndex(world, world.state))
        assert key_label("/beds/1007", names) == f" {shown}"


def test_a_bound_takes_no_field_whose_values_only_span_it() -> None:
    # Coded attributes under one map: flags of 0 beside item numbers of 20000 span a year,
    # but none is of a year's magnitude; the year field is.
    def record(n: int, years: bool) -> dict[str, Any]:
        coded = [{"0": "0"}, {"1": "0"}, {"4": "0"}, {"9": str(20000 + n)}]
        return {"title": f"T{n}", "codes": coded, **({"year": 1950 + n} if years else {})}

    flags = FieldSchema.of("/books", [(str(n), record(n, False)) for n in range(40)])
    assert read_collection(flags, {"published_to": 2208}).constraints == ()
    dated = FieldSchema.of("/books", [(str(n), record(n, True)) for n in range(40)])
    (bound,) = read_collection(dated, {"published_to": 2208}).constraints
    assert bound.fields == ("year",)


WORDS = ["indigo", "amber", "kelp", "vale"]
SURNAMES = ["Laine", "Petrov", "Quist"]


def catalogue() -> list[tuple[str, Any]]:
    """MARC-like records: codes (``ti``: a title) no argument's name fits, a title and an author
    written with ISBD punctuation, a year inside a date string, and a record number
    (``rn``) among the years."""
    return [
        (
            str(i),
            {
                "ti": f"{WORDS[i % 4].title()} {WORDS[(i + 1) % 4]} :",
                "ma": f"{SURNAMES[i % 3]}, Uma,",
                "pd": f"{1950 + (i * 7) % 60}.",
                "rn": str(1001 + i),
                "ty": ["BK", "DVD"][i % 2],
            },
        )
        for i in range(60)
    ]


def test_a_numbering_is_no_measure_a_bound_takes() -> None:
    catalogue_schema = FieldSchema.of("/records", catalogue())
    assert numbering(catalogue_schema.fields["rn"], catalogue_schema.step)
    engines_schema = schema()
    for measure in ("vmax", "storey", "info/rated"):
        assert not numbering(engines_schema.fields[measure], engines_schema.step)
    # Sampled every n-th record, a numbering's values lie n apart.
    many = FieldSchema.of("/records", [(str(i), {"rn": str(5000 + i)}) for i in range(2000)])
    assert many.step == 10 and numbering(many.fields["rn"], many.step)
    reading = read_collection(catalogue_schema, {"published_to": 2008})
    assert all("rn" not in c.fields for c in reading.constraints)


def test_loose_words_are_sought_at_a_word_start_inside_short_values() -> None:
    catalogue_schema = FieldSchema.of("/records", catalogue())
    assert containing(catalogue_schema, "indigo") == ["ti"]
    assert containing(catalogue_schema, "Lain") == ["ma"]
    assert containing(catalogue_schema, "ndigo") == []  # inside a word, not at its start
    arguments = {"title_word": "indigo", "author": "Laine", "format": "BK"}
    loose = {"title_word", "author"}
    found = {
        c.argument: (c.op, c.fields)
        for c in read_collection(catalogue_schema, arguments, loose=loose).constraints
    }
    assert found["title_word"] == ("contains", ("ti",))
    assert found["author"] == ("contains", ("ma",))
    assert found["format"] == ("eq", ("ty",))
    # Without ``loose`` (a value some record holds whole), the words are not sought.
    plain = read_collection(catalogue_schema, arguments).constraints
    assert [c.argument for c in plain] == ["format"]
    # Nor is a word of two letters, nor an argument whose name fits a field.
    short = read_collection(catalogue_schema, {"title_word": "in"}, loose={"title_word"})
    assert not short.constraints


def test_a_bound_in_epoch_milliseconds_bounds_the_dates_its_name_names() -> None:
    """HubSpot's ``createdate BETWEEN 1712793600000 AND 1717459200000`` over a company's
    ``createdate`` written as ISO text: the bounds are the times they stand for, on the
    named field, not on revenues whose numbers lie around them."""
    companies = [
        (
            str(i),
            {
                "properties": {
                    "createdate": f"2024-0{1 + i % 9}-1{i % 10}T03:03:20.417Z",
                    "annualrevenue": str(1_700_000_000_000 + i * 10**9),
                }
            },
        )
        for i in range(60)
    ]
    arguments = {"createdate_min": "1712793600000", "createdate_max": "1717459200000"}
    found = read_collection(FieldSchema.of("/companies", companies), arguments).constraints
    assert [(c.op, c.value, c.fields) for c in found] == [
        ("min", "2024-04-11T00:00:00Z", ("properties/createdate",)),
        ("max", "2024-06-04T00:00:00Z", ("properties/createdate",)),
    ]


def test_a_fields_values_are_joined_once_to_rule_it_out_in_one_search() -> None:
    schema = FieldSchema.of("/records", catalogue())
    assert containing(schema, "indigo") == ["ti"]
    joined = dict(schema.texts)
    assert "ti" in joined and all(schema.fields[p].kind == "string" for p in joined)
    assert containing(schema, "zzzq") == []
    assert all(schema.texts[p] is joined[p] for p in joined)  # read once per schema
    # The joined text is what rules a field out: one without the word is never scanned.
    schema.texts["ti"] = ""
    assert containing(schema, "indigo") == []


def test_a_prefix_no_field_holds_goes_to_the_records_own_keys() -> None:
    # An object's tags kept apart, keyed by the object's key: only the keys start with it.
    tags = [
        (f"logs/api/{n:03d}.gz" if n % 2 else f"backups/db/{n:03d}.sql", {"TagSet": ["x"]})
        for n in range(40)
    ]
    reading = read_collection(FieldSchema.of("/tagging", tags), {"Prefix": "backups/"})
    assert [c.fields for c in reading.constraints] == [(SELF,)]
    # Where a field's values start with it, the field is meant.
    assert fields_of({"name_starts": "Onyx"})["name_starts"] == ("label",)
