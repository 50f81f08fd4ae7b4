"""A record a flat key-value store splits over several keys, read whole.

A store keyed by composite keys (see :mod:`mcp_sim.runtime.state_keys`) keeps one record of
kind ``boat`` under several keys: its main hash ``boat:BT-7`` (an object, or a flat
``[field, value, ...]`` array as node-redis gives a hash), its parts ``boat:BT-7:specs``,
``boat:BT-7:crew`` (any value), and, where the store ranks records by a field, its score in
a sorted set of every record's id (``rank:boat:length_m`` = ``{"BT-7": 12.5, ...}`` or
``[member, score, ...]``; a leaderboard ``lb:season:12`` of player ids). The records of the
main key's pattern (``boat:*``) are read whole: the main hash's fields, each part under its
name, each score under its sorted set's name (the key's last part where it is a word, else
the key), so that searches, joins and summaries of the kind meet a constraint on any of them
(``length_m``, ``specs/power_kw``) in the record the answers describe. Each record stays
where it is stored (``/boat:BT-7``); the part patterns stay collections of their own, which a
call naming a part's key reads.

A read costs one pass over the store's keys; it is remembered for the object as it is (the
same object, as many keys; :class:`StoreReading`, which the views showing a record's other
keys read too), so that a store read per call is read once per change.
"""

from __future__ import annotations

import re
from typing import Any

from mcp_sim.runtime.state_keys import (
    SEPARATORS,
    KeyPattern,
    key_patterns,
    part_name,
    pattern_records,
    split_key,
)

_PART = re.compile(r"^[A-Za-z_][\w-]{0,63}$")
"""A part's name: a word (``specs``, ``line-items``), not an id."""
_NAME = re.compile(r"^[A-Za-z_][\w -]{0,63}$")
"""A flat hash's field name."""
_LEAST_MEMBERS = 4
_SAMPLE = 16
_KEPT = 8


class StoreReading:
    """What is read of one flat store object as it is (the same object, as many keys), once
    for every call that reads it: its key patterns, the keys below each prefix, each
    pattern's records read whole, and what views derive from them (``derived``)."""

    def __init__(self, container: dict[str, Any]) -> None:
        self.container, self.size = container, len(container)
        self._patterns: list[KeyPattern] | None = None
        self._below: dict[str, dict[str, list[str]]] = {}
        self.whole: dict[KeyPattern, dict[str, Any]] = {}
        self.derived: dict[str, Any] = {}

    @property
    def patterns(self) -> list[KeyPattern]:
        """The store's key patterns, most keys first (none: not a store of composite keys)."""
        if self._patterns is None:
            self._patterns = key_patterns(self.container) or []
        return self._patterns

    def below(self, prefix: str) -> list[str]:
        """The keys starting with ``prefix`` (ending in a separator), in the store's order:
        a look-up in an index of every key by each of its prefixes up to a separator."""
        separator = prefix[-1]
        index = self._below.get(separator)
        if index is None:
            index = self._below[separator] = {}
            for key in self.container:
                at = key.find(separator)
                while at >= 0:
                    index.setdefault(key[: at + 1], []).append(key)
                    at = key.find(separator, at + 1)
        return index.get(prefix, [])


_readings: dict[int, StoreReading] = {}


def store_reading(container: dict[str, Any]) -> StoreReading:
    """The :class:`StoreReading` of ``container`` as it is (a store changed by a patch is a
    new object: a patch copies the containers along its paths)."""
    found = _readings.get(id(container))
    if found is None or found.container is not container or found.size != len(container):
        if len(_readings) >= _KEPT:
            _readings.pop(next(iter(_readings)))
        found = _readings[id(container)] = StoreReading(container)
    return found


def whole_records(container: Any, pattern: KeyPattern) -> dict[str, Any]:
    """The records of ``container``'s keys following ``pattern``, by full key: those of a
    main key's pattern read whole (see the module), a part's as stored."""
    found = pattern_records(container, pattern)
    if pattern.suffix or not found or not isinstance(container, dict):
        return found
    reading = store_reading(container)
    whole = reading.whole.get(pattern)
    if whole is None:
        whole = reading.whole[pattern] = _whole(container, found, pattern)
    return whole


def _whole(container: dict[str, Any], found: dict[str, Any], pattern: KeyPattern) -> dict[str, Any]:
    separator, prefix = pattern.prefix[-1], pattern.prefix
    parts: dict[str, dict[str, Any]] = {}
    for key, value in container.items():
        if not key.startswith(prefix) or key in found:
            continue
        main, mark, part = key.rpartition(separator)
        if mark and main in found and _PART.match(part):
            parts.setdefault(main, {})[part] = value
    scores = _scores(container, found, pattern)
    whole: dict[str, Any] = {}
    for key, value in found.items():
        record = _hash(value)
        if not isinstance(record, dict):
            whole[key] = value
            continue
        record = dict(record)
        record.update(parts.get(key, {}))
        ident = pattern.id_of(key) or ""
        for name, held in scores:
            if ident in held:
                record.setdefault(name, held[ident])
        whole[key] = record
    return whole


def flat_hash(key: str, value: Any) -> dict[str, Any] | None:
    """``value`` read as an object when it is a flat ``[field, value, ...]`` hash kept under
    a record's main key (``boat:BT-7``, no part after the id), else ``None``."""
    if not isinstance(value, list) or not any(split_key(key, s) for s in SEPARATORS):
        return None
    if any((p := split_key(key, s)) is not None and p.suffix for s in SEPARATORS):
        return None
    found = _hash(value)
    return found if isinstance(found, dict) else None


def _hash(value: Any) -> Any:
    """A main key's hash as an object (a flat ``[field, value, ...]`` array read so)."""
    if not isinstance(value, list) or not value or len(value) % 2:
        return value
    names = value[::2]
    if all(isinstance(n, str) and _NAME.match(n) for n in names) and len(set(names)) == len(names):
        return dict(zip(names, value[1::2], strict=True))
    return value


def _scores(
    container: dict[str, Any], found: dict[str, Any], pattern: KeyPattern
) -> list[tuple[str, dict[str, Any]]]:
    """``(name, {id: score})`` of each sorted set whose members are mostly the pattern's ids."""
    ids = {pattern.id_of(key) for key in found}
    scored: list[tuple[str, dict[str, Any]]] = []
    for key, value in container.items():
        held = None if key in found else _sorted_set(value)
        if held is None:
            continue
        members = list(held)[:_SAMPLE]
        if sum(1 for m in members if m in ids) * 2 > len(members):
            scored.append((part_name(key) or key, held))
    return scored


def _sorted_set(value: Any) -> dict[str, Any] | None:
    if isinstance(value, dict):
        sample = list(value.values())[:_SAMPLE]
        return value if len(value) >= _LEAST_MEMBERS and all(map(_score, sample)) else None
    if isinstance(value, list) and len(value) >= 2 * _LEAST_MEMBERS and not len(value) % 2:
        members, scores = value[::2], value[1::2]
        if all(isinstance(m, str) for m in members[:_SAMPLE]) and all(
            map(_score, scores[:_SAMPLE])
        ):
            return dict(zip(members, scores, strict=True))
    return None


def _score(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)
