"""Output bounds for small models: bounded schemas sent to the model, and text observations
wrapped in a JSON envelope."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest

from mcp_sim.prompting.bounds import OutputBounds, bounded_schema, envelope_schema, open_envelope
from mcp_sim.settings import Settings
from mcp_sim.simulator.core import Simulator
from mcp_sim.spec.world import World
from tests.scripted_model import ScriptedModel

BOUNDS = OutputBounds(max_string=10, max_items=2)
NESTED: dict[str, Any] = {
    "type": "object",
    "properties": {
        "results": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "title": {"type": "string"},
                    "code": {"type": "string", "maxLength": 3},
                    "kind": {"type": "string", "enum": ["a-very-long-kind"]},
                    "tags": {"type": ["array", "null"], "items": {"type": "string"}},
                },
            },
        },
        "note": {"anyOf": [{"type": "string"}, {"type": "null"}]},
    },
}


def test_bounded_schema_bounds_every_string_and_array_it_finds() -> None:
    bounded = bounded_schema(NESTED, BOUNDS)
    results = bounded["properties"]["results"]
    item = results["items"]["properties"]
    assert results["maxItems"] == 2
    assert item["title"]["maxLength"] == 10
    assert item["tags"]["maxItems"] == 2 and item["tags"]["items"]["maxLength"] == 10
    assert bounded["properties"]["note"]["anyOf"][0]["maxLength"] == 10


def test_bounded_schema_keeps_bounds_and_enums_the_world_wrote() -> None:
    item = bounded_schema(NESTED, BOUNDS)["properties"]["results"]["items"]["properties"]
    assert item["code"]["maxLength"] == 3
    assert "maxLength" not in item["kind"]


def test_bounded_schema_leaves_patterned_strings_to_their_pattern() -> None:
    # xgrammar, vLLM's structured-output backend, refuses a pattern together with a length.
    schema = {"type": "object", "properties": {"day": {"type": "string", "pattern": "^[0-9]{2}$"}}}
    assert bounded_schema(schema, OutputBounds())["properties"]["day"] == {
        "type": "string",
        "pattern": "^[0-9]{2}$",
    }


def test_bounded_schema_leaves_the_original_untouched() -> None:
    before = json.dumps(NESTED, sort_keys=True)
    bounded_schema(NESTED, BOUNDS)
    assert json.dumps(NESTED, sort_keys=True) == before


def test_bounded_schema_never_goes_below_a_declared_minimum() -> None:
    schema = {"type": "string", "minLength": 50}
    assert bounded_schema(schema, BOUNDS)["maxLength"] == 50


def test_anything_valid_against_the_bounded_schema_is_valid_against_the_original() -> None:
    answer = {"results": [{"title": "short", "code": "abc", "tags": ["x"]}], "note": None}
    jsonschema.validate(answer, bounded_schema(NESTED, BOUNDS))
    jsonschema.validate(answer, NESTED)


def test_envelope_round_trips_an_observation() -> None:
    schema = envelope_schema(BOUNDS)
    assert schema["properties"]["observation"]["maxLength"] == 10
    assert open_envelope('{"observation": "total 0"}') == "total 0"
    assert open_envelope("total 0") is None
    assert open_envelope('{"other": 1}') is None


def test_output_bounds_reject_nonsense() -> None:
    with pytest.raises(ValueError):
        OutputBounds(max_string=0)


async def test_bounded_simulator_asks_for_an_envelope_and_unwraps_it(bookstore: World) -> None:
    model = ScriptedModel('{"observation": "b3: Cartographers of Rain"}')
    simulator = Simulator(
        bookstore,
        model,
        settings=Settings.of(bounded_output=True, output_string_limit=10, output_items_limit=2),
    )
    result = await simulator.call("s", "get_book", {"book_id": "b3"})
    assert not result.is_error
    assert result.text == "b3: Cartographers of Rain"
    request = model.requests[0]
    assert request.response_schema == envelope_schema(BOUNDS)
    assert "<predicted_observation>" not in request.messages[-1]["content"]


async def test_bounded_simulator_sends_a_bounded_copy_of_the_output_schema(
    bookstore: World,
) -> None:
    answer = {"results": [], "total": 0}
    model = ScriptedModel(json.dumps(answer))
    simulator = Simulator(
        bookstore,
        model,
        settings=Settings.of(bounded_output=True, output_string_limit=10, output_items_limit=2),
    )
    result = await simulator.call("s", "search_books", {"query": "rain"})
    assert result.structured == answer
    sent = model.requests[0].response_schema
    assert sent is not None and sent["properties"]["results"]["maxItems"] == 2
    tool = bookstore.tool("search_books")
    assert tool is not None and tool.output_schema is not None
    assert "maxItems" not in tool.output_schema["properties"]["results"]


async def test_an_answer_that_is_no_envelope_is_an_error_result(bookstore: World) -> None:
    simulator = Simulator(
        bookstore,
        ScriptedModel("just text"),
        settings=Settings.of(bounded_output=True, output_string_limit=10, output_items_limit=2),
    )
    result = await simulator.call("s", "get_book", {"book_id": "b3"})
    assert result.is_error and result.source == "model_error"
