"""The values a record nested in a large member answers to: its own, and its member's.

An event filed in a calendar (see :mod:`mcp_sim.runtime.member_arrays`) is looked for by the
calendar's name as much as by its own fields (``find_events calendar="Payments team"``), and
a transaction by its account's number: the member's own scalars (those outside its array of
records) are the context of each of its records, indexed as values of the record itself.
"""

from __future__ import annotations

from typing import Any

from jsonpointer import escape

from mcp_sim.runtime.state_paths import resolve
from mcp_sim.runtime.state_shape import Collection, RecordFacts, normalize, record_facts

_MOST_VALUES = 64
_MAX_DEPTH = 4


def member_scalars(member: Any, records: str) -> list[Any]:
    """The scalars of ``member`` outside its records' array (at the path ``records``)."""
    found: list[Any] = []

    def walk(value: Any, path: str, depth: int) -> None:
        if path == records or depth > _MAX_DEPTH or len(found) >= _MOST_VALUES:
            return
        if isinstance(value, dict | list):
            items = value.items() if isinstance(value, dict) else enumerate(value)
            for key, item in items:
                part = escape(str(key))
                walk(item, f"{path}/{part}" if path else part, depth + 1)
        elif len(found) < _MOST_VALUES:
            found.append(value)

    walk(member, "", 0)
    return found


class FiledFacts:
    """What the index knows of the records of ``collection`` in ``state``: each one's own
    values, and, for a record filed in a large member, the member's own scalars too (as
    values of the whole record), read once for all the member's records."""

    def __init__(self, collection: Collection, state: Any) -> None:
        self.collection = collection
        self.state = state
        self._context: dict[str, list[str]] = {}
        """A member's pointer → its own scalars, normalized."""

    def of(self, key: str, pointer: str, record: Any) -> RecordFacts:
        """The facts of the record at ``pointer``."""
        collection = self.collection
        facts = record_facts(key, collection.pointer, record)
        if collection.members:
            below = pointer[len(collection.pointer) + 1 :].split("/", 1)[0]
            for label in self._member_context(f"{collection.pointer}/{below}"):
                facts.values.setdefault(label, "")
        return facts

    def _member_context(self, member: str) -> list[str]:
        labels = self._context.get(member)
        if labels is None:
            scalars = member_scalars(resolve(self.state, member), self.collection.pages)
            labels = [label for value in scalars if (label := normalize(value)) is not None]
            self._context[member] = labels
        return labels
