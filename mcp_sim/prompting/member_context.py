"""Where records nested in large members are filed: the member's own fields beside them.

A collection's records may be the items of its members' inner arrays (the events of a few
calendars; see :mod:`mcp_sim.runtime.member_arrays`). An answer about such a record often
carries its member's fields too: the calendar's name an event is filed in, the header of the
calendar object an event is answered in, the account number beside a transaction. The member
is too large to show, but its own fields are few: this section shows, for each member holding
a record the call needs, the member with its records left out.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any

from mcp_sim.prompting.record_render import record_line
from mcp_sim.runtime.state_index import StateOverlay
from mcp_sim.runtime.state_paths import resolve

MEMBERS_HEADING = (
    "**Where these records are filed** (the member of its collection each is in, its "
    "records left out; JSON pointer: member):"
)
_MOST_MEMBERS = 4
_MEMBER_ROOM = 1_200


def _without_records(member: Any, path: str, pointer: str) -> Any:
    """``member`` with its records' array (at ``path``) replaced by a note of where they are."""
    parts = path.split("/")
    shown = copy.copy(member)
    holder = shown
    for part in parts[:-1]:
        child = holder[part] if isinstance(holder, dict) else holder[int(part)]
        child = copy.copy(child)
        if isinstance(holder, dict):
            holder[part] = child
        else:
            holder[int(part)] = child
        holder = child
    last = parts[-1]
    records = holder[last] if isinstance(holder, dict) else holder[int(last)]
    note = f"<{len(records)} records, at {pointer}/{path}/N>"
    if isinstance(holder, dict):
        holder[last] = note
    else:
        holder[int(last)] = note
    return shown


def members_of(overlay: StateOverlay, pointers: Iterable[str]) -> list[tuple[str, str]]:
    """The members (pointer, their records' path) that hold ``pointers``, first first."""
    found: dict[str, str] = {}
    for pointer in pointers:
        collection = overlay.base.collection_of(pointer)
        if collection is None or not collection.members:
            continue
        below = pointer[len(collection.pointer) + 1 :].split("/", 1)[0]
        found.setdefault(f"{collection.pointer}/{below}", collection.pages)
        if len(found) >= _MOST_MEMBERS:
            break
    return list(found.items())


def member_context(overlay: StateOverlay, state: Any, pointers: Iterable[str], room: int) -> str:
    """The section showing the members that hold ``pointers``, in ``room`` characters."""
    lines: list[str] = []
    left = room - len(MEMBERS_HEADING) - 1
    for member, path in members_of(overlay, pointers):
        value = resolve(state, member)
        try:
            shown = _without_records(value, path, member)
        except (KeyError, IndexError, ValueError, TypeError):
            continue  # the member no longer holds its records where it did
        line = record_line(member, shown, set(), min(left, _MEMBER_ROOM))
        if line is None:
            break
        lines.append(line)
        left -= len(line) + 1
    return "\n".join([MEMBERS_HEADING, *lines]) if lines else ""
