"""The field searches a call makes, as its tool will answer them: the records that meet its
arguments' constraints (:class:`FieldSearch`), narrowed by the place they ask about when the
records are GeoJSON features (:class:`GeoSearch`), with the name the tool's answers give the
count and the page the call asks for."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mcp_sim.prompting.field_search import FieldSearch
from mcp_sim.prompting.geo_search import GeoSearch
from mcp_sim.prompting.search_count import count_field
from mcp_sim.prompting.search_page import page_asked
from mcp_sim.prompting.search_result import SearchResult
from mcp_sim.runtime.state_index import StateOverlay
from mcp_sim.spec.world import ToolSpec


def call_searches(
    overlay: StateOverlay,
    state: Any,
    tool: ToolSpec | None,
    arguments: dict[str, Any],
    answers: Sequence[str] = (),
) -> list[SearchResult]:
    """The searches of a call (``answers``: the tool's earlier answers in the episode, which
    name the count), each cut to the page the call asks for."""
    finder = FieldSearch(overlay, state)
    searches = GeoSearch(finder).refine(finder.search(tool, arguments), arguments)
    page = page_asked(tool, arguments)
    for search in searches:
        search.count, search.page = count_field(tool, answers), page
        search.full = page.first(search.full) if page else search.full
    return searches
