"""Answer keys learned from a tool's earlier answers, shown beside the records they name."""

from __future__ import annotations

import json
from typing import Any

from mcp_sim.prompting.answer_names import answer_names
from mcp_sim.prompting.answer_sources import Source
from mcp_sim.runtime.state_index import StateIndex, StateOverlay
from mcp_sim.spec.world import ToolSpec, World

SCHEMA = {"type": "object", "properties": {"hull": {"type": "string"}}}


def overlay_of(state: dict[str, Any]) -> StateOverlay:
    world = World.model_validate(
        {"world": "t", "title": "T", "description": "A hand-made state.", "state": state}
        | {"tools": [{"name": "get_vessel", "description": "A vessel.", "input_schema": SCHEMA}]}
    )
    return StateIndex(world, world.state).overlay_of(world.state)


def fleet() -> dict[str, Any]:
    """Vessels whose store nests what the answers call ``berths`` and ``master``."""
    return {
        "vessels": [
            {
                "hull": f"HX-{700 + i}",
                "crew": {"captain": {"fullName": f"Ingrid Solberg {i}"}},
                "specs": [{"cabinCount": 10 + i}, {"cabinCount": 99}],
            }
            for i in range(12)
        ]
    }


def test_keys_that_name_other_fields_are_learned_from_answers() -> None:
    state = fleet()
    overlay = overlay_of(state)
    answers = [
        json.dumps({"hull": "HX-703", "master": "Ingrid Solberg 3", "berths": 13}),
        json.dumps({"hull": "HX-705", "master": "Ingrid Solberg 5", "berths": 15}),
    ]
    names = answer_names(overlay, state, answers)
    assert names.fields == {
        "/vessels": {
            "master": Source("crew/captain/fullName"),
            "berths": Source("specs/0/cabinCount"),
        }
    }
    shown = names.render(overlay, state, ["/vessels/8"], 2000)
    assert '"master": "Ingrid Solberg 8" (crew/captain/fullName)' in shown
    assert '"berths": 18 (specs/0/cabinCount)' in shown


def test_mappings_that_answers_contradict_are_dropped() -> None:
    state = fleet()
    overlay = overlay_of(state)
    answers = [
        json.dumps({"hull": "HX-703", "master": "Ingrid Solberg 3", "berths": 13}),
        # The same key now holds another field's value: no mapping of it is trusted.
        json.dumps({"hull": "HX-704", "master": "HX-704", "berths": 14}),
    ]
    names = answer_names(overlay, state, answers)
    assert names.fields == {"/vessels": {"berths": Source("specs/0/cabinCount")}}


def test_a_later_list_item_names_no_field() -> None:
    state = fleet()
    overlay = overlay_of(state)
    # 99 stands in every vessel's second spec only: that sub-record is no field's name.
    answers = [json.dumps({"hull": "HX-702", "extra": 99})]
    assert answer_names(overlay, state, answers).fields == {}


def test_a_value_keying_its_own_entry_names_no_field() -> None:
    state = {
        "users": {
            f"user_{i}": {
                "name": f"Omar Lopez {i}",
                "wallet": {f"paypal_{900 + i}": {"id": f"paypal_{900 + i}", "kind": "paypal"}},
            }
            for i in range(6)
        }
    }
    overlay = overlay_of(state)
    # An order's answer pays with the user's paypal_903: the entry keyed by it shows it,
    # and no other user has that entry.
    answers = [json.dumps({"user_id": "user_3", "payment_method_id": "paypal_903"})]
    assert answer_names(overlay, state, answers).fields == {}


def test_no_answers_or_text_answers_show_nothing() -> None:
    state = fleet()
    overlay = overlay_of(state)
    names = answer_names(overlay, state, ["Vessel HX-703 is at sea.", "null"])
    assert names.fields == {}
    assert names.render(overlay, state, ["/vessels/1"], 2000) == ""


def test_the_relabelled_records_keep_within_their_room() -> None:
    state = fleet()
    overlay = overlay_of(state)
    answers = [json.dumps({"hull": "HX-703", "master": "Ingrid Solberg 3", "berths": 13})]
    names = answer_names(overlay, state, answers)
    pointers = [f"/vessels/{i}" for i in range(12)]
    shown = names.render(overlay, state, pointers, 300)
    assert 0 < len(shown) <= 300
    assert shown.count("\n- ") < 6


def test_an_answer_may_name_a_part_of_a_composite_key() -> None:
    """A single-table store keys each item ``VESSEL#HX-703``; the answers say ``hull_id``."""
    state = {
        "Items": [
            {"PK": f"VESSEL#HX-{700 + i}", "SK": "#META", "name": f"Skarv {i}"} for i in range(8)
        ]
    }
    overlay = overlay_of(state)
    answers = [json.dumps({"hull_id": "HX-702", "name": "Skarv 2"})]
    names = answer_names(overlay, state, answers)
    assert names.fields == {"/Items": {"hull_id": Source("PK", 0)}}
    shown = names.render(overlay, state, ["/Items/5"], 2000)
    assert '"hull_id": "HX-705" (part 1 of PK)' in shown


def test_the_output_schema_names_fields_no_answer_has_named_yet() -> None:
    state = fleet()
    overlay = overlay_of(state)
    tool = ToolSpec.model_validate(
        {"name": "get_vessel", "description": "A vessel.", "input_schema": SCHEMA}
        | {"output_schema": {"type": "object", "properties": {"captain_name": {"type": "string"}}}}
    )
    names = answer_names(overlay, state, [], tool)
    shown = names.render(overlay, state, ["/vessels/4"], 2000)
    assert '"captain_name": "Ingrid Solberg 4" (crew/captain/fullName)' in shown


