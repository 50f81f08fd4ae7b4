"""How often the records a search found name each record of another collection: "the accounts
on the other side of an account's entries, with how often".

A search finds the entries whose postings name an account; the answer lists the other
accounts those entries name, each once, with how many of the entries name it. The records found
(the *links*, each the whole record the search's match sits in) name their targets anywhere
inside them (a posting's ``account``), so each link may name several; each is followed, and the
view (:mod:`mcp_sim.prompting.link_groups`) shows each target once with its count.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from mcp_sim.prompting.link_join import Found, LinkJoin
from mcp_sim.prompting.link_kinds import holds, kind_at, kind_words, refers_to
from mcp_sim.prompting.record_fields import SELF
from mcp_sim.runtime.state_index import StateOverlay
from mcp_sim.runtime.state_paths import resolve
from mcp_sim.runtime.state_shape import Collection, normalize

MOST_NAMING_COUNTED = 5000
"""Records found whose entries are read when the answer counts them."""


def named_rows(
    overlay: StateOverlay, outers: Iterable[str], collection: str
) -> list[tuple[str, list[str]]]:
    """Each record at ``outers`` with the records of ``collection`` whose keys it holds
    anywhere inside it (a journal entry's postings name their accounts), in the order met."""
    rows: list[tuple[str, list[str]]] = []
    kinds = kind_words(overlay.base.collections)
    for outer in outers:
        facts = overlay.facts(outer)
        # A reference naming its kind (``{"type": "rooms", "id": "7"}``) names no other; a
        # record naming the kind so names it by no bare number (a score of 4).
        named: dict[bool, dict[str, None]] = {True: {}, False: {}}
        record = resolve(overlay.view, outer) if facts is not None else None
        for label, where in facts.values.items() if facts is not None else ():
            hits = [h for h in overlay.key_hits(label) if not h.inner]
            hits = [h for h in hits if holds(overlay, collection, h.pointer)]
            kind = kind_at(record, where, label, kinds) if hits else None
            if hits and refers_to(kind, collection):
                named[kind is not None].update(dict.fromkeys(h.pointer for h in hits))
        rows.append((outer, list(named[True] or named[False])))
    return rows


Keys = Callable[[Collection, list[str]], dict[str, str]]
"""``(collection, pointers)`` → each record's key (its id field's value, else its place)."""


def counted_by(
    overlay: StateOverlay, found: Found, targets: Collection, outers: list[str], keys: Keys
) -> LinkJoin | None:
    """The join from each record at ``outers`` (those ``found`` sits in) to the records of
    ``targets`` it names other than those the arguments name, for counting; ``None`` when no
    record names another."""
    rows = named_rows(overlay, outers, targets.pointer)
    given = {v for c in found.constraints for v in map(normalize, _listed(c.value))}
    reached = list(dict.fromkeys(t for _, named in rows for t in named))
    known = {p for p, k in keys(targets, reached).items() if normalize(k) in given}
    kept = [(link, [t for t in named if t not in known]) for link, named in rows]
    if not any(named for _, named in kept):
        return None
    reference = found.constraints[0].fields[0] if found.constraints else ""
    key = targets.id_field or SELF
    join = LinkJoin(found.collection, targets, kept, len(kept), reference, key, ())
    join.found_by = "; ".join(c.describe() for c in found.constraints)
    return join


def _listed(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]
