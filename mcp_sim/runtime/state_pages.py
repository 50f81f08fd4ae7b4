"""Records an API wraps: page by page, or one per GraphQL edge.

Pages: ``{"pages": [{"page": 1, "items": [...]}, ...]}``.

An API read to the end and saved as it came keeps one collection in several arrays, one per
page, each beside the page's number or cursor. Read as an array, its records would be the
pages; read as one collection, a search or a count covers them all. :func:`page_field` tells
such an array apart from records that each hold a list (an order and its lines): a page holds
one array of records and nothing but its number (the page's position, or that plus one),
flags and empty cursors.

Edges: a GraphQL connection (``{"edges": [{"node": {...}, "cursor": "c1"}]}``) wraps each
record beside its cursor, and some exports wrap each record alone in an object of one key
(``[{"fields": {...}}, ...]``); :func:`wrapper_of` says where in each item the record is.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from jsonpointer import escape, unescape

_MIN_PAGES = 2
_SAMPLE_ITEMS = 24


def _list_field(page: dict[str, Any]) -> str | None:
    lists = [k for k, v in page.items() if isinstance(v, list)]
    return lists[0] if len(lists) == 1 else None


def _page_mark(value: Any, position: int) -> bool:
    """What beside its records a page may hold: its number, a flag, nothing."""
    if isinstance(value, bool) or value is None:
        return True
    return isinstance(value, int) and value in (position, position + 1)


def page_field(value: Any) -> str:
    """The field holding each page's records when ``value`` is pages of one collection, else
    ``""``."""
    if (
        not isinstance(value, list)
        or len(value) < _MIN_PAGES
        or not all(isinstance(page, dict) for page in value)
    ):
        return ""
    field = _list_field(value[0])
    if field is None:
        return ""
    for position, page in enumerate(value):
        records = page.get(field)
        if _list_field(page) != field or not all(isinstance(r, dict) for r in records):
            return ""
        if not all(_page_mark(v, position) for k, v in page.items() if k != field):
            return ""
    return field


def _pages(value: Any) -> list[tuple[str, Any]]:
    """``(position as in a pointer, page)`` of an array of pages or of an object of members
    keyed by id (see :mod:`mcp_sim.runtime.member_arrays`)."""
    if isinstance(value, dict):
        return [(escape(key), page) for key, page in value.items()]
    return [(str(at), page) for at, page in enumerate(value)] if isinstance(value, list) else []


def paged(value: Any, field: str) -> Iterator[tuple[str, str, Any]]:
    """``(position "PAGE/N", pointer below the pages "PAGE/FIELD/N", record)`` for each
    record, page by page."""
    for page_at, page in _pages(value):
        for at, record in enumerate(_records(page, field)):
            yield f"{page_at}/{at}", f"{page_at}/{field}/{at}", record


def at_path(value: Any, path: str) -> Any:
    """The value at ``path`` (escaped segments, no leading ``/``: ``jcal/2``) below
    ``value``, or ``None``."""
    for part in map(unescape, path.split("/")):
        if isinstance(value, dict):
            value = value.get(part)
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return None
    return value


def _records(page: Any, field: str) -> list[Any]:
    """The records of one page; ``field`` may be a path (``jcal/2``: a member's array of
    records nested in it, see :mod:`mcp_sim.runtime.member_arrays`)."""
    records = at_path(page, field)
    return records if isinstance(records, list) else []


def paged_count(value: Any, field: str) -> int:
    """How many records the pages hold."""
    return sum(len(_records(page, field)) for _, page in _pages(value))


def paged_ends(value: Any, field: str) -> list[Any]:
    """The first record of the pages and the last (one record: itself only)."""
    every = [
        r
        for _, page in _pages(value)
        for r in _records(page, field)[:1] + _records(page, field)[-1:]
    ]
    return every[:1] + every[1:][-1:]


def page_record(below: str, field: str, value: Any) -> str | None:
    """The record (``PAGE/FIELD/N``, below the pages) that a change at ``below`` touches,
    ``-`` resolved against ``value`` (the pages after it); ``None`` for a page's own
    fields."""
    parts, depth = below.split("/"), field.count("/") + 1
    if len(parts) < depth + 2 or "/".join(parts[1 : depth + 1]) != field:
        return None
    at = parts[depth + 1]
    if at == "-":
        records = _records(dict(_pages(value)).get(parts[0]), field)
        at = str(len(records) - 1) if records else "0"
    return f"{parts[0]}/{field}/{at}"


def page_position(below: str, field: str) -> str:
    """The position ``PAGE/N`` of the record at or inside ``below`` (below the pages)."""
    parts, at = below.split("/"), field.count("/") + 2
    return f"{parts[0]}/{parts[at]}" if len(parts) > at else below


EDGE_NODE = "node"
"""The field of a GraphQL connection's edge holding its record (the Relay convention)."""


def wrapper_of(items: list[Any]) -> str:
    """Where each item of an array of records holds its record: ``/node`` when every item is
    an edge (a ``node`` object, beside at most a cursor's scalars); ``/KEY`` when every item
    is an object of that one key only, holding an object (an export wrapping each record in
    its ``fields``); else ``""``."""
    sample = items[:_SAMPLE_ITEMS]
    if all(_edge(item) for item in sample):
        return f"/{EDGE_NODE}" if items else ""
    keys = {next(iter(item)) for item in sample if isinstance(item, dict) and len(item) == 1}
    if len(keys) != 1 or not all(len(item) == 1 for item in sample):
        return ""
    (key,) = keys
    return f"/{escape(key)}" if all(_wraps(item[key]) for item in sample) else ""


def _edge(item: Any) -> bool:
    node = item.get(EDGE_NODE) if isinstance(item, dict) else None
    return isinstance(node, dict) and not any(
        isinstance(v, dict | list) for k, v in item.items() if k != EDGE_NODE
    )


def _wraps(value: Any) -> bool:
    """Whether a lone key's value is a wrapped record: an object of several fields."""
    return isinstance(value, dict) and len(value) >= 2
