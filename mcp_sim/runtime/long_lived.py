"""Keeping a large world's state out of the garbage collector's scans.

A multi-MB state is millions of Python objects that live as long as the world, and its index
as many again. Every full collection of the cyclic garbage collector walks them all: at 5 MB,
half a second each, several times a session, landing on whichever call allocated last (the
calls building a field table allocate most). Once the index is built, the objects alive are
moved to the collector's permanent generation (:func:`gc.freeze`): reference counting still
frees them when the world goes, only the cycle scans skip them. A full collection first frees
the garbage of loading, so that no cycle of it is kept for good. The tables built from the state
in the background once the index is (:mod:`mcp_sim.prompting.table_warmup`) are moved out too.
"""

from __future__ import annotations

import gc

LARGE_STATE_CHARS = 1_000_000
"""States from this many JSON characters up are kept out of the scans; a smaller one costs
the collector little, and a full collection per world would cost a test run more."""


def keep_out_of_scans(state_chars: int) -> bool:
    """Freeze the objects alive now when the state has ``state_chars`` characters or more;
    whether it did."""
    if state_chars < LARGE_STATE_CHARS:
        return False
    gc.collect()
    gc.freeze()
    return True


def keep_built_out_of_scans() -> None:
    """Freeze the objects alive now, without a collection first: called from a background
    thread once a large world's tables are built, where a full collection would hold every
    call's thread up for its length (the tables leave no cycles of garbage to free)."""
    gc.freeze()
