"""The records a call is about, told by its rarest argument value.

A call names the records it is about by values they hold, whatever the values are called
and wherever they sit: an event by the ``uid`` deep in its calendar, a thread by the ``ts``
its messages share, a node by an address its status lists, a time series by the metric name
and labels a query string is made of. The fewer records hold a value, the more it says: a
value held by a few records names them, and they belong in the view whole (or, when large,
around where the values sit), before any record a search merely half matches.

For each value of the call (each argument's value, and the runs of a composed one that some
record holds: ``10.0.2.16:9100`` inside ``node_load1{instance="10.0.2.16:9100"}``), the
records holding it are counted with the state's value index. A value that keys a record
already names it (the key lookup shows it), so the rarest of the others is taken: the
records holding it are the candidates, and of those the ones holding the most of the call's
values (a query's metric beside its instance). When at most :data:`FEW` are left they are
the records the call is about; when more, those of a collection the tool's name names (a
node, of the pods listing its address too), when few.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from mcp_sim.prompting.field_names import tokens
from mcp_sim.runtime.state_index import StateOverlay
from mcp_sim.runtime.state_shape import normalize
from mcp_sim.spec.world import ToolSpec

FEW = 3
"""A value held by at most this many records (after narrowing) names them."""
MOST_CANDIDATES = 200
"""The rarest value held by more records than this names none: the call is a search."""
MOST_PARTS = 24
"""Parts of a composed value looked at; a longer text is prose, not an address."""
_PART = re.compile(r"[^.:/#|@\[\](){}=,;\"'<>]+")
"""A part of a composed value: what separators, quotes and brackets join (not ``-`` or ``_``,
which join the words of one value: ``pine-ximena``, ``node_load1``; nor spaces, which join
words: ``PAY Sprint 16`` is one value, not a project ``PAY`` and a field ``Sprint``)."""


@dataclass(frozen=True)
class Evident:
    """A record the call's rarest value names: its pointer and where inside it the call's
    values sit (relative pointers)."""

    pointer: str
    places: frozenset[str]


def composed_runs(value: str) -> list[str]:
    """The runs of consecutive parts of ``value`` (each run as written, separators and all),
    longest first; none for a value of one part or of more than :data:`MOST_PARTS`."""
    parts = [(m.start(), m.end()) for m in _PART.finditer(value)]
    if not 2 <= len(parts) <= MOST_PARTS:
        return []
    runs = [
        value[parts[i][0] : parts[j][1]]
        for i in range(len(parts))
        for j in range(i, len(parts))
        if (i, j) != (0, len(parts) - 1)
    ]
    return sorted(runs, key=len, reverse=True)


def call_values(overlay: StateOverlay, labels: Iterable[str], texts: Iterable[str]) -> list[str]:
    """The call's values some record holds: ``labels`` (its normalized argument values) and,
    of each composed text of ``texts``, the longest held runs (a run inside a longer held
    run of the same text says nothing more)."""
    found = [label for label in dict.fromkeys(labels) if overlay.holders(label)]
    for text in texts:
        held: list[str] = []
        for run in composed_runs(text):
            label = normalize(run)
            if label is None or not overlay.holders(label) or _trivial(label):
                continue
            if not any(label in longer for longer in held):
                held.append(label)
        found += [label for label in held if label not in found]
    return found


def _trivial(label: str) -> bool:
    """A part of one or two characters (``0``, ``16``, ``v1``) is in many addresses and a
    position's key: it tells nothing apart."""
    return len(label) < 3


def evident_records(
    overlay: StateOverlay, tool: ToolSpec | None, values: list[str]
) -> list[Evident]:
    """The records the call's rarest value names (see the module's docstring), rarest
    value's holders in document order; none when it names too many."""
    unkeyed = [v for v in values if not overlay.key_hits(v)]
    candidates: list[str] = []
    for value in sorted(unkeyed, key=overlay.holders):
        if overlay.holders(value) > MOST_CANDIDATES:
            return []
        # A record's own key is no value it holds: the key lookup names it.
        candidates = [p for p, where in overlay.value_hits(value).items() if where]
        if candidates:
            break
    if not candidates:
        return []
    scores = {p: sum(_holds(overlay, v, p) is not None for v in values) for p in candidates}
    best = max(scores.values())
    top = [p for p in candidates if scores[p] == best]
    if len(top) > FEW:
        named = set(tokens(tool.name)) if tool is not None else set()
        top = [p for p in top if named & set(tokens(overlay.base.collection_pointer(p)))]
    if not 1 <= len(top) <= FEW:
        return []
    return [Evident(p, frozenset(_places(overlay, values, p))) for p in top]


def _holds(overlay: StateOverlay, value: str, pointer: str) -> str | None:
    """Where ``pointer``'s record holds ``value`` (``None``: it does not), read from the
    index without copying a common value's holders."""
    mine = overlay.values.get(value, {})
    if pointer in mine:
        return mine[pointer]
    if pointer in overlay.changed:
        return None
    return overlay.base.values.get(value, {}).get(pointer)


def _places(overlay: StateOverlay, values: list[str], pointer: str) -> set[str]:
    places = (_holds(overlay, v, pointer) for v in values)
    return {p for p in places if p}
