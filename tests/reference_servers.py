"""Real MCP servers from npm for the import, record, replay and eval tests: the reference
``server-memory`` (a knowledge graph kept in a file: stateful, structured results, errors) and
``server-everything`` (images, resource links, annotated blocks, server instructions).

``bash scripts/test`` installs them, pinned, next to the other npm peers and exports
``MCP_SIM_NODE22_BIN`` and ``MCP_SIM_NPM_PEERS``; without the former the tests that use them
skip, with it they must run.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

import anyio
import mcp.types as types
import pytest
from mcp import Client
from mcp.server import Server

from mcp_sim.authoring.mcp_import import Upstream, connect, read_listing
from mcp_sim.fidelity.upstream_recorder import UpstreamRecorder, build_upstream_recorder, world_hash
from mcp_sim.journal import Journal

NODE22_BIN = os.environ.get("MCP_SIM_NODE22_BIN", "")
NPM_PEERS = os.environ.get("MCP_SIM_NPM_PEERS", "")

F = TypeVar("F", bound=Callable[..., Any])


def uses_reference_servers(test: F) -> F:
    """Mark a test that runs a reference server: ``peers``, skipped without Node 22."""
    skip = pytest.mark.skipif(
        not NODE22_BIN,
        reason="MCP_SIM_NODE22_BIN is unset: run `bash scripts/test` to install Node 22 and the "
        "reference MCP servers from npm",
    )
    marked: F = pytest.mark.peers(skip(test))
    return marked


def _entry(package: str) -> str:
    path = Path(NPM_PEERS) / "@modelcontextprotocol" / package / "dist" / "index.js"
    assert path.is_file(), f"@modelcontextprotocol/{package} is not installed in {NPM_PEERS}"
    return str(path)


def node() -> str:
    path = Path(NODE22_BIN) / "node"
    assert path.is_file(), f"MCP_SIM_NODE22_BIN={NODE22_BIN} holds no node"
    return str(path)


def memory_command() -> list[str]:
    return [node(), _entry("server-memory")]


def memory_server(folder: Path) -> Upstream:
    """The memory server, keeping its graph in ``folder`` (a fresh folder: an empty graph)."""
    return Upstream(
        command=memory_command(), env={"MEMORY_FILE_PATH": str(folder / "memory.jsonl")}
    )


def everything_command() -> list[str]:
    return [node(), _entry("server-everything"), "stdio"]


def everything_server() -> Upstream:
    return Upstream(command=everything_command())


MEMORY_SESSION: list[tuple[str, dict[str, object]]] = [
    (
        "create_entities",
        {
            "entities": [
                {"name": "Ana", "entityType": "person", "observations": ["lives in Lisbon"]},
                {"name": "Paperlane", "entityType": "shop", "observations": ["sells books"]},
            ]
        },
    ),
    (
        "create_relations",
        {"relations": [{"from": "Ana", "to": "Paperlane", "relationType": "shops at"}]},
    ),
    ("search_nodes", {"query": "Lisbon"}),
    ("add_observations", {"observations": [{"entityName": "Zed", "contents": ["unknown"]}]}),
    ("read_graph", {}),
]
"""A session against the memory server: creations, a search, an error (no such entity) and a
read of the whole graph, each answer a function of the calls before it."""

EVERYTHING_SESSION: list[tuple[str, dict[str, object]]] = [
    ("echo", {"message": "hello"}),
    ("get-sum", {"a": 2, "b": 3.5}),
    ("get-tiny-image", {}),
    ("get-resource-links", {"count": 2}),
    ("get-annotated-message", {"messageType": "error", "includeImage": True}),
    ("get-structured-content", {"location": "Chicago"}),
]
"""Calls whose results are not one plain text: an image, resource links, annotated blocks."""


def dump(result: types.CallToolResult) -> dict[str, Any]:
    """What a client sees of a result, without the ``_meta`` a server adds."""
    data = result.model_dump(mode="json", by_alias=True, exclude_none=True)
    data.pop("_meta", None)
    return data


@asynccontextmanager
async def recording(upstream: Upstream | Server[Any], journal: Journal) -> AsyncIterator[Client]:
    """A client of the recorder (in memory) in front of the real server."""
    async with connect(upstream) as real:
        listing = await read_listing(real)
        recorder = UpstreamRecorder(real, journal, world_hash=world_hash(listing) or "")
        async with Client(
            build_upstream_recorder(recorder, listing, default_session="stdio")
        ) as client:
            yield client


async def call_all(
    client: Client, calls: list[tuple[str, dict[str, Any]]]
) -> list[types.CallToolResult]:
    with anyio.fail_after(60):
        return [await client.call_tool(name, arguments) for name, arguments in calls]
