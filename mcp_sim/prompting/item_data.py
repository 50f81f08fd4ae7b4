"""The data an item holds beside the record it wraps, shown with the record.

Some arrays wrap each record in an item that holds, beside it, the record's own data: a
Prometheus matrix's series is ``{"metric": {labels}, "values": [[time, "value"], ...]}``, its
labels the record (what it is found by: kind, instance, job) and its samples the data every
query of it answers with. Shown alone, the record (``/data/result/7/metric``) leaves out what
the answer is made of; the item is shown instead, at its own pointer, the record within it the
focus (kept whole while the item's other large parts are outlined). An item that holds only
scalars and objects beside its record (a GraphQL edge's ``cursor``, a FHIR entry's
``fullUrl`` and ``search``) keeps its record shown alone: those are the envelope's, not the
record's data.
"""

from __future__ import annotations

from typing import Any

from jsonpointer import escape, unescape

from mcp_sim.runtime.state_paths import resolve


def with_item_data(
    state: Any, pointer: str, record: Any, focus: set[str]
) -> tuple[str, Any, set[str]]:
    """``(pointer, value, focus)`` to show for the record at ``pointer``: its item's, with
    the record and the record's focus as the item's focus, when the record is an array item's
    field beside arrays of data; else the record's own."""
    item_at, _, key = pointer.rpartition("/")
    if not item_at.rpartition("/")[2].isdigit():
        return pointer, record, focus
    item = resolve(state, item_at)
    if not isinstance(item, dict) or item.get(unescape(key)) is not record:
        return pointer, record, focus
    if not any(isinstance(v, list) and v for k, v in item.items() if k != unescape(key)):
        return pointer, record, focus
    inner = f"/{escape(unescape(key))}"
    return item_at, item, {inner, *(inner + f for f in focus if f)}
