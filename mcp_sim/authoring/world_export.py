"""``mcp-sim world export``: what a world's memory has learnt, written back into its world file.

The pages the world has shown become starting pages (``search.pages``, with their text once
someone opened them), the facts its pages established join the canon, and each query answered so
far becomes a fixture that pins its results. Serving the exported file then starts from
everything the explorers saw, with or without the memory file.

The output is the world as loaded (the keys the file set, in the spec's order) plus what was
learnt; comments are not kept. It is validated like any world file before it is written.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jsonschema

from mcp_sim.authoring.world_yaml import checked_world_yaml
from mcp_sim.errors import SimError
from mcp_sim.prompting.search_formats import SearchResult, render_results
from mcp_sim.spec.fiction import normalize_url, query_parameter
from mcp_sim.spec.world import World
from mcp_sim.web.world_memory import WorldMemory


def export_world(world: World, memory: WorldMemory) -> str:
    """The world file of ``world`` with what ``memory`` learnt about it, as YAML text. Raises
    :class:`mcp_sim.errors.SpecError` if the result would not load (it is never written then)."""
    data: dict[str, Any] = world.model_dump(mode="json", exclude_unset=True)
    web = world.web()
    if web is not None:
        _export_pages(data, memory)
        _export_searches(data, world, memory)
    facts = [f.fact for f in memory.facts() if f.fact not in world.canon]
    if facts:
        data["canon"] = [*world.canon, *facts]
    text, _ = checked_world_yaml(data, file=f"<export of {world.world}>")
    return text


def export_world_memory(world: World, memory_file: Path) -> str:
    """The world file of ``world`` with what its memory file at ``memory_file`` learnt (see
    :func:`export_world`). Raises :class:`~mcp_sim.errors.SimError` for a world without a web,
    whose memory holds nothing to export."""
    if world.web() is None:
        raise SimError(
            f"--world-memory keeps the pages of a world's web, and {world.world} has none (it "
            "needs a search: section, or domain search with web_search and open_page)"
        )
    with WorldMemory(world.world, memory_file) as memory:
        return export_world(world, memory)


def _export_pages(data: dict[str, Any], memory: WorldMemory) -> None:
    search = data.setdefault("search", {})
    pages: list[dict[str, Any]] = search.setdefault("pages", [])
    by_url = {normalize_url(p["url"]): p for p in pages}
    for record in memory.pages():
        page = by_url.get(record.url)
        if page is None:
            page = {"url": record.url, "title": record.title}
            if record.snippet:
                page["snippet"] = record.snippet
            if record.date:
                page["date"] = record.date
            pages.append(page)
            by_url[record.url] = page
        if record.content is not None and page.get("content") is None:
            page["content"] = record.content


def _export_searches(data: dict[str, Any], world: World, memory: WorldMemory) -> None:
    web = world.web()
    tool = world.tool(web.search_tool) if web is not None else None
    if web is None or tool is None:
        return
    parameter = query_parameter(tool.input_schema) or "queries"
    validator = jsonschema.Draft202012Validator(tool.input_schema)
    fixtures: list[dict[str, Any]] = data.setdefault("fixtures", [])
    pinned = [f["when"] for f in fixtures if f["when"]["tool"] == tool.name]
    for query, results in memory.searches().items():
        arguments: dict[str, Any] = {parameter: [query] if parameter == "queries" else query}
        if arguments in (w.get("arguments") for w in pinned) or not validator.is_valid(arguments):
            continue
        text = render_results(query, [SearchResult.from_json(r) for r in results], web.engine)
        fixtures.append({"when": {"tool": tool.name, "arguments": arguments}, "result": text})
    if not fixtures:
        del data["fixtures"]
