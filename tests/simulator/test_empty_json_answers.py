"""A tool whose real answer is an empty JSON value (``null``, ``[]`` or ``{}``) is simulated like
any other where the tool allows that value: the answer is journaled, kept in the history later
prompts show, exported and replayed, through the real simulator path. A free-text tool (no
output schema) takes each as text; a structured tool takes ``{}`` when its output schema
accepts it, and never ``null`` or ``[]``: MCP requires an object at a structured answer's root,
so those are repaired, then a model error."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mcp_sim.fidelity.trajectory_export import exported_rows
from mcp_sim.models.replay import Replay
from mcp_sim.simulator.core import Simulator
from mcp_sim.spec.world import World
from tests.scripted_model import ScriptedModel

OPEN_OBJECT: dict[str, Any] = {"type": "object", "properties": {"books": {"type": "array"}}}
"""An output schema with no required property: ``{}`` meets it."""
TAKEN = [("null", None), ("[]", None), ("{}", None), ("{}", OPEN_OBJECT)]
"""Each empty JSON value with the output schema of a tool that takes it (``None``: none)."""
SEARCH = {"brand": "Nobody"}
BOOK = {"id": "b1", "title": "Glass Rain"}


def _world(output_schema: dict[str, Any] | None) -> World:
    return World.model_validate(
        {
            "world": "empty-json",
            "title": "Empty JSON",
            "description": "A shelf of books and a search that may find nothing.",
            "state": {"books": [BOOK]},
            "tools": [
                {
                    "name": "find_books",
                    "description": "Books of a brand.",
                    "input_schema": {
                        "type": "object",
                        "properties": {"brand": {"type": "string"}},
                    },
                    "effect": "read",
                }
                | ({"output_schema": output_schema} if output_schema is not None else {}),
                {
                    "name": "get_book",
                    "description": "A book by id.",
                    "input_schema": {
                        "type": "object",
                        "properties": {"id": {"type": "string"}},
                        "required": ["id"],
                    },
                    "effect": "read",
                },
            ],
        }
    )


@pytest.mark.parametrize(("empty", "output_schema"), TAKEN)
async def test_an_empty_json_answer_is_journaled_kept_exported_and_replayed(
    empty: str, output_schema: dict[str, Any] | None
) -> None:
    world = _world(output_schema)
    structured = json.loads(empty) if output_schema is not None else None
    completion = empty if output_schema is not None else ScriptedModel.answer(empty)
    model = ScriptedModel(completion, ScriptedModel.answer(BOOK))
    simulator = Simulator(world, model)
    found = await simulator.call("s", "find_books", SEARCH)
    assert (found.text, found.structured, found.source) == (empty, structured, "model")
    assert not found.is_error
    await simulator.call("s", "get_book", {"id": "b1"})
    assert len(model.requests) == 2  # taken as it is: no repair was asked for
    later = model.requests[1].messages
    asked = next(i for i, m in enumerate(later) if "Nobody" in m["content"])
    assert later[asked + 1]["content"].rstrip().endswith(empty)
    records = simulator.journal.records("s")
    assert [(r.tool, r.observation, r.structured) for r in records[:1]] == [
        ("find_books", empty, structured)
    ]
    rows = await exported_rows(world, records, "sft")
    assert empty in rows[0]["messages"][-1]["content"]
    assert rows[1]["messages"][:-1] == later
    replaying = Simulator(world, ScriptedModel(), replay=Replay(records))
    again = await replaying.call("s", "find_books", SEARCH)
    assert (again.text, again.structured, again.source) == (empty, structured, "replay")


@pytest.mark.parametrize("empty", ["null", "[]", "{}"])
async def test_an_empty_json_answer_the_output_schema_refuses_is_repaired(empty: str) -> None:
    world = _world(OPEN_OBJECT | {"required": ["books"]})
    model = ScriptedModel(empty, empty)
    result = await Simulator(world, model).call("s", "find_books", SEARCH)
    assert result.source == "model_error" and "output schema" in result.text
    assert model.requests[1].purpose == "repair"
