"""The records named by a value inside the records a call picked (one step), the kind the
tool asks for first.

A record a call picked names others by the values it holds (an order its user, a playlist the
albums, artists and tracks of its items). Only :data:`MAX_LINKED` are kept, in the order the
picked records name them, and a view shows those that fit: when the tool says it answers a
list of one collection's records (``get_playlist_artists``: the artists; see
:func:`~mcp_sim.prompting.tool_asks.asked_collections`), the records of that collection are
its answer's second leg, and the others (the albums, the tracks, named first) only fill the
room they would need. So those of the collections the tool asks for are taken first, then the
rest in the same order as before.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Protocol

from mcp_sim.prompting.id_references import id_owners
from mcp_sim.prompting.search_result import sub_record
from mcp_sim.prompting.tool_asks import asked_collections
from mcp_sim.runtime.state_index import StateOverlay
from mcp_sim.runtime.state_series import key_values
from mcp_sim.runtime.state_shape import normalize
from mcp_sim.spec.world import ToolSpec

MAX_LINKED = 40
"""Records linked per call (the view shows those that fit)."""
MOST_PASSED = 4 * MAX_LINKED
"""Records of other collections the walk passes over looking for those asked for."""


class Picked(Protocol):
    """A record picked for a call (see :class:`~mcp_sim.prompting.grounding.Pick`)."""

    pointer: str


def asked_of(overlay: StateOverlay, tool: ToolSpec | None) -> dict[str, int]:
    """The collections (pointers) whose records the tool says it lists, when it names some
    but not all of them (an answer typed as a list asks for every one: no order to give),
    each with its rank: 0 for those its name (or its answer's properties) names, which are
    what it answers with (``get_playlist_artists``: the artists), 1 for those only its
    description names ("the artists on a playlist's tracks": the tracks lead to them)."""
    if tool is None:
        return {}
    pointers = [c.pointer for c in overlay.base.collections]
    said = asked_collections(tool.name, tool.description, tool.output_schema, pointers)
    if not said or len(said) == len(pointers):
        return {}
    named = asked_collections(tool.name, "", tool.output_schema, pointers)
    return {pointer: 0 if pointer in named else 1 for pointer in said}


def linked_records(
    overlay: StateOverlay,
    picks: Mapping[str, Picked],
    resolved: set[str],
    asked: Mapping[str, int] | None = None,
) -> list[tuple[str, str]]:
    """``(pointer, focus)`` of the records named by a value inside ``picks`` that are not
    picked (``resolved``: the parts of the call's paths, which name nothing on their own),
    those of the ``asked`` collections first, by rank, at most :data:`MAX_LINKED`."""
    known: dict[str, dict[str, str] | None] = {}
    ranks = asked or {}
    last = max(ranks.values(), default=-1) + 1
    found: list[dict[str, str]] = [{} for _ in range(last + 1)]
    seen: set[str] = set()
    for pointer, inner in _named(overlay, picks, resolved, known):
        if pointer in seen:
            continue
        seen.add(pointer)
        rank = ranks.get(overlay.base.collection_pointer(pointer), last) if ranks else last
        found[rank][pointer] = inner
        # The walk stops where the order cannot change any more: enough of the kind
        # asked for first, or as many others as asking for one could pass over.
        if len(found[0]) >= MAX_LINKED or len(found[last]) >= (
            MOST_PASSED if ranks else MAX_LINKED
        ):
            break
    return [item for bucket in found for item in bucket.items()][:MAX_LINKED]


def _named(
    overlay: StateOverlay,
    picks: Mapping[str, Picked],
    resolved: set[str],
    known: dict[str, dict[str, str] | None],
) -> Iterator[tuple[str, str]]:
    """Every record a value inside ``picks`` names, in the order they name them."""
    for pick in list(picks.values()):
        facts = _facts(overlay, pick.pointer)
        if facts is None:
            continue
        for label in facts:
            if label in resolved:
                continue
            hits = [(h.pointer, h.inner) for h in overlay.key_hits(label)]
            owners = hits or id_owners(overlay, label, pick.pointer, known).items()
            for pointer, inner in owners:
                if pointer != pick.pointer and pointer not in picks:
                    yield pointer, sub_record(inner) if not hits else inner


def _facts(overlay: StateOverlay, pointer: str) -> list[str] | None:
    facts = overlay.facts(pointer)
    if facts is None:
        return None
    # A series' reading's time is its own key too: it names the reading's siblings, not
    # a record the reading refers to (its source does: the station's entry).
    own = {normalize(facts.key), normalize(key_values(facts.key)[0])}
    return [label for label in facts.values if label not in own]
