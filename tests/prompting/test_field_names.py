"""Names compared word by word; a call compares the same names again and again, so the pure
comparisons are remembered."""

from __future__ import annotations

from mcp_sim.prompting.field_names import name_score, read_argument, tokens


def test_a_name_is_read_as_its_singular_lower_case_words() -> None:
    assert tokens("arrivalAirports") == ("arrival", "airport")
    assert tokens("call_sign") == ("call", "sign")


def test_a_name_scored_again_is_remembered_and_scores_alike() -> None:
    arg, path = tokens("callSign"), (tokens("callsign"),)
    first = name_score(arg, path)
    hits = name_score.cache_info().hits
    assert name_score(arg, path) == first == 1.0
    assert name_score.cache_info().hits == hits + 1


def test_a_page_size_and_a_query_match_read_as_what_they_are() -> None:
    # GraphQL's ``first``/``last`` page a list, as ``limit`` does; ``first_name`` is a field.
    assert read_argument("first").control and read_argument("last").control
    assert not read_argument("first_name").control
    # A query's own parameters start with an underscore: ``_size: 0`` asks for no rows.
    assert read_argument("_size").control and read_argument("_max").control
    assert not read_argument("size").control and not read_argument("_id").control
    # A query's ``from:alice`` (see ``prompting/scalar_arguments.py``) matches a sender.
    assert (read_argument("from_matches").op, read_argument("from_matches").words) == (
        "match",
        ("from",),
    )


def test_a_name_sharing_only_a_function_word_fits_no_field() -> None:
    # A request's date ``on`` is not when a reel was ``filmedOn``.
    assert name_score(("filmed", "on"), (("on",),)) == 0.0
    assert name_score(("booked", "on"), (("booked", "on"),)) == 1.0
    assert name_score(("pickup", "city"), (("city",),)) > 0
