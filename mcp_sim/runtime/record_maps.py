"""Large maps of records keyed by id whose records differ in shape.

An object whose values are same-shaped objects is a collection keyed by id
(:func:`mcp_sim.runtime.state_shape.looks_keyed`). A content store keyed by hash (a git object
store: commits, trees and blobs under their SHA-1), a cache keyed by UUID, a map of entities
by id holding several kinds of entity: its values are records too, but of several shapes, so
the test of one shape fails, and the walk would step into each value and take each record's
nested lists (a tree's entries, a commit's parents) for hundreds of tiny collections, where a
lookup by the key finds none of them.

Such a map is found by structure, whatever its fields are called (:func:`record_map`):

- many keys, nearly all of one *style* (:func:`key_style`: the same run of hex digits, or the
  same pattern of digits, letters and punctuation) and carrying a digit, as ids, hashes and
  dates do, where the fields of a configuration or the names of a directory do not;
- values that are objects holding a core of scalar fields (at least a type field that tells the
  shapes apart): records, not folders of other collections;
- arrays inside the values small beside the map (a record's few line items), not the bulk of
  the data: an object of large partitions is a set of collections, not one.

Its records' nested lists stay fields of their records, searched as part of them.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

_MIN_KEYS = 24
"""Fewer keys of one style may be a handful of named things; a store of records has many."""
_SAMPLE = 200
_ONE_STYLE = 0.9
"""The share of keys that must share the commonest style (a stray key or two is allowed)."""
_CORE = 0.9
"""The share of values that must hold the map's commonest scalar field."""
_MOST_INNER = 0.25
"""The longest array inside a value may hold at most this share of the map's key count."""
_HEX = re.compile(r"^[0-9a-f]{8,}([-_][0-9a-f]+)*$")
_DIGITS = re.compile(r"\d+")
_LETTERS = re.compile(r"[^\W\d_]+")


def key_style(key: str) -> str:
    """What a key looks like, without what it says: a hex hash or UUID as its run of ``x``
    (its length kept: a SHA-1 is 40 of them), any other key with each run of digits as ``9``
    and each run of letters as ``a`` (``u_1042`` and ``u_7`` are ``a_9``; ``2025-03-01`` is
    ``9-9-9``)."""
    folded = key.casefold()
    if _HEX.match(folded) and any(c.isdigit() for c in folded):
        return re.sub(r"[0-9a-f]", "x", folded)
    return _LETTERS.sub("a", _DIGITS.sub("9", folded))


def record_map(value: Any) -> bool:
    """Whether ``value`` is a large map of records keyed by id, whatever their shapes."""
    if not isinstance(value, dict) or len(value) < _MIN_KEYS:
        return False
    sample = list(value.items())[:_SAMPLE]
    if not of_one_style([key for key, _ in sample]):
        return False
    records = [item for _, item in sample]
    if not all(isinstance(item, dict) and item for item in records):
        return False
    most_inner = len(value) * _MOST_INNER
    return _core_field(records) and all(_longest_array(r) <= most_inner for r in records)


def of_one_style(keys: list[str]) -> bool:
    """Whether nearly all ``keys`` share one style, and it carries a digit (ids, hashes,
    dates, shards), as the fields of a configuration or the names of a folder do not."""
    styles = Counter(key_style(key) for key in keys)
    style, count = styles.most_common(1)[0]
    return count >= len(keys) * _ONE_STYLE and ("9" in style or "x" in style)


def _core_field(records: list[dict[str, Any]]) -> bool:
    """Whether most records hold one scalar field (their shared core, or their type)."""
    fields = Counter(
        name
        for record in records
        for name, item in record.items()
        if isinstance(item, str | int | float | bool)
    )
    return bool(fields) and fields.most_common(1)[0][1] >= len(records) * _CORE


def _longest_array(record: dict[str, Any], depth: int = 2) -> int:
    """The most items an array holds in ``record``, ``depth`` levels of objects down."""
    longest = 0
    for item in record.values():
        if isinstance(item, list):
            longest = max(longest, len(item))
        elif isinstance(item, dict) and depth > 1:
            longest = max(longest, _longest_array(item, depth - 1))
    return longest
