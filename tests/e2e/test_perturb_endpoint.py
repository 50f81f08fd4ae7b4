"""Perturbations end to end over real HTTP: an MCP client → ``mcp-sim serve --http --perturb``
(a real subprocess) → the OpenAI-compatible double, which records the prompts it is sent."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import anyio
import mcp.types as types
import pytest
from mcp import Client

from mcp_sim.journal import read_journal
from mcp_sim.prompting.native import SIMULATION_INSTRUCTION_HEADING
from tests.openai_double import OpenAIDouble, RecordedRequest, Reply
from tests.processes import ROOT, serving_http

BOOK = '{"id": "b1", "title": "The Glass River", "price": 12.5, "stock": 3}'
SEARCH = {"results": [], "total": 0}
PROFILE = """
perturbations:
  lab:
    - {kind: stale, tools: [get_book]}
    - {kind: timeout, tools: [cancel_order]}
"""


def answer(request: RecordedRequest) -> Reply:
    if "response_format" in request.body:
        return Reply(content=json.dumps(SEARCH))
    return Reply(content=f"<predicted_observation>{BOOK}</predicted_observation>")


@pytest.fixture
def double() -> Iterator[OpenAIDouble]:
    with OpenAIDouble() as d:
        d.respond_with(answer)
        yield d


@pytest.fixture
def lab_world(tmp_path: Path) -> Path:
    path = tmp_path / "lab.yaml"
    path.write_text((ROOT / "worlds" / "bookstore.yaml").read_text() + PROFILE, encoding="utf-8")
    return path


def current_turn(request: RecordedRequest) -> str:
    return str(request.body["messages"][-1]["content"])


async def test_a_semantic_perturbation_reaches_only_the_targeted_tools_prompt(
    double: OpenAIDouble, lab_world: Path, tmp_path: Path
) -> None:
    journal = tmp_path / "journal.jsonl"
    args = ("--model-url", double.base_url, "--perturb", "lab", "--journal", str(journal))
    with serving_http(lab_world, *args, log=tmp_path / "serve.log") as url:
        async with Client(url) as client:
            with anyio.fail_after(30):
                searched = await client.call_tool("search_books", {"query": "rain"})
                got = await client.call_tool("get_book", {"book_id": "b1"})
    assert not searched.is_error and not got.is_error
    search_request, get_request = double.completion_requests
    assert SIMULATION_INSTRUCTION_HEADING not in json.dumps(search_request.body["messages"])
    assert f"\n\n{SIMULATION_INSTRUCTION_HEADING}\n\n" in current_turn(get_request)
    assert "outdated" in current_turn(get_request)
    instruction_anywhere_else = [
        m["content"]
        for m in get_request.body["messages"][:-1]
        if SIMULATION_INSTRUCTION_HEADING in m["content"]
    ]
    assert instruction_anywhere_else == []
    assert search_request.body["messages"][0] == get_request.body["messages"][0]
    records = read_journal(journal)
    assert [[p["kind"] for p in r.perturbations] for r in records] == [[], ["stale"]]


async def test_a_hanging_call_cancelled_over_http_leaves_the_server_serving(
    double: OpenAIDouble, lab_world: Path, tmp_path: Path
) -> None:
    journal = tmp_path / "journal.jsonl"
    args = ("--model-url", double.base_url, "--perturb", "lab", "--journal", str(journal))
    with serving_http(lab_world, *args, log=tmp_path / "serve.log") as url:
        async with Client(url) as client:
            with anyio.move_on_after(1.0) as scope:
                await client.call_tool("cancel_order", {"order_id": "ord_00001"})
            assert scope.cancelled_caught
            async with Client(url) as other:
                with anyio.fail_after(20):
                    result = await other.call_tool("search_books", {"query": "glass"})
            assert isinstance(result.content[0], types.TextContent)
            with anyio.fail_after(20):
                again = await client.call_tool("search_books", {"query": "antarctica"})
            assert again.structured_content == SEARCH
    kinds = [[p["kind"] for p in r.perturbations] for r in read_journal(journal)]
    assert sorted(kinds) == [[], [], ["timeout"]]
    assert double.completion_requests == [], "every answer came from the server or a fixture"
