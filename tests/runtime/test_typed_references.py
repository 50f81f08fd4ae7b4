"""A kind is named whatever its spelling; a collection's pointer names the kind it holds."""

from __future__ import annotations

from mcp_sim.runtime.typed_references import collection_word, kind_word


def test_a_kinds_spellings_agree() -> None:
    assert kind_word("Patients") == kind_word("PATIENT") == "patient"
    assert kind_word("ServiceRequest") == "servicerequest"


def test_a_collections_kind_is_remembered_once_worked_out() -> None:
    assert collection_word("/harbour/items/@CrewMember") == "crewmember"
    hits = collection_word.cache_info().hits
    assert collection_word("/harbour/items/@CrewMember") == "crewmember"
    assert collection_word.cache_info().hits == hits + 1
