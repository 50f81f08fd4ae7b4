"""The example worlds: every file loads, serves its tools over MCP and answers its pinned calls
in its domain's native format; together they cover all seven domains, and docs/worlds.md lists them."""

from __future__ import annotations

import re
from pathlib import Path
from typing import get_args

import anyio
import mcp.types as types
import pytest
from mcp import Client

from mcp_sim.prompting.search_formats import parse_results
from mcp_sim.server.mcp_front import build_server
from mcp_sim.simulator.core import Simulator
from mcp_sim.spec.loading import load_world
from mcp_sim.spec.world import Domain, World
from tests.conftest import ROOT, WORLDS

PATHS = sorted(WORLDS.glob("*.yaml"))


def text_of(result: types.CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return block.text


@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.name)
async def test_every_world_serves_its_tools_and_pinned_answers(path: Path) -> None:
    world = load_world(path)
    server = build_server(Simulator(world, None))
    with anyio.fail_after(30):
        async with Client(server) as client:
            listed = await client.list_tools()
            assert [t.name for t in listed.tools] == [t.name for t in world.tools]
            for fixture in world.fixtures:
                result = await client.call_tool(fixture.when.tool, fixture.when.arguments)
                assert result.is_error == fixture.is_error
                if isinstance(fixture.result, str):
                    assert text_of(result) == fixture.result


def test_the_example_worlds_cover_all_seven_domains() -> None:
    domains = {load_world(path).domain for path in PATHS}
    assert domains == set(get_args(Domain))


def test_the_docs_list_every_world_once() -> None:
    readme = (ROOT / "docs" / "worlds.md").read_text(encoding="utf-8")
    for path in PATHS:
        world = load_world(path)
        rows = [
            line
            for line in readme.splitlines()
            if line.startswith(f"| `{path.name}` | `{world.world}` | {world.domain} |")
        ]
        assert len(rows) == 1, f"docs/worlds.md's worlds table lacks one row for {path.name}"


def world(name: str) -> World:
    return load_world(WORLDS / name)


def fixture_text(w: World, tool: str) -> str:
    for fixture in w.fixtures:
        if fixture.when.tool == tool and isinstance(fixture.result, str):
            return fixture.result
    raise AssertionError(f"{w.world} pins no text answer of {tool}")


def test_the_search_world_answers_in_numbered_results() -> None:
    results = parse_results(fixture_text(world("search.yaml"), "web_search"))
    assert len(results) == 6 and all(r.date for r in results)


def test_the_swe_world_reads_files_with_numbered_lines() -> None:
    lines = fixture_text(world("swe.yaml"), "Read").splitlines()
    assert all(re.fullmatch(r" {0,5}\d+\t.*", line) for line in lines)
    assert [int(line.split("\t")[0]) for line in lines] == list(range(1, len(lines) + 1))


def test_the_web_world_answers_with_an_accessibility_tree() -> None:
    page = fixture_text(world("web.yaml"), "goto").splitlines()
    assert page[0].startswith("URL: ") and page[1].startswith("Title: ")
    assert page[2].startswith("RootWebArea ")
    nodes = page[3:]
    assert all(re.fullmatch(r"\t+\[\d+\] [A-Za-z]+ '.*'(, [a-z]+)*", n) for n in nodes), nodes
    bids = [re.search(r"\[(\d+)\]", n).group(1) for n in nodes]  # type: ignore[union-attr]
    assert len(bids) == len(set(bids))


def test_the_os_world_answers_with_an_accessibility_table() -> None:
    rows = fixture_text(world("os.yaml"), "observe").splitlines()
    header = rows[0].split("\t")
    assert header == [
        "tag",
        "name",
        "text",
        "class",
        "description",
        "position (top-left x&y)",
        "size (w&h)",
    ]
    for row in rows[1:]:
        cells = row.split("\t")
        assert len(cells) == len(header), row
        assert re.fullmatch(r"\(\d+, \d+\)", cells[5]) and re.fullmatch(r"\(\d+, \d+\)", cells[6])


def test_the_android_world_answers_with_indexed_ui_elements() -> None:
    screen = fixture_text(world("android.yaml"), "get_screen").splitlines()
    assert screen[0].startswith("Activity: ")
    for index, line in enumerate(screen[1:]):
        fields = line.split(" | ")
        assert fields[0] == f"[{index}]" and fields[1].startswith("android.")
        assert re.fullmatch(r"\[\d+,\d+\]\[\d+,\d+\]", fields[5]), line
