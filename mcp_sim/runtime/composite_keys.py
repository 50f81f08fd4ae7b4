"""Composite key values: ``MEMBER#1042``, ``BOOKING#2025-03-01#50077``, ``order|A-17``.

A single-table store (DynamoDB's single-table design, a key-value export) names each record by
keys built of a type prefix and the parts that identify it, while the tools that read it take
the bare ids (``member_id=1042``). :func:`key_parts` splits such a value into the parts a call
may name, and :func:`composite_id` gives a record's own id: the last part of its most specific
composite key (a booking's sort key ``BOOKING#2025-03-01#50077`` over its partition key
``MEMBER#1042``, which names its owner).
"""

from __future__ import annotations

import re
from typing import Any

_COMPOSITE = re.compile(r"[A-Za-z][A-Za-z_]*[#|][^#|\s]\S*")
"""A type prefix (letters), then a separator and the parts, no space anywhere."""
_SEPARATOR = re.compile(r"[#|]")
_RESOURCE = re.compile(r"[a-z]+/[^/\s]+(/[^/\s]+){3,}/[^/\s]*\d[^/\s]*")
"""A resource name of collections and ids, five segments or more, ending in an id with a
digit (``projects/p/databases/(default)/documents/boats/BT-7``), as APIs name documents."""
_MAX_CHARS = 120
_MARKS = frozenset("#|/")
"""A composite key holds a separator, a resource name a slash."""


def key_parts(value: str) -> list[str]:
    """The parts of a composite key after its type prefix (``["2025-03-01", "50077"]``), or
    the id ending a resource name (``BR-00282`` of ``projects/p/databases/(default)/documents/
    Barrels/BR-00282``); none for any other string."""
    if len(value) > _MAX_CHARS or not _MARKS.intersection(value):
        # Most values a record holds are neither (names, dates, amounts): said at once.
        return []
    if _RESOURCE.fullmatch(value):
        return [value.rsplit("/", 1)[1]]
    if not _COMPOSITE.fullmatch(value):
        return []
    return [part for part in _SEPARATOR.split(value)[1:] if part]


def composite_id(record: Any) -> str | None:
    """The id a record's composite keys give it: the last part of the one of most parts (the
    first of those); ``None`` when its fields hold no composite key."""
    if not isinstance(record, dict):
        return None
    best: list[str] = []
    for value in record.values():
        if isinstance(value, str) and len(parts := key_parts(value)) > len(best):
            best = parts
    return best[-1] if best else None


def composite_reference(value: Any) -> tuple[str, str] | None:
    """``(type, id)`` of a composite key naming one record by its type and id alone
    (``MEMBER#1042``: member 1042, as a booking's partition key names its owner); ``None``
    for any other value, a key of more parts (``BOOKING#2025-03-01#50077``) too."""
    if not isinstance(value, str) or len(value) > _MAX_CHARS or not _COMPOSITE.fullmatch(value):
        return None
    kind, *parts = _SEPARATOR.split(value)
    return (kind, parts[0]) if len(parts) == 1 and parts[0] else None
