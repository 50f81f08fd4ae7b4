"""Labels of record fields that the state keeps in a side map, beside the records.

Some exports keep a field's name apart from the records that use it: a Jira search answered
with ``expand=names`` stores an issue's company fields under opaque keys (``customfield_10016``)
and, once at the top, a ``names`` map saying ``"customfield_10016": "Story point estimate"``;
other services ship a field dictionary or a header of labels the same way. The real answers
and the tools' arguments use the labels (``min_points``, a sprint report's points), the
records only the keys.

A **side map** is found by its structure, whatever it is called: an object outside every
collection (at most :data:`_MAX_DEPTH` levels down) of at least :data:`LEAST_LABELS` entries
whose values are all short text, most of whose keys (:data:`MOST_OF_KEYS`) are field keys of
one collection's records (at the record's level or in its plain objects, ``fields/…``), and
that names its fields: at least a third of the labels of those keys are the key written in
words (``issuetype`` → ``Issue Type``, ``created`` → ``Created``), which a record's defaults
or a settings object (``{"status": "active", …}``) are not. Its **opaque** keys, generated
ones (with a digit: ``customfield_10016``, a MARC tag ``245``) whose label shares no word with
the key, take their label's words when an argument's name is matched
to a field (``min_points`` fits ``customfield_10016``, "Story point estimate"), and the view
labels them once, beside the records that use them (see :func:`labels_line`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from jsonpointer import escape

from mcp_sim.prompting.field_names import stem, tokens
from mcp_sim.runtime.state_index import StateIndex
from mcp_sim.runtime.state_paths import resolve
from mcp_sim.runtime.state_shape import Collection, record_items, within

LEAST_LABELS = 3
MOST_OF_KEYS = 0.6
"""Share of a side map's keys that must be field keys of the collection it labels."""
LONGEST_LABEL = 60
_SAMPLE = 50
_MAX_DEPTH = 3
_RECORD_DEPTH = 3


@dataclass(frozen=True)
class SideMap:
    """A side map labelling one collection's fields: where it is and its opaque keys' labels."""

    pointer: str
    labels: dict[str, str]
    """Opaque key → its label (keys whose label says them are left out: nothing to add)."""


def side_maps(state: Any, collections: list[Collection]) -> dict[str, SideMap]:
    """The collection's pointer → the side map labelling its records' opaque fields."""
    candidates = list(_candidates(state, "", 0, collections))
    if not candidates:
        return {}
    found: dict[str, SideMap] = {}
    for collection in collections:
        keys = _field_keys(collection, state)
        best: tuple[int, SideMap] | None = None
        for pointer, entries in candidates:
            shared = [k for k in entries if k in keys]
            if len(shared) < LEAST_LABELS or len(shared) < MOST_OF_KEYS * len(entries):
                continue
            said = [k for k in shared if _says(k, entries[k])]
            opaque = {k: entries[k] for k in shared if _opaque(k, entries[k])}
            if len(said) * 3 < len(shared) or not opaque:
                continue
            if best is None or len(shared) > best[0]:
                best = (len(shared), SideMap(pointer, opaque))
        if best is not None:
            found[collection.pointer] = best[1]
    return found


def side_map(index: StateIndex, collection: Collection) -> SideMap | None:
    """The side map labelling the collection's opaque field keys, if the state has one (found
    once per world and kept on its index)."""
    found = index.derived.get("side_maps")
    if not isinstance(found, dict):
        found = index.derived["side_maps"] = side_maps(index.state, index.collections)
    side: SideMap | None = found.get(collection.pointer)
    return side


def sides_of(index: StateIndex, pointers: Iterable[str]) -> list[SideMap]:
    """The side maps labelling the collections of the records at ``pointers``, each once."""
    found: dict[str, SideMap] = {}
    for pointer in pointers:
        collection = index.collection_of(pointer)
        side = side_map(index, collection) if collection is not None else None
        if side is not None:
            found.setdefault(side.pointer, side)
    return list(found.values())


def labels_line(side: SideMap, shown: str, room: int) -> str:
    """The line labelling the opaque keys that ``shown`` (the records' text) uses, each once,
    in at most ``room`` characters."""
    line = f"- Field labels (from {side.pointer}):"
    for key, label in side.labels.items():
        if f"{json.dumps(key)}:" not in shown:
            continue
        said = f" {key} = {json.dumps(label, ensure_ascii=False)};"
        if len(line) + len(said) > room:
            break
        line += said
    return line.removesuffix(";") if line.endswith(";") else ""


def _candidates(
    value: Any, where: str, depth: int, collections: list[Collection]
) -> Iterator[tuple[str, dict[str, str]]]:
    if not isinstance(value, dict) or depth > _MAX_DEPTH:
        return
    if any(c.pointer == where or within(c.pointer, where) for c in collections if where):
        return
    if len(value) >= LEAST_LABELS and all(
        isinstance(v, str) and 0 < len(v) <= LONGEST_LABEL for v in value.values()
    ):
        yield where, value
        return
    for key, inner in value.items():
        yield from _candidates(inner, f"{where}/{escape(key)}", depth + 1, collections)


def _field_keys(collection: Collection, state: Any) -> set[str]:
    value = resolve(state, collection.pointer)
    keys: set[str] = set()
    for n, (_, _, record) in enumerate(record_items(collection, value)):
        if n >= _SAMPLE:
            break
        _keys_of(record, keys, 0)
    return keys


def _keys_of(value: Any, keys: set[str], depth: int) -> None:
    if isinstance(value, dict) and depth < _RECORD_DEPTH:
        for key, inner in value.items():
            keys.add(key)
            _keys_of(inner, keys, depth + 1)


def _words(text: str) -> set[str]:
    return {stem(w) for w in tokens(text)}


def _says(key: str, label: str) -> bool:
    """Whether ``label`` is ``key`` written in words (``Issue Type`` for ``issuetype``)."""
    return "".join(tokens(key)) == "".join(tokens(label)) or bool(_words(key) & _words(label))


def _opaque(key: str, label: str) -> bool:
    return not _says(key, label) and bool(re.search(r"\d", key))
