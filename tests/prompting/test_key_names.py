"""The name a keyed collection's unheld key goes by in answers: an output schema's id field
over the argument's name, and an argument called just ``id`` that its description ties to the
collection."""

from __future__ import annotations

from typing import Any

from mcp_sim.prompting.key_names import key_label, key_names
from mcp_sim.runtime.state_index import StateIndex
from mcp_sim.spec.world import World


def boats_world(tools: list[dict[str, Any]], prefix: str = "") -> World:
    boats = {
        f"{prefix}bt{i:04}": {"BOAT_NAME": f"Boat {i}", "HOME_PORT": "Islay"} for i in range(30)
    }
    return World.model_validate(
        {
            "world": "t",
            "title": "T",
            "description": "Boats keyed by an id they do not hold.",
            "state": {"BOATS": boats},
            "tools": tools,
        }
    )


def tool(name: str, argument: str, description: str, output: list[str] | None) -> dict[str, Any]:
    schema = {"type": "object", "properties": {}, "required": output} if output else None
    return {
        "name": name,
        "description": "A tool.",
        "input_schema": {
            "type": "object",
            "properties": {argument: {"type": "string", "description": description}},
        },
        "output_schema": schema,
    }


def label(world: World, pointer: str) -> str:
    return key_label(pointer, key_names(world, StateIndex(world, world.state)))


def test_an_output_schema_names_the_key_the_argument_only_points_at() -> None:
    described = "The boat's id, e.g. bt0003."
    plain = boats_world([tool("read_boat", "boat_id", described, None)])
    assert label(plain, "/BOATS/bt0007") == ' (key "BOAT_ID":"bt0007")'
    schemas = [
        tool("read_boat", "boat_id", described, ["id"]),
        tool("read_boat_item", "boat_id", described, ["code"]),
    ]
    assert label(boats_world(schemas), "/BOATS/bt0007") == ' (key "id":"bt0007")'
    # Schemas naming other id fields say nothing of this key.
    others = [tool("owners_of_boat", "boat_id", described, ["owner_id"])]
    assert label(boats_world(others), "/BOATS/bt0007") == ' (key "BOAT_ID":"bt0007")'


def test_an_argument_called_id_names_the_key_its_description_ties_to_the_records() -> None:
    world = boats_world([tool("get_boat", "id", "The boat's id.", None)], prefix="BOAT#")
    # The fields are written in capitals, so the answers' key is too.
    assert label(world, "/BOATS/BOAT#bt0007") == ' (key "ID":"bt0007")'
    other = boats_world([tool("get_crew", "id", "The crew's id.", None)], prefix="BOAT#")
    assert label(other, "/BOATS/BOAT#bt0007") == ""
