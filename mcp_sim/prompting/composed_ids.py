"""Records named by an identifier composed of several of their fields' values.

Many services name a record by joining values that the state keeps in separate fields: a
Terraform resource address ``module.app.aws_instance.web[2]`` is the resource's ``module``,
``type`` and ``name`` and its instance's ``index_key``; a Kafka partition ``orders:3`` is a
topic and a partition number; a catalogue's ``shelf/row`` a pair of fields. No field holds the
whole value, so neither the key index nor the value index finds it.

An argument value that nothing holds whole and that separators (``.`` ``:`` ``/`` ``#`` ``|``
``@`` ``[`` ``]``) cut into parts names the records whose values cover the parts, each value a
run of whole consecutive parts (``module.app`` is one field's value, dot and all), at least two
values in all. A value inside a list names the list's item it sits in (an instance of a
resource) only where it tells the items apart (every ``index_key`` differs; a
``schema_version`` of 1 in every instance names none of them), and the record is then focused
on that item; an index that no item's field holds (``app[2]`` of a resource whose instances
carry no ``index_key``) is left out, and the record named whole. A record holding the whole
value as one value refers to the one it names (a dependency), and a value of numbers alone
(a version, ``1.2.3``) composes nothing. A value that names more than :data:`MOST_NAMED`
records names none.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from jsonpointer import escape

from mcp_sim.runtime.state_index import StateOverlay
from mcp_sim.runtime.state_paths import resolve
from mcp_sim.runtime.state_shape import normalize

_PART = re.compile(r"[^.:/#|@\[\]]+")
"""A part of a composed identifier: what its separators join (not ``-`` or ``_``, which join the
words of one value: ``pine-ximena``)."""
MOST_PARTS = 12
"""Longer values are texts or paths, not identifiers composed of fields."""
MOST_NAMED = 3
"""An identifier that more records' values cover names none of them (it is too loose)."""
_MOST_CANDIDATES = 200
_INDEX = re.compile(r"\[[^\]]+\]$")
"""A trailing bracketed index (an instance's: ``app[2]``, ``web["a"]``)."""
_MAX_DEPTH = 6


def composed_records(
    overlay: StateOverlay, state: Any, arguments: dict[str, Any]
) -> dict[str, dict[str, str]]:
    """Argument name → the records its composed value names (pointer → the item focused,
    a relative pointer, ``""`` for the whole record); only the arguments that name some."""
    found: dict[str, dict[str, str]] = {}
    for name, value in arguments.items():
        if isinstance(value, str):
            named = _named_by(overlay, state, value.strip())
            if named:
                found[name] = named
    return found


def _named_by(overlay: StateOverlay, state: Any, value: str) -> dict[str, str]:
    named = _covered(overlay, state, value)
    index = _INDEX.search(value)
    if not named and index is not None:
        # No item's field holds the index: the record it is an instance of, whole.
        named = {pointer: "" for pointer in _covered(overlay, state, value[: index.start()])}
    return named


def _covered(overlay: StateOverlay, state: Any, value: str) -> dict[str, str]:
    parts = [(m.start(), m.end()) for m in _PART.finditer(value)]
    whole = normalize(value)
    if not 2 <= len(parts) <= MOST_PARTS or whole is None or overlay.key_hits(whole):
        return {}  # a key: the ordinary lookups find it
    if not any(c.isalpha() for c in value):
        return {}  # a version or a number (``1.2.3``, ``3.14``)
    # A record holding the whole value only refers to the one it names (a dependency):
    # the runs of parts are the named record's own values.
    spans = {
        (i, j): label
        for i in range(len(parts))
        for j in range(i, len(parts))
        if (i, j) != (0, len(parts) - 1)
        and (label := normalize(value[parts[i][0] : parts[j][1]])) is not None
        and overlay.holders(label)
    }
    if not spans:
        return {}
    rarest = min(spans.values(), key=overlay.holders)
    if overlay.holders(rarest) > _MOST_CANDIDATES:
        return {}
    named: dict[str, str] = {}
    for pointer in overlay.value_hits(rarest):
        record = resolve(state, pointer)
        for cover in _covers(len(parts), spans):
            focus = _focus(record, [spans[s] for s in cover])
            if focus is not None:
                named[pointer] = focus
                break
        if len(named) > MOST_NAMED:
            return {}
    # A record holding the whole value as well is found by it (a user's ``first.last``
    # name), and searched by it: it is no address of parts.
    holding = overlay.value_hits(whole) if overlay.holders(whole) else {}
    return {} if any(p in holding for p in named) else named


def _covers(count: int, spans: dict[tuple[int, int], str]) -> Iterator[list[tuple[int, int]]]:
    """The ways of cutting parts ``0..count-1`` into runs that are each some record's value,
    at least two runs, fewest runs first (longer values say more)."""

    def cut(start: int) -> Iterator[list[tuple[int, int]]]:
        if start == count:
            yield []
            return
        for end in range(count - 1, start - 1, -1):
            if (start, end) in spans:
                for rest in cut(end + 1):
                    yield [(start, end), *rest]

    yield from sorted((c for c in cut(0) if len(c) > 1), key=len)


def _focus(record: Any, labels: list[str]) -> str | None:
    """The item of ``record`` that holds every label (each at the record's own level or in an
    item it tells apart from its siblings), ``""`` for the record itself; ``None`` when some
    label has no such place or the items are not one inside another."""
    places = [list(_places(record, label, "", "", 0)) for label in labels]
    if not all(places):
        return None
    # A label held at the record's own level needs no item; otherwise the item it names.
    items = [min(p, key=len) for p in places]
    deepest = max(items, key=len)
    if any(not deepest.startswith(item) for item in items):
        return None
    return deepest


def _places(value: Any, label: str, item: str, where: str, depth: int) -> Iterator[str]:
    """The items (relative pointers, ``""`` for the record) one of whose fields, at any
    depth of plain objects, holds ``label`` and tells the item apart from its siblings."""
    if depth > _MAX_DEPTH:
        return
    if isinstance(value, dict):
        for key, inner in value.items():
            if isinstance(inner, dict | list):
                yield from _places(inner, label, item, f"{where}/{escape(key)}", depth + 1)
            elif normalize(inner) == label:
                yield item
    elif isinstance(value, list):
        for n, member in enumerate(value):
            if not isinstance(member, dict):
                continue
            here = f"{where}/{n}"
            for found in _places(member, label, here, here, depth + 1):
                if found != here or _tells_apart(value, n, label):
                    yield found


def _tells_apart(items: list[Any], n: int, label: str) -> bool:
    """Whether a field of item ``n`` (at any depth of plain objects) holding ``label`` holds
    it in no other item of ``items``."""
    return any(
        sum(_at(other, path) == label for other in items) == 1
        for path in _paths(items[n], label, ())
    )


def _paths(value: Any, label: str, path: tuple[str, ...]) -> Iterator[tuple[str, ...]]:
    if isinstance(value, dict) and len(path) <= _MAX_DEPTH:
        for key, inner in value.items():
            if isinstance(inner, dict):
                yield from _paths(inner, label, (*path, key))
            elif not isinstance(inner, list) and normalize(inner) == label:
                yield (*path, key)


def _at(value: Any, path: tuple[str, ...]) -> str | None:
    for key in path:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return None if isinstance(value, dict | list) else normalize(value)
