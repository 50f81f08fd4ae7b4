"""The records that link to the ones a search found, for a summary of them.

"Rides started in a district's stations: count, fares, mean minutes" sums up rides, though
the district's argument selects stations: the records of a collection the tool's words name
whose field holds a found station's key. Each linking field makes its own group (a ride
names a station it starts from and one it ends at; which one the answer counts is the
model's to read from the words), and the found records' keys are listed beside them.
"""

from __future__ import annotations

from jsonpointer import unescape

from mcp_sim.prompting.field_names import tokens
from mcp_sim.prompting.search_result import SearchResult
from mcp_sim.prompting.summary_group import Group
from mcp_sim.prompting.summary_names import singular
from mcp_sim.prompting.tool_asks import tool_words
from mcp_sim.runtime.state_index import StateOverlay
from mcp_sim.runtime.state_paths import resolve
from mcp_sim.runtime.state_shape import normalize, record_key
from mcp_sim.spec.world import ToolSpec

_MOST_FOUND = 50
"""Above this many records found, links to them say too little to sum up (and cost much)."""
_MOST_GROUPS = 3


def _named(words: set[str], pointer: str) -> bool:
    """Whether ``words`` name the collection at ``pointer`` by a part of its pointer."""
    parts = [{singular(t) for t in tokens(unescape(p))} for p in pointer.split("/")]
    return any(part and part <= words for part in parts)


def linked_groups(
    overlay: StateOverlay, state: object, tool: ToolSpec, search: SearchResult | None
) -> list[Group]:
    """The records of another collection the tool's words name that hold the key of a
    record ``search`` found, a group per field holding it; ``[]`` where none do."""
    if search is None or not search.meeting or len(search.meeting) > _MOST_FOUND:
        return []
    collection = search.collection
    words = {singular(w) for w in tool_words(tool.name, tool.description)}
    found = [
        record_key(collection, unescape(p.rsplit("/", 1)[-1]), resolve(state, p))
        for p in search.meeting
    ]
    linking: dict[tuple[str, str], dict[str, None]] = {}
    for key in found:
        label = normalize(key)
        for pointer, inner in overlay.value_hits(label).items() if label else ():
            other = overlay.base.collection_of(pointer)
            if other is None or other.pointer == collection.pointer or not inner:
                continue
            if _named(words, other.pointer):
                linking.setdefault((other.pointer, inner), {})[pointer] = None
    ranked = sorted(linking.items(), key=lambda item: -len(item[1]))[:_MOST_GROUPS]
    kind = unescape(collection.pointer.rsplit("/", 1)[-1])
    return [
        Group(
            unescape(pointer.rsplit("/", 1)[-1]),
            f"records of {pointer} whose {inner.lstrip('/')} is the key of one of the "
            f"{len(found)} {kind} found ({', '.join(found[:10])})",
            [resolve(state, p) for p in pointers],
        )
        for (pointer, inner), pointers in ranked
    ]
