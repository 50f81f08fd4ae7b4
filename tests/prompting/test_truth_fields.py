"""Searches over two families of state: a record label's catalogue (tracks nesting their album
and artists, albums nesting their tracks) searched with a one-string query
(``q: 'amber artist:"Ana Varga" year:2014-2016'``, ``type: track``), and a billing system's
charges searched by flags (``refunded: false``) and a SOQL-like ``where`` (``IsClosed =
false``). A yes or a no constrains the boolean field its name names, and nothing else; a span
of years is any of its years in a date; a name given for an object whose id the argument's
name fits is matched on the name beside that id; a value naming the kind of records
(``track``) chooses their collection over one nesting records of that kind."""

from __future__ import annotations

from typing import Any

from mcp_sim.prompting.constraints import read_collection
from mcp_sim.prompting.field_search import FieldSearch
from mcp_sim.prompting.field_tables import FieldTables
from mcp_sim.prompting.named_leaves import beside_named
from mcp_sim.prompting.periods import year_span
from mcp_sim.prompting.truth_fields import TRUTH_OP, truth_of
from mcp_sim.runtime.state_index import StateIndex
from mcp_sim.spec.world import World
from tests.prompting.test_field_search import world_of

ARTISTS = ["Ana Varga", "The Indigos", "Chiara Kovac", "Bruno Lind"]
WORDS = ["amber", "cedar", "fjord", "willow", "nimbus", "meadow"]


def _artist(n: int) -> dict[str, Any]:
    return {"id": f"AR{n:020d}", "name": ARTISTS[n % 4], "type": "artist"}


def catalogue() -> World:
    tracks = [
        {
            "id": f"TR{n:020d}",
            "name": f"{WORDS[n % 6].title()} {WORDS[(n // 6) % 6].title()}",
            "type": "track",
            "artists": [_artist(n % 4)],
            "album": {"name": f"Album {n // 10}", "release_date": f"{2005 + n // 10}-03-01"},
        }
        for n in range(120)
    ]
    albums = [
        {
            "id": f"AL{a:020d}",
            "name": f"Album {a}",
            "type": "album",
            "artists": [_artist(a % 4)],
            "tracks": {"items": [{"name": t["name"], "type": "track"} for t in tracks[a::12]]},
        }
        for a in range(12)
    ]
    state = {"tracks": {"tracks": tracks}, "albums": {"albums": albums}}
    return world_of(state, ("search", "GET /v1/search. q: words and field filters."))


def billing() -> World:
    charges = [
        {
            "id": f"ch_{n:04d}",
            "amount": 100 * n,
            "currency": ["eur", "usd"][n % 2],
            "refunded": n % 3 == 0,
            "IsClosed": n % 5 == 0,
        }
        for n in range(90)
    ]
    return world_of({"charges": charges}, ("list_charges", "Charges, filtered."))


def _search(world: World, tool: str, arguments: dict[str, Any]) -> Any:
    overlay = StateIndex(world, world.state).overlay_of(world.state)
    result, *_ = FieldSearch(overlay, world.state).search(world.tool(tool), arguments)
    return result


def _schema(world: World, pointer: str) -> Any:
    index = StateIndex(world, world.state)
    tables = FieldTables.of(index)
    return tables.schema(next(c for c in index.collections if c.pointer == pointer))


def test_a_yes_or_no_is_read_as_a_boolean() -> None:
    assert truth_of(False) is False
    assert truth_of(" TRUE ") is True
    assert truth_of("yes") is None
    assert truth_of(0) is None


def test_a_flag_constrains_the_boolean_field_its_name_names() -> None:
    found = _search(billing(), "list_charges", {"refunded": False, "currency": "eur"})
    (flag,) = [c for c in found.reading.constraints if c.argument == "refunded"]
    assert (flag.op, flag.value, flag.fields) == (TRUTH_OP, False, ("refunded",))
    assert flag.describe() == "refunded = false"
    charges = billing().state["charges"]
    expected = [n for n, c in enumerate(charges) if not c["refunded"] and c["currency"] == "eur"]
    assert found.full == [f"/charges/{n}" for n in expected]


