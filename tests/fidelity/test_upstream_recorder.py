"""Recording: an MCP server in front of a real one that forwards every call and journals the
real answers in the simulator's journal format."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import mcp.types as types
import pytest
from mcp import Client, MCPError, StdioServerParameters
from mcp.server import Server

from mcp_sim.authoring.mcp_import import connect
from mcp_sim.fidelity.upstream_recorder import observation_of
from mcp_sim.journal import Journal, read_journal
from mcp_sim.spec.loading import load_world
from tests.conftest import ROOT
from tests.processes import free_port, stop, wait_until_listening
from tests.reference_servers import (
    EVERYTHING_SESSION,
    MEMORY_SESSION,
    call_all,
    dump,
    everything_server,
    memory_command,
    memory_server,
    recording,
    uses_reference_servers,
)

# --- against the reference servers from npm --------------------------------------------------


@uses_reference_servers
async def test_the_recorder_looks_like_the_real_server_and_journals_its_answers(
    tmp_path: Path,
) -> None:
    journal = Journal(tmp_path / "real.jsonl")
    (tmp_path / "direct").mkdir()
    (tmp_path / "recorded").mkdir()
    async with connect(memory_server(tmp_path / "direct")) as real:
        expected_tools = (await real.list_tools()).tools
        expected = await call_all(real, MEMORY_SESSION)
    async with recording(memory_server(tmp_path / "recorded"), journal) as client:
        tools = (await client.list_tools()).tools
        results = await call_all(client, MEMORY_SESSION)
    journal.close()

    # Everything but ``execution`` (task support), which the SDK's server leaves out of its
    # listings unless it serves tasks itself.
    assert [t.model_dump(by_alias=True, exclude={"execution"}) for t in tools] == [
        t.model_dump(by_alias=True, exclude={"execution"}) for t in expected_tools
    ]
    # The agent gets the real answers: the same as a direct client of a fresh server gets.
    assert [dump(r) for r in results] == [dump(r) for r in expected]
    records = read_journal(tmp_path / "real.jsonl")
    assert [(r.session, r.step, r.tool, r.arguments) for r in records] == [
        ("stdio", n, name, args) for n, (name, args) in enumerate(MEMORY_SESSION, 1)
    ]
    for record, result in zip(records, results, strict=True):
        (block,) = result.content
        assert isinstance(block, types.TextContent)
        assert record.source == "real"
        assert record.observation == block.text
        assert record.structured == result.structured_content
        assert record.is_error == result.is_error
        assert record.content is None
    assert [r.is_error for r in records] == [False, False, False, True, False]
    assert json.loads(records[-1].observation)["relations"] == [
        {"from": "Ana", "to": "Paperlane", "relationType": "shops at"}
    ]


@uses_reference_servers
async def test_results_that_are_not_one_text_keep_their_blocks_in_the_journal(
    tmp_path: Path,
) -> None:
    journal = Journal(tmp_path / "real.jsonl")
    async with recording(everything_server(), journal) as client:
        results = await call_all(client, EVERYTHING_SESSION)
    journal.close()
    records = {r.tool: r for r in read_journal(tmp_path / "real.jsonl")}
    by_tool = dict(zip([name for name, _ in EVERYTHING_SESSION], results, strict=True))

    image = records["get-tiny-image"]
    assert image.content == [
        b.model_dump(mode="json", by_alias=True, exclude_none=True)
        for b in by_tool["get-tiny-image"].content
    ]
    assert any(b["type"] == "image" for b in image.content)
    # The text form shows the image by its size, not its base64 data.
    image_block = next(b for b in image.content if b["type"] == "image")
    assert image_block["data"] not in image.observation
    assert f"<{len(image_block['data'])} base64 characters>" in image.observation
    links = records["get-resource-links"]
    assert links.content is not None
    assert [b["type"] for b in links.content].count("resource_link") == 2
    assert records["get-annotated-message"].content is not None
    # A single plain text is journaled as it is, with no blocks.
    assert records["get-sum"].content is None
    assert records["get-sum"].observation == "The sum of 2 and 3.5 is 5.5."
    assert records["get-structured-content"].structured == (
        by_tool["get-structured-content"].structured_content
    )


@uses_reference_servers
async def test_mcp_sim_record_journals_a_stdio_session_and_writes_the_world(
    tmp_path: Path,
) -> None:
    journal = tmp_path / "real.jsonl"
    world = tmp_path / "memory.yaml"
    command = [
        "-m",
        "mcp_sim",
        "record",
        "--journal",
        str(journal),
        "--world-out",
        str(world),
        "--env",
        f"MEMORY_FILE_PATH={tmp_path / 'memory.jsonl'}",
        "--",
        *memory_command(),
    ]
    params = StdioServerParameters(command=sys.executable, args=command, cwd=str(ROOT))
    async with Client(params) as client:
        results = await call_all(client, MEMORY_SESSION[:3])
    assert not any(r.is_error for r in results)
    records = read_journal(journal)
    assert [(r.session, r.step, r.source) for r in records] == [
        ("stdio", 1, "real"),
        ("stdio", 2, "real"),
        ("stdio", 3, "real"),
    ]
    # The world written next to the journal is the one the records belong to.
    assert {r.world for r in records} == {load_world(world).content_hash()}


# --- in process ------------------------------------------------------------------------------


def echo_server() -> Server[Any]:
    """A real server in this process: ``echo`` answers, anything else is a protocol error."""

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        schema = {"type": "object", "properties": {"text": {"type": "string"}}}
        return types.ListToolsResult(
            tools=[types.Tool(name="echo", description="Echo.", input_schema=schema)]
        )

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        if params.name != "echo":
            raise MCPError(types.INVALID_PARAMS, f"Unknown tool: {params.name}")
        text = str((params.arguments or {}).get("text", ""))
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)])

    return Server("echo", version="1.0", on_list_tools=list_tools, on_call_tool=call_tool)


async def test_protocol_errors_of_the_real_server_reach_the_client_and_are_not_journaled() -> None:
    journal = Journal()
    async with recording(echo_server(), journal) as client:
        with pytest.raises(MCPError) as refused:
            await client.call_tool("nope", {})
        answered = await client.call_tool("echo", {"text": "hi"})
    assert refused.value.code == types.INVALID_PARAMS
    assert [(r.step, r.tool, r.observation) for r in journal.records("stdio")] == [
        (1, "echo", "hi")
    ]
    assert not answered.is_error


def test_one_plain_text_block_is_the_observation_and_other_content_is_kept() -> None:
    plain = types.CallToolResult(content=[types.TextContent(type="text", text="hello")])
    assert observation_of(plain) == ("hello", None)
    mixed = types.CallToolResult(
        content=[
            types.TextContent(type="text", text="an image:"),
            types.ImageContent(type="image", data="QUJDRA==", mime_type="image/png"),
        ]
    )
    text, blocks = observation_of(mixed)
    assert (
        text
        == 'an image:\n{"type": "image", "data": "<8 base64 characters>", "mimeType": "image/png"}'
    )
    assert blocks == [
        {"type": "text", "text": "an image:"},
        {"type": "image", "data": "QUJDRA==", "mimeType": "image/png"},
    ]
    empty = types.CallToolResult(content=[])
    assert observation_of(empty) == ("", [])


@uses_reference_servers
async def test_mcp_sim_record_serves_streamable_http_too(tmp_path: Path) -> None:
    journal = tmp_path / "real.jsonl"
    log = tmp_path / "record.log"
    port = free_port()
    command = [sys.executable, "-m", "mcp_sim", "record", "--journal", str(journal)]
    command += ["--http", f"127.0.0.1:{port}", "--env", f"MEMORY_FILE_PATH={tmp_path / 'm.jsonl'}"]
    command += ["--", *memory_command()]
    with log.open("wb") as stderr:  # the child keeps its own copy
        process = subprocess.Popen(command, stderr=stderr, cwd=ROOT)
    try:
        await anyio.to_thread.run_sync(wait_until_listening, port, process, log)
        async with Client(f"http://127.0.0.1:{port}/mcp") as client:
            tools = (await client.list_tools()).tools
            results = await call_all(client, MEMORY_SESSION[:2])
    finally:
        stop(process)
    assert [t.name for t in tools][:2] == ["create_entities", "create_relations"]
    assert not any(r.is_error for r in results)
    records = read_journal(journal)
    assert [(r.step, r.source) for r in records] == [(1, "real"), (2, "real")]
    assert len({r.session for r in records}) == 1