def test_other_tools_answers_name_the_fields_of_the_same_collection() -> None:
    """A join called once an episode never saw its own answers; a lookup's name the fields."""
    state = fleet()
    overlay = overlay_of(state)
    others = [json.dumps({"hull": "HX-703", "master": "Ingrid Solberg 3"})]
    names = answer_names(overlay, state, [], others=others)
    assert names.fields == {"/vessels": {"master": Source("crew/captain/fullName")}}


def test_the_tools_own_answers_win_and_choose_the_keys_shown() -> None:
    state = fleet()
    overlay = overlay_of(state)
    own = [json.dumps({"hull": "HX-702", "skipper": "Ingrid Solberg 2"})]
    # Another tool names the captain otherwise and gives the berths, which this tool's
    # answers about vessels never do.
    others = [json.dumps({"hull": "HX-703", "master": "Ingrid Solberg 3", "berths": 113.5})]
    state["vessels"][3]["specs"][0]["cabinCount"] = 113.5
    names = answer_names(overlay, state, own, others=others)
    assert names.fields == {"/vessels": {"skipper": Source("crew/captain/fullName")}}
    # With no answer of its own about vessels, the other tool's names all stand.
    assert set(answer_names(overlay, state, [], others=others).fields["/vessels"]) == {
        "master",
        "berths",
    }


def test_other_tools_that_disagree_name_nothing() -> None:
    state = fleet()
    overlay = overlay_of(state)
    others = [
        json.dumps({"hull": "HX-703", "master": "Ingrid Solberg 3"}),
        json.dumps({"hull": "HX-704", "master": "HX-704"}),
    ]
    assert answer_names(overlay, state, [], others=others).fields == {}


def test_a_small_number_seen_once_names_no_field() -> None:
    """``"berths": 13`` may equal a field by chance: a second answer must agree."""
    state = fleet()
    overlay = overlay_of(state)
    once = [json.dumps({"hull": "HX-703", "berths": 13})]
    assert answer_names(overlay, state, once).fields == {}
    twice = [*once, json.dumps({"hull": "HX-705", "berths": 15})]
    assert answer_names(overlay, state, twice).fields == {
        "/vessels": {"berths": Source("specs/0/cabinCount")}
    }


def test_where_a_key_comes_from_is_said_once_per_collection() -> None:
    state = fleet()
    overlay = overlay_of(state)
    answers = [json.dumps({"hull": "HX-703", "master": "Ingrid Solberg 3"})]
    names = answer_names(overlay, state, answers)
    shown = names.render(overlay, state, ["/vessels/4", "/vessels/5"], 2000)
    assert '- /vessels/4: "master": "Ingrid Solberg 4" (crew/captain/fullName)' in shown
    assert '- /vessels/5: "master": "Ingrid Solberg 5"\n' in shown + "\n"


def test_a_searchs_hits_show_only_the_names_the_tools_own_answers_give() -> None:
    state = fleet()
    overlay = overlay_of(state)
    others = [json.dumps({"hull": "HX-703", "master": "Ingrid Solberg 3"})]
    names = answer_names(overlay, state, [], others=others)
    # Picked, a record is shown under another tool's names; as a hit, not.
    assert "Ingrid Solberg 4" in names.render(overlay, state, ["/vessels/4"], 2000)
    assert names.render(overlay, state, [], 2000, hits=["/vessels/4"]) == ""
    own = [json.dumps({"hull": "HX-702", "master": "Ingrid Solberg 2"})]
    names = answer_names(overlay, state, own, others=others)
    assert "Ingrid Solberg 4" in names.render(overlay, state, [], 2000, hits=["/vessels/4"])


def test_an_answer_is_read_once_per_state_version_and_again_for_another_state() -> None:
    state = fleet()
    overlay = overlay_of(state)
    answers = [
        json.dumps({"hull": "HX-703", "master": "Ingrid Solberg 3", "berths": 13}),
        json.dumps({"hull": "HX-705", "master": "Ingrid Solberg 5", "berths": 15}),
    ]
    first = answer_names(overlay, state, answers).fields
    kept = overlay.derived["answers read for names"]
    assert set(kept) == set(answers)
    # A later call at the same state version reads what was kept: a reading planted there
    # (as if the answers had said otherwise) is what it learns from.
    hull = Source("hull")
    kept[answers[0]] = (
        state,
        [("/vessels", frozenset({"ship"}), {"ship": hull}, frozenset({"ship"}))],
    )
    assert answer_names(overlay, state, answers).fields["/vessels"]["ship"] == hull
    # Another state object (a session's state replaced) is read afresh.
    again = answer_names(overlay, fleet(), answers).fields
    assert again == first


def test_a_records_fields_are_read_once_while_it_is_unchanged(monkeypatch: Any) -> None:
    # Every earlier answer about a record is read again after each write: its fields (a
    # sorted set's thousands of members) are read into a lookup once, not once per answer.
    from mcp_sim.prompting.answer_sources import leaves

    state = fleet()
    overlay = overlay_of(state)
    reads: list[Any] = []
    original = leaves

    def counted(value: Any, *args: Any) -> Any:
        if not args:
            reads.append(value)
        return original(value, *args)

    monkeypatch.setattr("mcp_sim.prompting.answer_names.leaves", counted)
    answers = [
        json.dumps({"hull": "HX-703", "master": "Ingrid Solberg 3"}),
        json.dumps({"hull": "HX-703", "master": "Ingrid Solberg 3", "berths": 13}),
    ]
    names = answer_names(overlay, state, answers)
    assert names.fields["/vessels"]["master"] == Source("crew/captain/fullName")
    assert len(reads) == 1
