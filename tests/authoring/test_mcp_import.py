"""Import: a real MCP server's tools become a world that ``mcp-sim serve`` advertises with
byte-identical schemas."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
import mcp.types as types
import pytest
from mcp import Client, StdioServerParameters
from mcp.server import Server

from mcp_sim.authoring.mcp_import import Upstream, connect, import_server
from mcp_sim.errors import ImportFailed, UpstreamError
from mcp_sim.spec.loading import load_world, parse_world
from mcp_sim.spec.world import World
from tests.conftest import BOOKSTORE, ROOT
from tests.processes import run_cli, serving_http
from tests.reference_servers import (
    everything_command,
    memory_command,
    uses_reference_servers,
)

DEAD_MODEL = ["--model-url", "http://127.0.0.1:9/v1", "--timeout", "5", "--retries", "0"]


def wire(tool: types.Tool) -> dict[str, Any]:
    """A tool as it goes over the wire, keys in the order sent."""
    return tool.model_dump(mode="json", by_alias=True, exclude_none=True, exclude={"execution"})


async def served_tools(world: Path) -> list[types.Tool]:
    args = ["-m", "mcp_sim", "serve", str(world), *DEAD_MODEL]
    params = StdioServerParameters(command=sys.executable, args=args, cwd=str(ROOT))
    with anyio.fail_after(60):
        async with Client(params) as client:
            return (await client.list_tools()).tools


async def real_tools(command: list[str]) -> tuple[list[types.Tool], str | None]:
    with anyio.fail_after(60):
        async with connect(Upstream(command=command)) as client:
            return (await client.list_tools()).tools, client.instructions


@pytest.mark.parametrize(
    "command", [memory_command, everything_command], ids=["server-memory", "server-everything"]
)
@uses_reference_servers
async def test_an_imported_server_is_served_with_byte_identical_tool_schemas(
    command: Any, tmp_path: Path
) -> None:
    world = tmp_path / "world.yaml"
    done = await anyio.to_thread.run_sync(
        lambda: run_cli("import", "-o", str(world), "--", *command())
    )
    assert done.returncode == 0, done.stderr
    assert run_cli("validate", str(world)).returncode == 0

    real, instructions = await real_tools(command())
    served = await served_tools(world)
    assert [t.name for t in served] == [t.name for t in real]
    for ours, theirs in zip(served, real, strict=True):
        assert json.dumps(ours.input_schema) == json.dumps(theirs.input_schema), ours.name
        assert json.dumps(ours.output_schema) == json.dumps(theirs.output_schema), ours.name
        # Name, title, description and annotations too: everything but task support, which
        # mcp-sim does not offer.
        assert json.dumps(wire(ours)) == json.dumps(wire(theirs)), ours.name
    spec = load_world(world)
    assert spec.description == (instructions or "").strip()
    for tool, listed in zip(spec.tools, real, strict=True):
        read_only = listed.annotations is not None and listed.annotations.read_only_hint
        assert tool.effect == ("read" if read_only else "write")


def paged_server(pages: list[list[str]]) -> Server[Any]:
    """An in-process server that lists its tools over several pages."""

    async def list_tools(
        ctx: Any, params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        page = int(params.cursor) if params is not None and params.cursor else 0
        tools = [
            types.Tool(
                name=name,
                description=f"Tool {name}.",
                input_schema={"type": "object", "properties": {"q": {"type": "string"}}},
                annotations=types.ToolAnnotations(read_only_hint=name.startswith("get")),
            )
            for name in pages[page]
        ]
        cursor = str(page + 1) if page + 1 < len(pages) else None
        return types.ListToolsResult(tools=tools, next_cursor=cursor)

    return Server(
        "acme/tools", version="2.0", instructions="Acme's tools.", on_list_tools=list_tools
    )


async def test_every_page_of_tools_list_is_imported() -> None:
    text = await import_server(paged_server([["get_a", "put_b"], ["get_c"], ["delete_d"]]))
    world = parse_world(text)
    assert [t.name for t in world.tools] == ["get_a", "put_b", "get_c", "delete_d"]
    assert [t.effect for t in world.tools] == ["read", "write", "read", "write"]
    assert all(t.annotations_as_given for t in world.tools)
    assert world.world == "acme-tools"
    assert world.title == "acme/tools"
    assert world.description == "Acme's tools."
    assert text.startswith("# Imported by `mcp-sim import` from acme/tools 2.0")


async def test_a_tool_name_the_spec_refuses_fails_the_import_naming_it() -> None:
    with pytest.raises(ImportFailed, match=r"tools\[0\]\.name"):
        await import_server(paged_server([["files/read"]]))


async def test_a_server_that_cannot_start_is_an_upstream_error() -> None:
    with pytest.raises(UpstreamError, match="cannot connect"):
        await import_server(Upstream(command=[sys.executable, "-c", "raise SystemExit(3)"]))


def test_import_without_a_server_says_what_to_give(tmp_path: Path) -> None:
    done = run_cli("import", "-o", str(tmp_path / "w.yaml"))
    assert done.returncode != 0
    assert "--url" in done.stderr
    assert "Traceback" not in done.stderr


def test_import_of_a_command_that_fails_reports_it_without_a_traceback(tmp_path: Path) -> None:
    done = run_cli("import", "-o", str(tmp_path / "w.yaml"), "--", "/nonexistent/server")
    assert done.returncode == 1
    assert "cannot connect to the MCP server /nonexistent/server" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "w.yaml").exists()


async def test_import_over_http_sends_the_given_headers(bookstore: World, tmp_path: Path) -> None:
    """mcp-sim's own HTTP server, behind a bearer token, stands in for a real remote server."""
    world = tmp_path / "imported.yaml"
    with serving_http(
        BOOKSTORE, *DEAD_MODEL, "--auth-token", "t0ken", log=tmp_path / "s.log"
    ) as url:
        refused = await anyio.to_thread.run_sync(
            lambda: run_cli("import", "-o", str(world), "--url", url)
        )
        done = await anyio.to_thread.run_sync(
            lambda: run_cli(
                "import", "-o", str(world), "--url", url, "--header", "Authorization: Bearer t0ken"
            )
        )
    assert refused.returncode == 1 and "cannot connect" in refused.stderr
    assert done.returncode == 0, done.stderr
    imported = load_world(world)
    assert [(t.name, t.input_schema, t.output_schema) for t in imported.tools] == [
        (t.name, t.input_schema, t.output_schema) for t in bookstore.tools
    ]
    assert imported.description == bookstore.description.strip()
    assert imported.title == bookstore.title
