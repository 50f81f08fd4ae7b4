"""How one record, or the outline of a collection, is written into a prompt within a budget.

A record is shown as ``- POINTER: {compact JSON}``, so the model has the pointer to patch. A
record too large for the room left (a flight with a year of days, a product with hundreds of
variants) is shown with its focus in full (the parts the call is about) and its other large
parts replaced by a short note of what they hold; only what does not fit even so is left out,
and then the view says so.
"""

from __future__ import annotations

import json
from typing import Any

from jsonpointer import escape

OUTLINE_KEYS = 6
"""Keys named in the note that replaces a large part of a record (first and last ones)."""


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def size(value: Any) -> int:
    """The length of ``value``'s compact JSON (unsorted: sorting is most of the cost)."""
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")))


def shape(value: Any, depth: int = 0) -> Any:
    """The shape of a value: field names and JSON types, two levels deep."""
    if isinstance(value, dict):
        if depth >= 2:
            return "object"
        return {k: shape(v, depth + 1) for k, v in sorted(value.items())[:24]}
    if isinstance(value, list):
        return [shape(value[0], depth + 1)] if value and depth < 2 else "array"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    return "null" if value is None else "string"


def note(value: Any) -> str:
    """What stands in for a large part of a record: its size and some keys."""
    if isinstance(value, dict):
        keys = list(value)
        shown = keys if len(keys) <= OUTLINE_KEYS else [*keys[:3], "…", *keys[-3:]]
        return f"<outlined: object of {len(keys)} entries: {', '.join(shown)}>"
    if isinstance(value, list):
        return f"<outlined: array of {len(value)} items>"
    return f"<outlined: {len(str(value))} characters>"


def _on_focus(pointer: str, focus: set[str]) -> bool:
    return any(f == pointer or f.startswith(pointer + "/") for f in focus)


def trimmed(value: Any, focus: set[str], limit: int, pointer: str = "") -> Any:
    """``value`` with every part larger than ``limit`` characters, and not on the way to a
    focus, replaced by its :func:`note`; focus parts are kept whole."""
    if pointer and any(pointer == f or pointer.startswith(f + "/") for f in focus):
        return value
    if not isinstance(value, dict | list) or size(value) <= limit:
        return value
    if not pointer or _on_focus(pointer, focus):
        if isinstance(value, dict):
            return {k: trimmed(v, focus, limit, f"{pointer}/{escape(k)}") for k, v in value.items()}
        return [trimmed(v, focus, limit, f"{pointer}/{i}") for i, v in enumerate(value)]
    return note(value)


def record_line(pointer: str, record: Any, focus: set[str], room: int) -> str | None:
    """The line showing ``record`` in at most ``room`` characters: whole if it fits, else
    trimmed ever harder around its focus; ``None`` if not even that fits."""
    line = f"- {pointer}: {dumps(record)}"
    if len(line) <= room:
        return line
    for limit in (2000, 600, 200, 60, 0):
        line = f"- {pointer} (large parts outlined): {dumps(trimmed(record, focus, limit))}"
        if len(line) <= room:
            return line
    return None


def collection_line(pointer: str, value: Any, keyed: bool, id_field: str | None) -> str:
    """One line of the outline: where a collection is, how many records, their ids and
    the shape of one."""
    if isinstance(value, list):
        kind = f"array of {len(value)} items"
        sample = value[0] if value else None
        ids = [str(r.get(id_field)) for r in value if isinstance(r, dict)] if id_field else []
    else:
        kind = f"object with {len(value)} keys"
        sample = next(iter(value.values()), None) if value else None
        ids = list(value) if keyed else []
    line = f"- {pointer}: {kind}"
    if keyed:
        line += " (records keyed by their id)"
    elif id_field:
        line += f" (records with id field {id_field!r})"
    if ids:
        line += f", ids {ids[0]} … {ids[-1]}" if len(ids) > 1 else f", id {ids[0]}"
    if sample is not None:
        line += f"; one record looks like {dumps(shape(sample))}"
    return line
