"""The records a summary sums up, with where they are and what selected them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from jsonpointer import unescape

from mcp_sim.runtime.state_shape import Collection


@dataclass
class Group:
    """Records a summary sums up: where they are, and what selected them."""

    name: str
    scope: str
    records: list[Any]
    keys: list[str] | None = None
    """Each record's key (its id field's value, else its place), where it has one."""
    outer: tuple[str, int] | None = None
    """For parts of records (a parcel's scans at a facility): the records' kind and number."""
    id_field: str | None = None
    """The field holding each record's key, where the records are a collection's."""


def record_keys(collection: Collection, pointers: list[str], records: list[Any]) -> list[str]:
    """Each record's key: its id field's value, else its place in the collection."""
    id_field = collection.id_field
    return [
        str(r[id_field])
        if id_field is not None and isinstance(r, dict) and id_field in r
        else unescape(p.rsplit("/", 1)[-1])
        for p, r in zip(pointers, records, strict=True)
    ]
