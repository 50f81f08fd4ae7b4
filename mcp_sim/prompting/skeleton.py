"""The skeleton of a large state's view: small values verbatim, each collection replaced by a
placeholder, other large values by a note of what they hold (see
:mod:`mcp_sim.prompting.state_view`).

A skeleton is wanted only when it fits its room: it is built counting the characters its JSON
takes at least, and given up (``None``) as soon as that count passes the room. A state with a
top-level object of thousands of entries (a time series keyed by timestamp) would otherwise be
walked and written out whole on every anchor, only to be dropped for overflowing.
"""

from __future__ import annotations

from typing import Any

from jsonpointer import escape, unescape

from mcp_sim.prompting.record_render import note, size
from mcp_sim.runtime.state_index import StateOverlay
from mcp_sim.runtime.state_keys import KeyPattern, unpatterned
from mcp_sim.runtime.state_paths import resolve

MAX_DEPTH = 4


class _TooLarge(Exception):
    """The skeleton's JSON is already longer than its room."""


def skeleton(value: Any, limit: int, overlay: StateOverlay, room: int) -> Any | None:
    """The skeleton of ``value`` (the state) keeping values of up to ``limit`` JSON characters
    verbatim; ``None`` when its JSON (``json.dumps`` with ``indent=1``) would take more than
    ``room`` characters."""
    try:
        return _Skeleton(limit, overlay, room).of(value, "", 0)
    except _TooLarge:
        return None


class _Skeleton:
    def __init__(self, limit: int, overlay: StateOverlay, room: int) -> None:
        self.limit = limit
        self.overlay = overlay
        self.room = room
        pointers = [c.pointer for c in overlay.base.collections]
        self.collections = set(pointers)
        # The parts holding a collection: each pointer ``p`` with ``p + "/"`` starting one.
        self.holders = {p[:i] for p in pointers for i, c in enumerate(p) if c == "/"}
        self.written = 0
        """Characters the JSON takes at least so far: each entry of an object, its key
        quoted, a colon and a space."""

    def _entries(self, value: dict[str, Any]) -> dict[str, Any]:
        self.written += sum(len(key) + 4 for key in value)
        if self.written > self.room:
            raise _TooLarge
        return value

    def of(self, value: Any, pointer: str, depth: int) -> Any:
        if pointer and pointer in self.collections:
            return f"<collection: {pointer}, see Collections>"
        # A part holding a collection is walked, never measured: measuring the whole state
        # (megabytes) on every anchor is what a view is for avoiding.
        holds = pointer in self.holders
        small = not holds and self.limit > 0 and isinstance(value, dict | list)
        if not isinstance(value, dict | list) or (small and size(value) <= self.limit):
            return value
        if holds and isinstance(value, dict):
            return self._entries(self._parts(value, pointer, depth))
        if isinstance(value, dict) and depth < MAX_DEPTH:
            return self._entries(
                {
                    key: self.of(item, f"{pointer}/{escape(key)}", depth + 1)
                    for key, item in value.items()
                }
            )
        return note(value)

    def _parts(self, value: dict[str, Any], pointer: str, depth: int) -> dict[str, Any]:
        """The skeleton of each part of an object holding collections; the keys of a flat
        key-value export stand for their patterns' collections, once each."""
        overlay = self.overlay
        stores = [
            c
            for c in overlay.base.collections
            if c.keys and c.pointer.rpartition("/")[0] == pointer
        ]
        if not stores:
            return {
                key: self.of(item, f"{pointer}/{escape(key)}", depth + 1)
                for key, item in value.items()
            }
        parts: dict[str, Any] = {
            c.pointer.rpartition("/")[2]: f"<collection: {c.pointer}, see Collections>"
            for c in stores
        }
        added = [unescape(p.rpartition("/")[2]) for p in sorted(overlay.loose)]
        odd = _odd_keys(overlay, pointer, [c.keys for c in stores if c.keys])
        for key in [*odd, *(k for k in added if f"{pointer}/{escape(k)}" in overlay.loose)]:
            if key in value:
                at = f"{pointer}/{escape(key)}"
                parts[key] = self.of(value[key], at, depth + 1)
        return parts


def _odd_keys(overlay: StateOverlay, pointer: str, patterns: list[KeyPattern]) -> list[str]:
    """The keys of the flat store at ``pointer`` in the starting state that follow none of its
    patterns: found once per world (a store has tens of thousands of keys)."""
    cache = overlay.base.derived.setdefault("odd keys", {})
    if pointer not in cache:
        store = resolve(overlay.base.state, pointer)
        cache[pointer] = unpatterned(store, patterns) if isinstance(store, dict) else []
    found: list[str] = cache[pointer]
    return found
