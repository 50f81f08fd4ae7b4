"""Flat key-value exports read as collections: ``station:OSL-07``, ``bike:B10442``, ``BOAT#X``.

A key-value store (Redis, DynamoDB single-table, an etcd dump) exported as JSON is one object
whose keys are composite strings: a type word, a separator (``:`` ``#`` ``/`` ``|`` ``.``), an
id, and an optional part (``rider:42:profile``, ``rider:42:rides``). No value of it is a
collection, yet each key *pattern* is one: :func:`key_patterns` recognises such an object and
gives its patterns (``station:*``, ``station:*:docked``, ``bike:*``), and a record of a
pattern is keyed by its id part, so a call naming ``bike_id: "B10442"`` or ``rider_id: 42``
finds ``bike:B10442`` or ``rider:42:profile``. The records stay where they are stored
(``/bike:B10442``): a pattern's collection is named by a pointer whose last part is the
pattern (``/bike:*``), which :func:`resolve_pattern` reads as the object of its records.

Plain objects keyed by id (``u1``, ``42``), by date (``2024-05-01``) or by file path
(``src/app.py``) are not read this way: ids must carry a digit, and a store has few types.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

SEPARATORS = ":#/|."
WILDCARD = "*"
_TYPE = re.compile(r"^[A-Za-z][A-Za-z_-]{0,39}$")
_MIN_KEYS = 4
_SAMPLE = 400
_MOST_TYPES = 16


@dataclass(frozen=True)
class KeyPattern:
    """Keys ``prefix + id + suffix`` (``prefix`` the type word and separator)."""

    prefix: str
    suffix: str = ""

    @property
    def glob(self) -> str:
        return f"{self.prefix}{WILDCARD}{self.suffix}"

    def id_of(self, key: str) -> str | None:
        """The id part of ``key``, when ``key`` follows this pattern."""
        if not key.startswith(self.prefix) or not key.endswith(self.suffix):
            return None
        found = key[len(self.prefix) : len(key) - len(self.suffix)]
        separator = self.prefix[-1]
        return found if found and separator not in found else None


def split_key(key: str, separator: str) -> KeyPattern | None:
    """The pattern ``key`` follows with ``separator``: type word, id, then any further parts
    (``rider:42:rides`` → ``rider:*:rides``)."""
    parts = key.split(separator)
    if len(parts) < 2 or not _TYPE.match(parts[0]) or not parts[1]:
        return None
    rest = separator.join(parts[2:])
    return KeyPattern(parts[0] + separator, separator + rest if len(parts) > 2 else "")


def part_name(key: str) -> str | None:
    """The part a composite key names after its type and id (``rider:42:rides`` → ``rides``):
    what the record holds of the id's whole, when the store spreads one over several keys."""
    for separator in SEPARATORS:
        parts = key.split(separator)
        if len(parts) >= 3 and split_key(key, separator) is not None and _TYPE.match(parts[-1]):
            return parts[-1]
    return None


def key_patterns(value: Any) -> list[KeyPattern] | None:
    """The key patterns of an object of composite keys, most keys first; ``None`` when
    ``value`` is not one (most keys must follow a few patterns of one separator, and most ids
    carry a digit)."""
    if not isinstance(value, dict) or len(value) < _MIN_KEYS:
        return None
    keys = [k for k in list(value)[:_SAMPLE] if isinstance(k, str)]
    for separator in SEPARATORS:
        found = _patterns_with(keys, separator)
        if found is not None:
            return _complete(value, found, separator)
    return None


def _patterns_with(keys: list[str], separator: str) -> list[KeyPattern] | None:
    patterns: Counter[KeyPattern] = Counter()
    with_digit = 0
    for key in keys:
        pattern = split_key(key, separator)
        if pattern is None:
            continue
        patterns[pattern] += 1
        with_digit += any(c.isdigit() for c in key.split(separator)[1])
    matched = sum(patterns.values())
    types = {p.prefix for p in patterns}
    if matched * 5 < len(keys) * 4 or with_digit * 5 < matched * 4:
        return None
    if len(types) > _MOST_TYPES or len(types) * 2 > matched:
        return None
    return [p for p, _ in patterns.most_common()]


def _complete(value: dict[str, Any], sampled: list[KeyPattern], separator: str) -> list[KeyPattern]:
    """Every pattern of the object's keys, not only of the sampled ones."""
    seen = set(sampled)
    found = list(sampled)
    for key in value:
        pattern = split_key(key, separator) if isinstance(key, str) else None
        if pattern is not None and pattern not in seen:
            seen.add(pattern)
            found.append(pattern)
    return found


def unpatterned(value: dict[str, Any], patterns: list[KeyPattern]) -> list[str]:
    """The keys of ``value`` that follow none of ``patterns`` (a store's odd keys)."""
    known = set(patterns)
    separators = {p.prefix[-1] for p in patterns}
    return [key for key in value if not any(split_key(key, s) in known for s in separators)]


def pattern_of(part: str) -> KeyPattern | None:
    """The pattern a collection pointer's last part (``station:*:docked``) names."""
    if part.count(WILDCARD) != 1:
        return None
    prefix, suffix = part.split(WILDCARD)
    if len(prefix) < 2 or prefix[-1] not in SEPARATORS or not _TYPE.match(prefix[:-1]):
        return None
    return KeyPattern(prefix, suffix)


def pattern_records(container: Any, pattern: KeyPattern) -> dict[str, Any]:
    """The records of ``container`` whose keys follow ``pattern``, by full key."""
    if not isinstance(container, dict):
        return {}
    prefix = pattern.prefix
    return {
        k: v for k, v in container.items() if k.startswith(prefix) and pattern.id_of(k) is not None
    }
