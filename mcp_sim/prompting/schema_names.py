"""The fields of a record that a tool's output schema names otherwise.

An output schema says what the answers call their fields (``given_name``, ``restarts``),
where the store nests them under its own names (``Name/Given``,
``status/containerStatuses/0/restartCount``). A property names the one field of a record
whose path holds every word of the property's name and whose value has the property's type.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from mcp_sim.prompting.answer_sources import Source, leaves
from mcp_sim.prompting.field_names import tokens

MAX_DEPTH = 6
_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int, float, str),
    "number": (int, float, str),
}
"""The values a property of each type may take from a store (a number written as text)."""


def schema_sources(schema: dict[str, Any] | None, record: dict[str, Any]) -> dict[str, Source]:
    """The schema's property names that name no field of ``record`` as they are, each with
    the one field its words and type fit."""
    if schema is None:
        # Most tools have no output schema: their records' leaves need not be read.
        return {}
    fields = dict(leaves(record))
    named = {tokens(path.rpartition("/")[2]) for path in fields}
    found: dict[str, Source] = {}
    for name, kind in _properties(schema, 0):
        words = set(tokens(name))
        if not words or tokens(name) in named or name in found:
            continue
        types = _TYPES.get(kind, (str, int, float))
        fitting = [
            path
            for path, value in fields.items()
            if isinstance(value, types)
            and not isinstance(value, bool)
            and words <= set(tokens(path.replace("/", " ")))
        ]
        if len(fitting) == 1:
            found[name] = Source(fitting[0])
    return found


def _properties(schema: dict[str, Any], depth: int) -> Iterator[tuple[str, str]]:
    """Each property's name and scalar type, at any depth (an array's items included)."""
    if depth > MAX_DEPTH:
        return
    for name, inner in (schema.get("properties") or {}).items():
        if not isinstance(inner, dict):
            continue
        kind = inner.get("type")
        if isinstance(kind, str) and kind in _TYPES:
            yield str(name), kind
        yield from _properties(inner, depth + 1)
    items = schema.get("items")
    if isinstance(items, dict):
        yield from _properties(items, depth + 1)
