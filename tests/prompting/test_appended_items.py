"""The number an item a write appends takes, named as the tool that reads an item by number
names it: tickets with their comments (a list, a lone comment written as an object, none)."""

from __future__ import annotations

from typing import Any

from mcp_sim.prompting.appended_items import number_name
from mcp_sim.prompting.grounding import ground
from mcp_sim.runtime.state_index import StateIndex
from mcp_sim.spec.world import World


def _tool(name: str, effect: str, **arguments: str) -> dict[str, Any]:
    properties = {n: {"type": t} for n, t in arguments.items()}
    return {
        "name": name,
        "description": name.replace("_", " "),
        "effect": effect,
        "input_schema": {"type": "object", "properties": properties},
    }


def ticket_world() -> World:
    """Tickets keyed by id: most with a list of comments, one with a lone comment (as an
    XML export writes a list of one), one with no list at all."""
    tickets: dict[str, Any] = {
        f"T-{n}": {
            "subject": f"Printer {n}",
            "watchers": {"count": 2},
            "thread": {
                "comment": [{"author": "kim", "body": f"note {k}"} for k in range(1 + n % 4)]
            },
        }
        for n in range(40)
    }
    tickets["T-1"]["thread"] = {"comment": {"author": "lou", "body": "only one"}}
    tickets["T-2"].pop("thread")
    return World.model_validate(
        {
            "world": "t",
            "title": "T",
            "description": "A help desk.",
            "state": {"tickets": tickets},
            "tools": [
                _tool("add_comment", "write", ticket="string", author="string", body="string"),
                _tool("read_comment", "read", ticket="string", position="integer"),
                _tool("find_tickets", "read", subject="string", author="string"),
            ],
        }
    )


def _appended(world: World, arguments: dict[str, Any]) -> Any:
    overlay = StateIndex(world, world.state).overlay_of(world.state)
    tool = world.tool("add_comment")
    return ground(overlay, world.state, tool, arguments, tools=world.tools).appended


def test_the_appended_item_takes_the_next_number_under_the_readers_name() -> None:
    world = ticket_world()
    add = world.tool("add_comment")
    assert add is not None and number_name(add, world.tools) == "position"
    found = _appended(world, {"ticket": "T-7", "author": "kim", "body": "hi"})
    assert found is not None
    assert (found.pointer, found.count) == ("/tickets/T-7/thread/comment", 4)
    assert '{"position": 5}' in found.render()
    lone = _appended(world, {"ticket": "T-1", "author": "kim", "body": "hi"})
    assert lone is not None and lone.count == 1 and '{"position": 2}' in lone.render()


def test_no_number_without_a_list_or_a_tool_that_reads_items_by_number() -> None:
    world = ticket_world()
    assert _appended(world, {"ticket": "T-2", "author": "kim", "body": "hi"}) is None
    reader = world.tool("read_comment")
    assert reader is not None
    overlay = StateIndex(world, world.state).overlay_of(world.state)
    read = ground(overlay, world.state, reader, {"ticket": "T-7", "position": 1}, tools=world.tools)
    assert read.appended is None
    unnumbered = [t for t in world.tools if t.name != "read_comment"]
    add = world.tool("add_comment")
    assert add is not None and number_name(add, unnumbered) is None
