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
