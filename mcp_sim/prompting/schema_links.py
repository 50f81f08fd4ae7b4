"""The links a schema document in the state declares (see
:mod:`mcp_sim.prompting.schema_documents`), tied to the state's collections: which field of
which collection's records refers to which other collection.

Links are otherwise known by their values and names: a field whose values are another
collection's keys, named for it or as an id (``owner_id``, ``boat``). A field whose name says
neither (``owner``, ``ref_a``, ``parent`` holding whole numbers, as any count does) is a link
only where a schema says so; and a request that embeds one table's rows in another's
(PostgREST's ``select=*,bookings(*)``) follows the links the schema declares in either
direction. A table is the collection whose pointer's last segment has its name's words
(``bookings`` ↔ ``/bookings``, ``/data/tables/Bookings``); a column is the field of that name,
or an object under it holding the key (``owner/id``). Read once per world and kept on its
index.
"""

from __future__ import annotations

from dataclasses import dataclass

from jsonpointer import unescape

from mcp_sim.prompting.field_names import tokens
from mcp_sim.prompting.record_fields import FieldSchema
from mcp_sim.prompting.schema_documents import declared_links
from mcp_sim.runtime.state_index import StateIndex
from mcp_sim.runtime.state_shape import Collection


@dataclass(frozen=True)
class SchemaLink:
    """One declared link: ``field`` of the records of ``source`` holds keys of ``target``."""

    source: str
    field: str
    target: str


def schema_links(index: StateIndex) -> tuple[SchemaLink, ...]:
    """The links the state's schema documents declare between its collections (see the
    module), kept on ``index``."""
    known = index.derived.get("schema_links")
    if isinstance(known, tuple):
        return known
    found: list[SchemaLink] = []
    for table, column, target in declared_links(index.state):
        source, reached = table_collection(index, table), table_collection(index, target)
        if source is not None and reached is not None:
            found.append(SchemaLink(source.pointer, column, reached.pointer))
    links = tuple(dict.fromkeys(found))
    index.derived.setdefault("schema_links", links)
    return links


def table_collection(index: StateIndex, table: str) -> Collection | None:
    """The collection holding ``table``'s rows: its pointer's last segment has the table's
    words (the one of exactly its name first), else another segment does (a table's
    ``/Loans/rows``, an envelope's ``/boats/data``)."""
    words = tokens(table)
    if not words:
        return None
    fitting = [c for c in index.collections if tokens(_last(c.pointer)) == words]
    exact = [c for c in fitting if _last(c.pointer).strip("/") == table]
    inner = [
        c
        for c in index.collections
        if any(tokens(unescape(s)) == words for s in c.pointer.split("/")[:-1])
    ]
    chosen = exact or fitting or inner
    return chosen[0] if chosen else None


def _last(pointer: str) -> str:
    return unescape(pointer.rsplit("/", 1)[-1])


def name_links(index: StateIndex, schema: FieldSchema) -> None:
    """Gives each field of ``schema`` that a schema declares a link also the name of a key of
    its target (``RefB`` of inspections, declared to refer to keepers, answers to
    ``keeper_id`` as a field ``RefB/keeper_id`` would), so that an argument naming the
    target's key is tied to it."""
    for link in schema_links(index):
        if link.source != schema.collection:
            continue
        named = (*tokens(_last(link.target)), "id")
        for path, info in schema.fields.items():
            if declares(path, {link.field}) and named not in info.words:
                info.words = (*info.words, named)


def declared_fields(index: StateIndex, links: str, targets: str) -> set[str]:
    """The fields of the records of ``links`` that a schema says refer to ``targets``."""
    return {s.field for s in schema_links(index) if s.source == links and s.target == targets}


def declares(path: str, fields: set[str]) -> bool:
    """Whether a record's field ``path`` is one of the declared ``fields``, inside one (a
    nested reference ``owner/id``) or under the encoding's wrapper (Firestore's
    ``fields/owner``)."""
    parts = path.split("/")
    return any(f in parts for f in fields)
