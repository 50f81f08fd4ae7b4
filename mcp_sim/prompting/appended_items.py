"""The number an item a write appends to a record's list takes, under the name the world's
tools give an item's number.

``post_charge(confirmation_number, ...)`` appends a line to a reservation's folio and answers
with the line's number; ``get_folio_line(confirmation_number, line_no)`` reads a line by that
number. A read tool that takes the write's key argument and one whole number besides names
the items of the record's list by their number (from 1), so the item the write appends is
number (items now + 1) under that name:

    - An item this call appends to /orders/SO-7/lines (3 now) takes the next number:
      {"line_no": 4}

The list is the record's one list of entries (an array of objects, or an element ``xmltodict``
gives as a lone object), or of several, the one whose items' field names share most words
with the write's arguments.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from jsonpointer import escape

from mcp_sim.prompting.field_names import stem, tokens
from mcp_sim.runtime.state_paths import resolve
from mcp_sim.spec.world import ToolSpec


@dataclass(frozen=True)
class AppendedItem:
    pointer: str
    """The list the item goes into."""
    count: int
    """Items it holds now."""
    name: str
    """What the tools call an item's number (``line_no``)."""

    def render(self) -> str:
        number = json.dumps({self.name: self.count + 1})
        return (
            f"- An item this call appends to {self.pointer} ({self.count} now) takes the next "
            f"number: {number}"
        )


def _arguments(tool: ToolSpec) -> dict[str, Any]:
    properties = tool.input_schema.get("properties")
    return properties if isinstance(properties, dict) else {}


def number_name(tool: ToolSpec, tools: Sequence[ToolSpec]) -> str | None:
    """The argument a read tool takes beside the write's own arguments to name an item by
    its number (one whole number besides them), if one does."""
    own = set(_arguments(tool))
    for other in tools:
        if other.name == tool.name or other.effect == "write":
            continue
        given = _arguments(other)
        rest = [name for name in given if name not in own]
        if own & set(given) and len(rest) == 1:
            spec = given[rest[0]]
            if isinstance(spec, dict) and spec.get("type") == "integer":
                return rest[0]
    return None


def appended_item(
    state: Any,
    tool: ToolSpec | None,
    tools: Sequence[ToolSpec],
    arguments: dict[str, Any],
    named: Sequence[str],
) -> AppendedItem | None:
    """Where a write appends an item to the first ``named`` record (a pointer), and the
    number it takes; ``None`` for a read, or when no tool numbers items or the record holds
    no list of entries."""
    if tool is None or tool.effect != "write" or not named:
        return None
    name = number_name(tool, tools)
    if name is None:
        return None
    lists = list(_lists(resolve(state, named[0]), named[0]))
    if not lists:
        return None
    words = {stem(w) for n in arguments for w in tokens(n)}
    pointer, items = max(lists, key=lambda found: _shared(found[1], words))
    return AppendedItem(pointer, len(items), name)


def _lists(node: Any, pointer: str) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """The lists of entries inside a record: arrays of objects, and elements holding one
    object where an export writes a list of one as the object itself."""
    if not isinstance(node, dict):
        return
    for key, value in node.items():
        where = f"{pointer}/{escape(key)}"
        if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            yield where, value
        elif isinstance(value, dict) and len(value) == 1:
            (inner_key, inner), *_ = value.items()
            if isinstance(inner, dict) and inner:
                yield f"{where}/{escape(inner_key)}", [inner]
            elif isinstance(inner, list) and inner and all(isinstance(v, dict) for v in inner):
                yield f"{where}/{escape(inner_key)}", inner
        elif isinstance(value, dict):
            yield from _lists(value, where)


def _shared(items: list[dict[str, Any]], words: set[str]) -> int:
    return len({stem(w) for key in items[0] for w in tokens(key)} & words)
