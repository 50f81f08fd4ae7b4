"""Records an argument names beside the records a search of the tool's own collection found:
``find_reservations(hotel_code="DUN", status=...)`` names the hotel DUN by its key, but the
answer is the hotel's reservations. The hotel (with every room it has) would take the room
the reservations need; it is shown within a fair share of the room, its large parts outlined
(see :mod:`mcp_sim.prompting.records_section`). A record of a collection the tool's name names
(``depot_details``: "a depot and the dispatches from it") is the answer itself and keeps its
room."""

from __future__ import annotations

from collections.abc import Iterable

from mcp_sim.prompting.field_names import tokens
from mcp_sim.prompting.search_result import SearchResult
from mcp_sim.prompting.tool_asks import tool_words
from mcp_sim.spec.world import ToolSpec


def named_beside(
    tool: ToolSpec | None, searches: list[SearchResult], named: Iterable[str]
) -> list[str]:
    """Of the ``named`` records (pointers), those outside every search's collection and of
    no collection the tool's name names, when a search that found records is of a collection
    the tool's name or description names."""
    if tool is None:
        return []
    told = tool_words(tool.name, tool.description)
    answered = [
        s.collection.pointer
        for s in searches
        if s.full and set(tokens(s.collection.pointer)) & told
    ]
    if not answered:
        return []
    searched = [s.collection.pointer + "/" for s in searches]
    own = set(tokens(tool.name))
    return [
        p
        for p in named
        if not any(p.startswith(c) for c in searched) and not set(tokens(p.rsplit("/", 1)[0])) & own
    ]


def answer_itself(
    tool: ToolSpec | None,
    searches: list[SearchResult],
    evident: Iterable[tuple[str, str]],
) -> list[str]:
    """Of the ``evident`` records (pointer, collection pointer: those the call's rarest value
    names), those of a collection the tool's name names, when no search that found records
    is of such a collection: ``node_by_ip(ip)`` finds the pods whose ``hostIP`` it is, but the
    answer is the node holding it among its addresses, which keeps its room rather than a fair
    share beside the pods."""
    if tool is None:
        return []
    own = set(tokens(tool.name))
    if any(s.full and set(tokens(s.collection.pointer)) & own for s in searches):
        return []
    return [p for p, collection in evident if set(tokens(collection)) & own]