def test_a_flag_no_boolean_field_answers_to_constrains_nothing() -> None:
    schema = _schema(billing(), "/charges")
    reading = read_collection(schema, {"include_archived": True, "currency": "usd"})
    assert [c.argument for c in reading.constraints] == ["currency"]


def test_a_query_literal_true_or_false_is_the_boolean() -> None:
    found = _search(billing(), "list_charges", {"where": "IsClosed = false AND currency = 'usd'"})
    (flag,) = [c for c in found.reading.constraints if c.argument == "IsClosed"]
    assert (flag.op, flag.value) == (TRUTH_OP, False)
    charges = billing().state["charges"]
    assert len(found.full) == sum(
        1 for c in charges if not c["IsClosed"] and c["currency"] == "usd"
    )


def test_a_span_of_years_is_each_of_its_years() -> None:
    assert year_span("2015-2017") == ["2015", "2016", "2017"]
    assert year_span("1990..1991") == ["1990", "1991"]
    assert year_span("2017-2015") is None
    assert year_span("2025-01") is None
    assert year_span("555-1234") is None


def test_a_query_s_span_of_years_bounds_the_dates_in_it() -> None:
    found = _search(catalogue(), "search", {"q": "year:2014-2015 amber", "type": "track"})
    assert found.collection.pointer == "/tracks/tracks"
    (span,) = [c for c in found.reading.constraints if c.argument.startswith("year")]
    assert (span.op, span.fields) == ("prefix", ("album/release_date",))
    tracks = catalogue().state["tracks"]["tracks"]
    expected = [
        n
        for n, t in enumerate(tracks)
        if t["album"]["release_date"][:4] in ("2014", "2015") and "Amber" in t["name"]
    ]
    assert expected and found.full == [f"/tracks/tracks/{n}" for n in expected]


def test_a_name_for_an_object_whose_id_the_argument_fits_is_matched_on_its_name() -> None:
    schema = _schema(catalogue(), "/tracks/tracks")
    assert beside_named(schema, ["artists/*/id"], "Chiara Kovac") == ["artists/*/name"]
    # An id the fields hold, or a field without an object around it, is left as it is.
    assert beside_named(schema, ["artists/*/id"], f"AR{2:020d}") == []
    assert beside_named(schema, ["id"], "Chiara Kovac") == []
    found = _search(catalogue(), "search", {"q": 'artist:"Chiara Kovac" nimbus', "type": "track"})
    (artist,) = [c for c in found.reading.constraints if c.argument.startswith("artist")]
    assert artist.fields == ("artists/*/name",)
    tracks = catalogue().state["tracks"]["tracks"]
    expected = [
        n
        for n, t in enumerate(tracks)
        if t["artists"][0]["name"] == "Chiara Kovac" and "Nimbus" in t["name"]
    ]
    assert expected and found.full == [f"/tracks/tracks/{n}" for n in expected]


def test_a_value_naming_the_kind_of_records_chooses_their_collection() -> None:
    # The albums nest tracks (``tracks/items/*/type``): both collections hold "track".
    found = _search(catalogue(), "search", {"q": "willow cedar", "type": "track"})
    assert found.collection.pointer == "/tracks/tracks"


def test_a_bound_fitting_a_record_s_own_date_and_its_items_bounds_the_record_s() -> None:
    issues: list[dict[str, Any]] = [
        {
            "key": f"PAY-{n}",
            "fields": {"created": f"2025-{1 + n % 12:02d}-10", "summary": f"Issue {n}"},
            "changelog": {"histories": [{"created": f"2025-{1 + (n + 5) % 12:02d}-11"}]},
        }
        for n in range(60)
    ]
    world = world_of({"issues": issues}, ("search_issues", "Issues, filtered."))
    found = _search(world, "search_issues", {"created_before": "2025-03-01"})
    (bound,) = found.reading.constraints
    assert bound.fields == ("fields/created",)
    expected = [n for n, i in enumerate(issues) if i["fields"]["created"] <= "2025-03-01"]
    assert found.full == [f"/issues/{n}" for n in expected]
