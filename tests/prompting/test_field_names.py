"""Names compared word by word; a call compares the same names again and again, so the pure
comparisons are remembered."""

from __future__ import annotations

from mcp_sim.prompting.field_names import name_score, tokens


def test_a_name_is_read_as_its_singular_lower_case_words() -> None:
    assert tokens("arrivalAirports") == ("arrival", "airport")
    assert tokens("call_sign") == ("call", "sign")


def test_a_name_scored_again_is_remembered_and_scores_alike() -> None:
    arg, path = tokens("callSign"), (tokens("callsign"),)
    first = name_score(arg, path)
    hits = name_score.cache_info().hits
    assert name_score(arg, path) == first == 1.0
    assert name_score.cache_info().hits == hits + 1
