"""Which records the prompt's history already shows as they are now.

A turn of a large world shows the records its call needs (see
:mod:`mcp_sim.prompting.state_view`). The next call of an episode usually needs many of them
again (the same user, the same order); showing them again would repeat them in every turn, so
the history would fill (and compaction come) many times sooner, and each call would send
thousands of new tokens that no prefix cache holds. A record a kept turn showed whole, and that
no change committed since touched, is named instead of repeated.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from typing import Any

_RECORD_LINE = re.compile(r"^- (/[^\n]*?): (?=[\[{\"0-9tfn-])", re.MULTILINE)
"""A record line of a view (``- /orders/#W1: {...}``); outlined records carry a label before
the colon (``(large parts outlined)``) and so are not whole."""
_OUTLINED = " (large parts outlined)"
_PLACE_LABEL = re.compile(r' \(at \{"lat": [^{}\n]*\}\)(?=:| \(large parts outlined\):)')
"""The position a point feature's line spells out (see :mod:`mcp_sim.prompting.geo_labels`):
its ``": "`` would otherwise end the pointer early, and the record never count as shown."""
_KEY_LABEL = re.compile(r' \(key "[^"\n]*":"[^\n]*?"\)(?= \(large parts outlined\)|$)')
"""The label naming a record's key (see :mod:`mcp_sim.prompting.key_names`)."""
KNOWN_HEADING = "**Also needed, shown whole in an earlier turn and unchanged since:**"


@functools.lru_cache(maxsize=4096)
def record_pointers(head: str) -> tuple[str, ...]:
    """The pointers of the records ``head`` (a turn as shown) shows whole. A session's turns
    keep their heads, so each is read once, not on every later call."""
    found = (_KEY_LABEL.sub("", p) for p in _RECORD_LINE.findall(_PLACE_LABEL.sub("", head)))
    return tuple(p for p in found if not p.endswith(_OUTLINED))


def _segments(pointer: str) -> list[str]:
    return pointer.split("/")[1:]


def touches(op: dict[str, Any], pointer: str) -> bool:
    """Whether the JSON Patch operation ``op`` may change the record at ``pointer``: it writes
    the record, inside it or above it, or shifts the array it stands in."""
    record = _segments(pointer)
    for key in ("path", "from"):
        path = op.get(key)
        if not isinstance(path, str) or (key == "from" and op.get("op") == "copy"):
            continue  # a copy reads its source, and changes nothing there
        changed = _segments(path)
        common = min(len(changed), len(record))
        if changed[:common] == record[:common]:
            return True
        # Adding to or removing from an array moves the items after it.
        beside = bool(record) and record[-1].isdigit() and changed[:-1] == record[:-1]
        shifts = beside and _shifts(op.get("op"), key, changed[-1])
        if shifts and int(changed[-1]) <= int(record[-1]):
            return True
    return False


def _shifts(kind: Any, key: str, last: str) -> bool:
    """Whether an operation of ``kind`` at ``last`` (its ``key``'s last segment) may move the
    items of an array after it: an insertion or removal at an index does (an object keyed by
    numbers is taken for an array, which only shows a record again); appending (``/-``)
    moves none, so the records a turn showed keep their pointers across a log's appends."""
    if not last.isdigit():
        return False
    return kind in ("add", "remove", "move", "copy") and (key == "path" or kind == "move")


def known_records(
    heads: Sequence[str | None], changes: Sequence[Iterable[dict[str, Any]]]
) -> set[str]:
    """The records shown whole by the turns ``heads`` (oldest first) that no later change
    touched: ``changes[i]`` is what turn ``i`` committed (after its head was shown)."""
    known: set[str] = set()
    for head, change in zip(heads, changes, strict=True):
        if head is not None:
            known.update(record_pointers(head))
        ops = list(change)
        if ops:
            known = {p for p in known if not any(touches(op, p) for op in ops)}
    return known


MAX_NAMED = 30
"""Known records named per turn; more would cost more than they tell."""


def known_line(pointers: Sequence[str]) -> str:
    """The line naming the records a call needs that an earlier turn shows (``""`` if none)."""
    if not pointers:
        return ""
    return f"{KNOWN_HEADING} {', '.join(pointers[:MAX_NAMED])}"
