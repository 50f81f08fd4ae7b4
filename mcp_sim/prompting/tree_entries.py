"""The entries under a tree entry a call names by path, each written with its path.

A file system, a category tree or a bucket's prefixes keep entries inside maps of entries
(a folder's ``children``) several levels down: ``find(path="/nimbus97", user="cyd")`` answers
with the files under ``/nimbus97`` at any depth, each named by its whole path
(``/nimbus97/cedar39/onyx_7935.csv``), which no record holds. The record the path leads into
shows the entries nested as they are stored; this lists the innermost entries (those holding
no map of entries) under the one the path names, each as compact JSON of its scalar fields led
by its path under the argument's own name, those holding more of the other arguments' values
first (an owner, an extension), as many as fit:

    - Entries under "/nimbus97" at any depth (14), by "path", those holding more of the
      call's values first:
      {"path":"/nimbus97/cedar39/onyx_7935.csv","owner":"cyd","size":4820927}
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from jsonpointer import unescape

from mcp_sim.prompting.argument_values import argument_values
from mcp_sim.prompting.tree_paths import descend
from mcp_sim.runtime.state_paths import resolve
from mcp_sim.runtime.state_shape import normalize

MOST_ENTRIES = 2000
"""Entries walked under one path, at most."""


@dataclass(frozen=True)
class TreeEntries:
    name: str
    """The argument that gives the path (its name names each entry's path)."""
    path: str
    entries: list[tuple[str, dict[str, Any]]]
    """Each innermost entry's path and scalar fields, best first."""

    def render(self, room: int) -> str:
        """The entries that fit in ``room`` characters, and how many did not."""
        head = (
            f"- Entries under {json.dumps(self.path, ensure_ascii=False)} at any depth "
            f'({len(self.entries)}), by "{self.name}", those holding more of the call\'s '
            "values first:"
        )
        lines = [head]
        left = room - len(head) - 40
        for path, fields in self.entries:
            line = "  " + json.dumps(
                {self.name: path, **fields}, ensure_ascii=False, separators=(",", ":")
            )
            if len(line) + 1 > left:
                break
            lines.append(line)
            left -= len(line) + 1
        shown = len(lines) - 1
        if not shown:
            return ""
        if shown < len(self.entries):
            lines.append(f"  … and {len(self.entries) - shown} more, not shown for room")
        return "\n".join(lines)


def tree_entries(state: Any, named: Sequence[str], arguments: dict[str, Any]) -> TreeEntries | None:
    """The entries under the entry an argument's path (``/nimbus97/cedar39``) leads to, from
    one of the ``named`` records (pointers) whose key is the path's first part; ``None``
    when no argument is such a path or it leads to no map of entries."""
    for name, value in arguments.items():
        if not isinstance(value, str) or not value.startswith("/"):
            continue
        parts = [p for p in value.split("/") if p]
        for pointer in named if parts else ():
            if unescape(pointer.rsplit("/", 1)[-1]) != parts[0]:
                continue
            record = resolve(state, pointer)
            inner = descend(record, parts[1:])
            node = resolve(record, inner) if inner else record
            found = list(_innermost(node, value.rstrip("/")))
            if found:
                wanted = {v for k, v in arguments.items() if k != name for v in argument_values(v)}
                found.sort(key=lambda entry: -_held(entry, wanted))
                return TreeEntries(name, value, found)
    return None


def _entries(node: Any) -> dict[str, Any] | None:
    """The map of entries ``node`` holds (a folder's ``children``), if any."""
    if not isinstance(node, dict):
        return None
    for value in node.values():
        if isinstance(value, dict) and value and all(isinstance(v, dict) for v in value.values()):
            return value
    return None


def _innermost(node: Any, path: str, budget: list[int] | None = None) -> Iterator[tuple[str, Any]]:
    budget = budget if budget is not None else [MOST_ENTRIES]
    for key, entry in (_entries(node) or {}).items():
        if budget[0] <= 0:
            return
        budget[0] -= 1
        where = f"{path}/{key}"
        if _entries(entry) is not None:
            yield from _innermost(entry, where, budget)
        else:
            yield where, {k: v for k, v in entry.items() if not isinstance(v, dict | list)}


def _held(entry: tuple[str, dict[str, Any]], wanted: set[str]) -> int:
    """How many of the call's values the entry holds: as a field's value, or as its name's
    last part (an extension)."""
    path, fields = entry
    held = {normalize(v) for v in fields.values()} | {normalize(path.rsplit(".", 1)[-1])}
    return len(held & wanted)
