"""Paths through a tree of records: the entry a nested record sits in, and the place a path
of keys (``/alpha82/basalt22``, a unit path ``GRA12/AMB2452``) leads to inside a record."""

from __future__ import annotations

from typing import Any

from jsonpointer import escape

from mcp_sim.runtime.state_paths import resolve
from mcp_sim.runtime.state_shape import normalize


def enclosing(pointer: str, record: str) -> str:
    """The entry of a tree that the nested record at ``pointer`` sits in
    (``/divisions/3/units/0/members/2`` → ``/divisions/3/units/0``), never above ``record``
    (the collection's record or its collection: ``/divisions/3``)."""
    parts = pointer.split("/")
    inner = "/".join(parts[:-2])
    depth = record.count("/") + 1
    return inner if inner.count("/") >= depth else "/".join(parts[: depth + 1])


def descend(record: Any, parts: list[str], inner: str = "") -> str | None:
    """The place inside ``record`` (a relative pointer, from ``inner``) that a path of keys
    leads to: each part a key of the current entry or of one of its maps (a folder's
    ``children``), or the id of an item of one of its arrays (a unit's ``units``)."""
    node = resolve(record, inner) if inner else record
    for part in parts:
        found = _child(node, part)
        if found is None:
            return None
        step, node = found
        inner += step
    return inner


def _child(node: Any, part: str) -> tuple[str, Any] | None:
    if not isinstance(node, dict):
        return None
    if part in node:
        return f"/{escape(part)}", node[part]
    wanted = normalize(part)
    for name, value in node.items():
        if isinstance(value, dict) and part in value:
            return f"/{escape(name)}/{escape(part)}", value[part]
        if isinstance(value, list):
            for i, item in enumerate(value):
                if isinstance(item, dict) and any(
                    normalize(v) == wanted for v in item.values() if not isinstance(v, dict | list)
                ):
                    return f"/{escape(name)}/{i}", item
    return None
