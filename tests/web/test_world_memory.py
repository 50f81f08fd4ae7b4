"""World memory: pages, results and facts kept in SQLite across sessions, restarts and servers
sharing one file; and ``mcp-sim world export``, which writes them back into a world file."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import anyio
import mcp.types as types
import pytest
import yaml
from mcp import Client

from mcp_sim.authoring.world_export import export_world
from mcp_sim.errors import WorldMemoryError
from mcp_sim.prompting.search_formats import SearchResult, render_results
from mcp_sim.simulator.core import Simulator
from mcp_sim.spec.loading import load_world, parse_world
from mcp_sim.spec.world import World
from mcp_sim.web.world_memory import WorldMemory
from tests.conftest import ROOT, WORLDS
from tests.openai_double import OpenAIDouble, Reply
from tests.processes import run_cli, serving_http
from tests.scripted_model import ScriptedModel

VELANDRE = WORLDS / "search.yaml"
URL = "https://courier.vl/news/2031/03/01/toll-review"
FOUND = SearchResult(URL, "Toll review announced", "A review in 2032.", "2031-03-01")
PAGE = "# Toll review announced\n\nThe ministry will hold a review in 2032."
FACTS = '{"facts": ["The Calder toll review is due in 2032."]}'
WRITERS = 2
PAGES_EACH = 150


@pytest.fixture(scope="module")
def velandre() -> World:
    return load_world(VELANDRE)


def explorer(world: World, memory: WorldMemory, *answers: str) -> Simulator:
    return Simulator(world, ScriptedModel(*answers), memory=memory)


async def explore(world: World, path: Path) -> tuple[str, str]:
    """Search, open the page found, learn its facts; the texts the agent saw."""
    results = ScriptedModel.answer(render_results("toll review", [FOUND]))
    with WorldMemory(world.world, path) as memory:
        sim = explorer(world, memory, results, ScriptedModel.answer(PAGE), FACTS)
        search = await sim.call("s1", "web_search", {"queries": ["toll review"]})
        page = await sim.call("s1", "open_page", {"url": URL})
    return search.text, page.text


async def test_memory_survives_a_restart(velandre: World, tmp_path: Path) -> None:
    path = tmp_path / "velandre.db"
    search, page = await explore(velandre, path)
    with WorldMemory(velandre.world, path) as memory:
        # A new server on the same file, whose model has nothing to say.
        sim = explorer(velandre, memory)
        reopened = await sim.call("new", "open_page", {"url": URL})
        searched = await sim.call("new", "web_search", {"queries": ["toll review"]})
    assert reopened.text == page and reopened.source == "memory"
    assert searched.text == search and searched.source == "memory"


def text_of(result: types.CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return block.text


async def test_a_served_page_is_the_same_twice_and_after_a_restart(tmp_path: Path) -> None:
    """The issue's bar, end to end: MCP client, `mcp-sim serve --http --world-memory`, a model
    over HTTP, and a second server on the same file whose model is never asked."""
    memory = str(tmp_path / "velandre.db")
    with OpenAIDouble() as double:
        double.script(
            Reply(content=ScriptedModel.answer(render_results("toll review", [FOUND]))),
            Reply(content=ScriptedModel.answer(PAGE)),
            Reply(content=FACTS),
        )
        args = ("--model-url", double.base_url, "--world-memory", memory)
        with serving_http(VELANDRE, *args, log=tmp_path / "first.log") as url:
            async with Client(url) as client:
                with anyio.fail_after(60):
                    found = await client.call_tool("web_search", {"queries": ["toll review"]})
                    first = await client.call_tool("open_page", {"url": URL})
                    second = await client.call_tool("open_page", {"url": URL})
        asked = len(double.completion_requests)
        with serving_http(VELANDRE, *args, log=tmp_path / "second.log") as url:
            async with Client(url) as client:
                with anyio.fail_after(60):
                    restarted = await client.call_tool("open_page", {"url": URL})
                    again = await client.call_tool("web_search", {"queries": ["toll review"]})
        assert len(double.completion_requests) == asked == 3
    assert f"[1] {URL}\nTitle: {FOUND.title}" in text_of(found)
    assert text_of(first).startswith(f"# {FOUND.title}\n")
    assert text_of(second) == text_of(first) == text_of(restarted)
    assert text_of(again) == text_of(found)
    assert (restarted.meta or {}).get("mcp-sim/source") == "memory"


def test_two_writers_on_one_file_lose_nothing(tmp_path: Path) -> None:
    path = tmp_path / "shared.db"
    WorldMemory("w", path).close()
    errors: list[BaseException] = []
    start = threading.Barrier(WRITERS)

    def write(writer: int) -> None:
        try:
            with WorldMemory("w", path) as memory:
                start.wait()
                for i in range(PAGES_EACH):
                    url = f"https://site{writer}.vl/page/{i}"
                    memory.add_page(url, f"Page {i} of {writer}", f"snippet {i}", "2031-01-01")
                    memory.set_content(url, f"# Page {i} of {writer}\n\nText {i}.")
                    memory.add_search(f"query {writer} {i}", [{"url": url, "title": "t"}])
                    memory.add_facts([f"Fact {i} of writer {writer}."], url)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(n,)) for n in range(WRITERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not errors
    with WorldMemory("w", path) as memory:
        pages = memory.pages()
        assert len(pages) == WRITERS * PAGES_EACH
        assert all(p.content == f"# {p.title}\n\nText {p.url.rsplit('/', 1)[1]}." for p in pages)
        assert len(memory.searches()) == WRITERS * PAGES_EACH
        assert len(memory.facts()) == WRITERS * PAGES_EACH


def test_two_server_processes_writing_one_file_lose_nothing(tmp_path: Path) -> None:
    path = tmp_path / "shared.db"
    script = (
        "import sys\nfrom mcp_sim.web.world_memory import WorldMemory\n"
        "m = WorldMemory('w', sys.argv[1])\n"
        "for i in range(int(sys.argv[3])):\n"
        "    url = f'https://{sys.argv[2]}.vl/{i}'\n"
        "    m.add_page(url, 't', 's', None, f'text {i}')\n"
        "    m.add_facts([f'{sys.argv[2]} fact {i}'], url)\n"
    )
    processes = [
        subprocess.Popen([sys.executable, "-c", script, str(path), name, str(PAGES_EACH)], cwd=ROOT)
        for name in ("one", "two")
    ]
    assert [p.wait(timeout=120) for p in processes] == [0, 0]
    with WorldMemory("w", path) as memory:
        assert len(memory.pages()) == 2 * PAGES_EACH
        assert len(memory.facts()) == 2 * PAGES_EACH


def test_the_first_text_stored_for_a_page_wins(tmp_path: Path) -> None:
    with WorldMemory("w", tmp_path / "m.db") as memory:
        memory.add_page("https://a.vl/x", "First title", "s")
        memory.add_page("https://a.vl/x", "Second title", "t")
        assert memory.set_content("https://a.vl/x", "first") is not None
        stored = memory.set_content("https://a.vl/x", "second")
        assert stored is not None and (stored.title, stored.content) == ("First title", "first")
        assert memory.add_search("q", [{"url": "one"}]) == [{"url": "one"}]
        assert memory.add_search("q", [{"url": "two"}]) == [{"url": "one"}]
        assert memory.set_content("https://a.vl/unknown", "text") is None


def test_one_file_keeps_each_worlds_memory_apart(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    with WorldMemory("one", path) as one, WorldMemory("two", path) as two:
        one.add_page("https://a.vl/x", "In one", "")
        assert two.page("https://a.vl/x") is None and len(one.pages()) == 1


def test_a_file_that_is_not_a_world_memory_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("not a database " * 100)
    with pytest.raises(WorldMemoryError, match=str(path)):
        WorldMemory("w", path)


async def test_export_writes_the_learnt_pages_facts_and_searches_into_the_world(
    velandre: World, tmp_path: Path
) -> None:
    path = tmp_path / "velandre.db"
    search, page = await explore(velandre, path)
    with WorldMemory(velandre.world, path) as memory:
        text = export_world(velandre, memory)
    exported = parse_world(text, "exported.yaml")
    assert exported.search is not None
    pages = {p.url: p for p in exported.search.pages}
    assert pages[URL].content == page and pages[URL].title == FOUND.title
    assert len(pages) == len(velandre.search.pages) + 1 if velandre.search else False
    assert exported.canon[-1] == "The Calder toll review is due in 2032."
    assert exported.canon[: len(velandre.canon)] == velandre.canon
    assert exported.canon_entities == velandre.canon_entities
    # Served from the exported file alone, the world shows the same search and page.
    sim = Simulator(exported, ScriptedModel())
    assert (await sim.call("s", "web_search", {"queries": ["toll review"]})).text == search
    assert (await sim.call("s", "open_page", {"url": URL})).text == page
    assert "|-" in text or "|\n" in text  # pages are written as readable blocks
    assert yaml.safe_load(text)["world"] == velandre.world


async def test_the_export_command_writes_a_valid_world_file(
    velandre: World, tmp_path: Path
) -> None:
    path = tmp_path / "velandre.db"
    await explore(velandre, path)
    out = tmp_path / "grown.yaml"
    done = run_cli("world", "export", str(VELANDRE), "--world-memory", str(path), "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert load_world(out).search is not None
    assert run_cli("validate", str(out)).returncode == 0


def test_the_export_command_needs_an_existing_memory(tmp_path: Path) -> None:
    missing = tmp_path / "none.db"
    done = run_cli("world", "export", str(VELANDRE), "--world-memory", str(missing))
    assert done.returncode == 2 and "no world memory" in done.stderr
    assert not missing.exists()


def test_calls_from_the_command_line_share_the_memory_file(tmp_path: Path) -> None:
    path = str(tmp_path / "cli.db")
    url = "https://velapedia.vl/wiki/Calder_Bridge"
    searched = run_cli(
        "call",
        str(VELANDRE),
        "web_search",
        "--args",
        '{"queries": ["calder bridge"]}',
        "--world-memory",
        path,
    )
    assert searched.returncode == 0 and url in searched.stdout
    missing = run_cli(
        "call",
        str(VELANDRE),
        "open_page",
        "--args",
        '{"url": "https://velapedia.vl/nope"}',
        "--world-memory",
        path,
    )
    assert missing.returncode == 1 and "404" in missing.stdout
    assert "source: memory" in missing.stderr
    with WorldMemory("velandre-web", path) as memory:
        page = memory.page(url)
    assert page is not None and page.origin == "seed"


def test_world_memory_is_refused_for_a_world_without_a_web(tmp_path: Path) -> None:
    done = run_cli(
        "call",
        str(WORLDS / "bookstore.yaml"),
        "get_book",
        "--args",
        '{"book_id": "b1"}',
        "--world-memory",
        str(tmp_path / "m.db"),
    )
    assert done.returncode == 1 and "has none" in done.stderr
