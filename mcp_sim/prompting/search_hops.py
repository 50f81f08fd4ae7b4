"""The hop from a search's records to those of another collection the tool asks for: the
records that refer to them (the drivers of a depot's vehicles) or that they name (the accounts
of the other postings of an account's journal entries).

A tool named for a list of another kind than the records its arguments select (``depot_drivers``
given a depot) answers with records no argument selects: they are reached through the records
found, by the keys one side holds of the other. The search they are reached from is passed in
(:class:`HopSource`), so that a hop runs with its tables and its own way of running a reading.
"""

from __future__ import annotations

from typing import Any, Protocol

from mcp_sim.prompting.constraints import Constraint, Reading
from mcp_sim.prompting.field_tables import FieldTables
from mcp_sim.prompting.joins import named_records, referring_reading
from mcp_sim.prompting.named_counts import MOST_NAMING_COUNTED, counted_by
from mcp_sim.prompting.record_fields import SELF
from mcp_sim.prompting.search_result import SearchResult
from mcp_sim.runtime.state_index import StateOverlay
from mcp_sim.runtime.state_shape import Collection, normalize, record_pointer

MOST_NAMING = 400
"""Records found whose entries are read for the keys they name (see :func:`named_by`)."""


class HopSource(Protocol):
    """The search a hop starts from (:class:`~mcp_sim.prompting.field_search.FieldSearch`)."""

    overlay: StateOverlay
    tables: FieldTables
    counted: bool
    """Whether the tool's answer counts the records reached."""

    def run(self, collection: Collection, reading: Reading) -> SearchResult: ...

    def keys(self, collection: Collection, pointers: list[str]) -> dict[str, str]: ...


def referring(
    search: HopSource, found: SearchResult, asked: set[str], searched: set[str]
) -> SearchResult | None:
    """The records of a collection the tool asks a list of (``depot_drivers``: the drivers; see
    :func:`~mcp_sim.prompting.tool_asks.asked_collections`) that the arguments do not select
    but that refer to the records they do (the drivers of the depot's vehicles), when one of
    its fields holds those records' keys; else those the records found name."""
    if not found.full or found.join is not None:
        return None
    wanted = [c for c in search.overlay.base.collections if c.pointer in asked - searched]
    flat = found.nested is None
    keys = list(search.keys(found.collection, found.full).values()) if wanted and flat else []
    for collection in wanted if flat else []:
        schema = search.tables.schema(collection)
        reading = referring_reading(schema, found.collection.pointer, keys)
        if reading is not None:
            return search.run(collection, reading)
    for collection in wanted:
        named = named_by(search, found, collection)
        if named is not None or found.through is not None:
            return named
    return None


def named_by(search: HopSource, found: SearchResult, collection: Collection) -> SearchResult | None:
    """The records of ``collection`` that the records found name, or the entries they sit in
    (the accounts of the other postings of an account's journal entries), in document order
    (see :mod:`mcp_sim.prompting.named_counts` for an answer counting them)."""
    most = MOST_NAMING_COUNTED if search.counted else MOST_NAMING
    outers = dict.fromkeys(record_pointer(found.collection, p) for p in found.full[:most])
    if search.counted:  # the records found become links to those named, each counted
        found.through = counted_by(search.overlay, found, collection, [*outers], search.keys)
        return None
    named = named_records(search.overlay, outers, collection.pointer)
    # The records the search's own values name (the account searched for) are known.
    given = {v for c in found.constraints for v in map(normalize, _listed(c.value))}
    position = search.tables.position(collection)
    ordered = sorted(named, key=lambda p: position.get(p, len(position)))
    keyed = search.keys(collection, ordered).items()
    by_key = {p: k for p, k in keyed if normalize(k) not in given}
    if not by_key:
        return None
    full, keys = list(by_key), list(by_key.values())
    where = "the records found" if found.nested is None else "the entries found"
    constraint = Constraint(f"keys {where} name", "eq", keys, (SELF,), 0.0)
    return SearchResult(collection, Reading(collection.pointer, (constraint,), 1.0), full, [])


def _listed(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]
