"""The maps a record's facts enter, so a value or a key finds the records holding it: a
record's key (and a series' time, a flat store's whole stored key) → the record; a nested
map's key → the record and where inside it; each value → the records holding it and where.
:mod:`mcp_sim.runtime.state_index` keeps them for the world and for each session's changes."""

from __future__ import annotations

from dataclasses import dataclass

from jsonpointer import unescape

from mcp_sim.runtime.state_keys import WILDCARD
from mcp_sim.runtime.state_series import key_values
from mcp_sim.runtime.state_shape import RecordFacts, normalize


@dataclass(frozen=True)
class Hit:
    """A record that holds a value: the record's pointer and where inside it (relative)."""

    pointer: str
    inner: str


def add_facts(
    keys: dict[str, list[Hit]],
    inner_keys: dict[str, list[Hit]],
    values: dict[str, dict[str, str]],
    pointer: str,
    facts: RecordFacts,
) -> None:
    for label in key_labels(pointer, facts):
        keys.setdefault(label, []).append(Hit(pointer, ""))
    for label, inner in facts.inner_keys.items():
        inner_keys.setdefault(label, []).append(Hit(pointer, inner))
    for label, inner in facts.values.items():
        values.setdefault(label, {})[pointer] = inner


def key_labels(pointer: str, facts: RecordFacts) -> list[str]:
    """The labels the record at ``pointer`` answers to as a key (normalized), in order."""
    labels = [normalize(facts.key) or facts.key.casefold()]
    said = key_values(facts.key)
    if len(said) > 1:
        # A series' reading answers to its time, the key of the series (its source is the
        # key of a time's map, which every time has: a value to match, not a name).
        labels.append(normalize(said[0]) or said[0])
    if WILDCARD in facts.collection.rpartition("/")[2]:
        # A flat store's record answers to its whole stored key too (``bike:B10442``).
        stored = unescape(pointer.rpartition("/")[2])
        labels.append(normalize(stored) or stored.casefold())
    return labels
