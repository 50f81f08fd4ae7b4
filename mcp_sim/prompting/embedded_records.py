"""The records a request embeds in the rows it asks for, through the links a schema declares.

PostgREST's ``/classes?id=eq.7&select=title,bookings(status,member:members(name))`` answers
class 7 with its bookings inside it and each booking's member inside that: the rows of
``bookings`` whose ``class_id`` the schema declares a link to ``classes``, and the ``members``
row each booking's ``member_id`` refers to. The call names only the class; its answer needs
the records two links away, in either direction. So from the records a call picked in the
collection its path names (see :mod:`mcp_sim.prompting.url_queries`), each embedded
collection is reached through a declared link (see :mod:`mcp_sim.prompting.schema_links`):
its records referring to those reached so far (children), or those they refer to (parents);
nested embeds reach on from there. At most :data:`MOST_EMBEDDED` records are kept.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from mcp_sim.prompting.record_fields import values_at
from mcp_sim.prompting.schema_links import SchemaLink, schema_links, table_collection
from mcp_sim.prompting.url_queries import url_query
from mcp_sim.runtime.state_index import StateOverlay
from mcp_sim.runtime.state_paths import resolve
from mcp_sim.runtime.state_shape import Collection, normalize, within

MOST_EMBEDDED = 80
"""Records reached through embeds per call (the view shows those that fit)."""
MOST_STARTS = 5
"""Records of the path's collection the embeds are followed from (a lookup names one)."""


def embedded_records(
    overlay: StateOverlay, state: Any, picked: Iterable[str], arguments: dict[str, Any]
) -> list[str]:
    """The records the call's query strings embed (see the module), nearest first."""
    index = overlay.base
    links = schema_links(index)
    found: list[str] = []
    for text in (v for v in arguments.values() if isinstance(v, str)):
        query = url_query(text)
        if not links or query is None or not query.resource or not query.embedded:
            continue
        start = table_collection(index, query.resource)
        if start is None:
            continue
        reached = {start.pointer: [p for p in picked if within(start.pointer, p)][:MOST_STARTS]}
        for name in query.embedded:
            target = table_collection(index, name)
            if target is None or target.pointer in reached:
                continue
            for source, pointers in list(reached.items()):
                more = _through(overlay, state, links, source, pointers, target)
                if more:
                    reached[target.pointer] = more
                    found += [p for p in more if p not in found]
                    break
    return found[:MOST_EMBEDDED]


def _through(
    overlay: StateOverlay,
    state: Any,
    links: tuple[SchemaLink, ...],
    source: str,
    pointers: list[str],
    target: Collection,
) -> list[str]:
    """The records of ``target`` linked to those at ``pointers`` (of ``source``)."""
    found: list[str] = []
    for link in links:
        if link.source == target.pointer and link.target == source:
            keys = [_key(overlay, state, p) for p in pointers]
            found += _children(overlay, state, target, link.field, [k for k in keys if k])
        elif link.source == source and link.target == target.pointer:
            values = [v for p in pointers for _, v in values_at(resolve(state, p), link.field)]
            found += _parents(overlay, target, [normalize(v) for v in values])
    return list(dict.fromkeys(found))[:MOST_EMBEDDED]


def _key(overlay: StateOverlay, state: Any, pointer: str) -> str | None:
    """A record's key, as its references hold it: its id field's value, else its key."""
    facts = overlay.facts(pointer)
    collection = next(
        (c for c in overlay.base.collections if facts and c.pointer == facts.collection), None
    )
    record = resolve(state, pointer)
    if collection is not None and collection.id_field and isinstance(record, dict):
        return normalize(record.get(collection.id_field))
    return normalize(pointer.rsplit("/", 1)[-1])


def _children(
    overlay: StateOverlay, state: Any, target: Collection, field: str, keys: list[str]
) -> list[str]:
    found: list[str] = []
    for key in keys:
        for pointer in overlay.value_hits(key):
            if not within(target.pointer, pointer) or pointer in found:
                continue
            held = {normalize(v) for _, v in values_at(resolve(state, pointer), field)}
            if key in held:
                found.append(pointer)
    return found


def _parents(overlay: StateOverlay, target: Collection, labels: list[str | None]) -> list[str]:
    found: list[str] = []
    for label in (label for label in labels if label is not None):
        found += [h.pointer for h in overlay.key_hits(label) if within(target.pointer, h.pointer)]
    return found
