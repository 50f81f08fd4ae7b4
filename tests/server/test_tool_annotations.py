"""Tool annotations over the SDK client: the defaults a tool's ``effect`` gives, a world's own
keys over them, and an imported tool's kept exactly."""

from __future__ import annotations

from typing import Any

import anyio
import mcp.types as types
import pytest
from mcp import Client

from mcp_sim.server.mcp_front import build_server
from mcp_sim.server.tools import advertised_title
from mcp_sim.simulator.core import Simulator
from mcp_sim.spec.loading import load_world
from mcp_sim.spec.world import ToolSpec, World
from mcp_sim.spec.world_files import example_names, example_path

SCHEMA = {"type": "object", "properties": {"id": {"type": "string"}}}


def world_of(*tools: dict[str, Any]) -> World:
    return World.model_validate(
        {
            "world": "annotated",
            "title": "Annotated",
            "tools": [
                {"description": f"Tool {t['name']}.", "input_schema": SCHEMA, **t} for t in tools
            ],
        }
    )


async def listed_annotations(world: World) -> dict[str, dict[str, Any] | None]:
    with anyio.fail_after(30):
        async with Client(build_server(Simulator(world, None))) as client:
            tools = (await client.list_tools()).tools
    return {t.name: wire(t.annotations) for t in tools}


def wire(annotations: types.ToolAnnotations | None) -> dict[str, Any] | None:
    if annotations is None:
        return None
    return annotations.model_dump(mode="json", by_alias=True, exclude_none=True)


async def test_reads_are_read_only_and_writes_destructive_by_default() -> None:
    listed = await listed_annotations(
        world_of(
            {"name": "get_order", "effect": "read"}, {"name": "cancel_order", "effect": "write"}
        )
    )
    assert listed == {
        "get_order": {
            "title": "Get order",
            "readOnlyHint": True,
            "idempotentHint": True,
            "openWorldHint": False,
        },
        "cancel_order": {
            "title": "Cancel order",
            "readOnlyHint": False,
            "destructiveHint": True,
            "idempotentHint": False,
            "openWorldHint": False,
        },
    }


async def test_the_worlds_annotations_win_key_by_key() -> None:
    listed = await listed_annotations(
        world_of(
            {
                "name": "add_note",
                "effect": "write",
                "annotations": {"destructiveHint": False, "idempotentHint": True},
            },
            {
                "name": "peek",
                "effect": "read",
                "annotations": {"title": "Peek", "openWorldHint": False},
            },
        )
    )
    assert listed == {
        "add_note": {
            "title": "Add note",
            "readOnlyHint": False,
            "destructiveHint": False,
            "idempotentHint": True,
            "openWorldHint": False,
        },
        "peek": {
            "title": "Peek",
            "readOnlyHint": True,
            "idempotentHint": True,
            "openWorldHint": False,
        },
    }


async def test_an_imported_tool_keeps_its_annotations_exactly() -> None:
    listed = await listed_annotations(
        world_of(
            {"name": "bare", "effect": "write", "annotations_as_given": True},
            {
                "name": "titled",
                "effect": "write",
                "annotations": {"title": "Titled"},
                "annotations_as_given": True,
            },
        )
    )
    assert listed == {"bare": None, "titled": {"title": "Titled"}}


@pytest.mark.parametrize("example", example_names())
async def test_every_tool_of_every_shipped_world_has_a_title_and_annotations(example: str) -> None:
    world = load_world(example_path(example))
    with anyio.fail_after(30):
        async with Client(build_server(Simulator(world, None))) as client:
            tools = (await client.list_tools()).tools
    assert [t.name for t in tools] == [t.name for t in world.tools]
    effects = {t.name: t.effect for t in world.tools}
    for tool in tools:
        assert tool.title, tool.name
        annotations = wire(tool.annotations)
        assert annotations is not None, tool.name
        assert annotations["title"] == tool.title
        read = effects[tool.name] == "read"
        assert annotations["readOnlyHint"] is read, tool.name
        assert annotations["idempotentHint"] is read, tool.name
        assert annotations.get("destructiveHint", False) is not read, tool.name
        assert annotations["openWorldHint"] is (world.domain in ("search", "web")), tool.name


@pytest.mark.parametrize(
    ("name", "title"),
    [
        ("get_book", "Get book"),
        ("getBookByISBN", "Get book by ISBN"),
        ("list-open.orders", "List open orders"),
        ("ls", "Ls"),
        ("HTTP_get", "HTTP get"),
        ("__", "__"),
    ],
)
def test_a_title_is_made_from_the_name_when_the_world_gives_none(name: str, title: str) -> None:
    tool = ToolSpec.model_validate({"name": name, "description": "d", "input_schema": SCHEMA})
    assert advertised_title(tool) == title
    given = tool.model_copy(update={"title": "Given"})
    assert advertised_title(given) == "Given"


async def test_the_bookstore_annotates_every_tool(bookstore: World) -> None:
    listed = await listed_annotations(bookstore)
    for tool in bookstore.tools:
        annotations = listed[tool.name]
        assert annotations is not None, tool.name
        assert annotations["readOnlyHint"] is (tool.effect == "read"), tool.name
