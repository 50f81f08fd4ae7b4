"""The records of the collections a tool reads: those its hint's ``reads`` names, or that its
name names (``list_carriers`` reads ``/partners/carriers``). Listings and searches whose
arguments match no value (ranges, limits) are shown these, as far as room allows."""

from __future__ import annotations

import re

from mcp_sim.runtime.state_index import StateOverlay
from mcp_sim.spec.world import ToolSpec

MAX_LISTED = 60
"""Records listed of each collection a tool reads."""


def read_records(overlay: StateOverlay, tool: ToolSpec | None) -> list[str]:
    """The pointers of the first records of each collection ``tool`` reads, in state order."""
    if tool is None:
        return []
    hints = tool.grounding
    reads = set(hints.reads) if hints is not None else set()
    words = {w for w in re.split(r"[^a-z0-9]+", tool.name.lower()) if len(w) > 2}
    found: list[str] = []
    for collection in overlay.base.collections:
        last = collection.pointer.rsplit("/", 1)[-1].lower()
        named = last in words or last.rstrip("s") in words or f"{last}s" in words
        if collection.pointer in reads or named:
            found.extend(overlay.pointers(collection.pointer)[:MAX_LISTED])
    return found
