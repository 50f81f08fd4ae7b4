"""Envelopes: an API's list answer saved as it came, its records beside paging metadata.

``{"object": "list", "data": [...], "has_more": false, "url": "/v1/charges"}`` (Stripe),
``{"value": [...], "@odata.nextLink": ...}`` (OData), ``{"Resources": [...], "totalResults":
97, "schemas": [...]}`` (SCIM), ``{"_embedded": {...}, "_links": {...}}`` (HAL), a Kubernetes
``List``'s ``items``, a paging wrapper's ``{"page": 1, "results": [...]}``: one member holds
the records (an array, or an object of records keyed by id) and every other member is small
metadata (flags, urls, counts, a type tag). The envelope is no record; its container is the
collection, which the walk of :func:`mcp_sim.runtime.state_collections.find_collections` reaches
by stepping into the envelope (its pointer names the envelope's own key: ``/charges/data``).

An export of several list endpoints side by side (``{"charges": {envelope}, "customers":
{envelope}, ...}``) looks like a keyed collection: a few objects of one shape. Its members are
envelopes of records of different shapes (a charge's fields are not a customer's):
:func:`holds_envelopes` tells it apart from a few records that each hold a list of alike
items (accounts and their transactions, a keyed collection whose inner lists are one nested
collection).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

_MOST_MEMBERS = 24
"""An export of list endpoints has a few; more same-shaped objects are records."""
_SMALL_LEAVES = 12
"""The most scalars a metadata member may hold (SCIM's ``schemas``, HAL's ``_links``)."""
_SAMPLE = 24
_MOST_SHARED = 0.5
"""Two envelopes whose records share at most this much of their fields (Jaccard) hold
different kinds of record."""


def _leaves(value: Any, most: int) -> int:
    """How many scalars ``value`` holds, counted up to just past ``most``."""
    if not isinstance(value, dict | list):
        return 1
    count = 0
    for item in value.values() if isinstance(value, dict) else value:
        count += _leaves(item, most - count)
        if count > most:
            break
    return count


def _records_like(value: Any) -> bool:
    """An array of objects (or an empty one), an object of objects (records by id), or an
    object of such arrays (HAL's ``_embedded``, arrays by relation)."""
    if isinstance(value, list):
        return all(isinstance(item, dict) for item in value[:_SAMPLE])
    if not isinstance(value, dict) or not value:
        return False
    items = list(value.values())[:_SAMPLE]
    if all(isinstance(item, list) and item for item in items):
        return all(_records_like(item) for item in items)
    return len(value) >= 2 and all(isinstance(item, dict) for item in items)


def envelope_field(value: Any) -> str | None:
    """The member holding the records when ``value`` is an envelope (one container of
    records, every other member small metadata), else ``None``."""
    if not isinstance(value, dict) or len(value) < 2:
        return None
    big = [k for k, v in value.items() if _leaves(v, _SMALL_LEAVES) > _SMALL_LEAVES]
    if len(big) > 1:
        return None
    if big:
        return big[0] if _records_like(value[big[0]]) else None
    # A small or empty envelope: its one array of objects is the container.
    lists = [k for k, v in value.items() if isinstance(v, list) and _records_like(v)]
    return lists[0] if len(lists) == 1 else None


def _items(container: Any) -> list[Any]:
    items = container if isinstance(container, list) else list(container.values())
    return [item for item in items[:_SAMPLE] if isinstance(item, dict)]


def _names(record: dict[str, Any]) -> set[str]:
    """A record's field names, and those of its objects' fields (a search hit's ``_source``
    holds the fields that tell its kind)."""
    names = set(record)
    for name, value in record.items():
        if isinstance(value, dict) and len(value) <= 40:
            names.update(f"{name}/{inner}" for inner in value)
    return names


def _fields(container: Any) -> frozenset[str]:
    """The fields most of a container's records hold."""
    items = _items(container)
    counts = Counter(name for item in items for name in _names(item))
    return frozenset(n for n, c in counts.items() if c * 2 >= len(items))


def holds_envelopes(value: Any) -> bool:
    """Whether ``value`` is a few envelopes side by side whose records are of different
    kinds: several collections, not a collection of the envelopes."""
    if not isinstance(value, dict) or not 2 <= len(value) <= _MOST_MEMBERS:
        return False
    containers: list[Any] = []
    for member in value.values():
        field = envelope_field(member)
        if field is None:
            return False
        containers.append(member[field])
    return kinds_differ(containers)


def kinds_differ(containers: list[Any]) -> bool:
    """Whether the records of ``containers`` (arrays or objects of records) are of different
    kinds in different containers: their usual fields differ."""
    shapes = [_fields(c) for c in containers if _items(c)]
    pairs = [(a, b) for i, a in enumerate(shapes) for b in shapes[i + 1 :]]
    if not pairs:
        return False
    shared = sum(len(a & b) / len(a | b) if a | b else 1.0 for a, b in pairs) / len(pairs)
    return shared <= _MOST_SHARED


def members_holding_collections(
    value: dict[str, Any], field: str | None, nested: bool
) -> list[tuple[str, Any]]:
    """The members of ``value`` that may hold collections: all of them, except in an envelope
    below the state's root (``field`` its records' member), whose other members are the list
    response's metadata (HAL's ``_links``, paging), however record-like they look. At the
    root, small members beside the one big collection are the world's own small tables. The
    caller does not count a nested envelope's wrapping as a level of the state's own."""
    if field is None or not nested:
        return list(value.items())
    return [(field, value[field])]
