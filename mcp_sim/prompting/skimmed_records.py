"""A large record skimmed: everything an answer would quote kept at every depth, bulk dropped.

A record larger than its share of a view (a knowledge-base entity of a dozen statements, each
with qualifiers and references) was outlined: its large parts replaced by a note of their
keys, so the statement ids, hashes, times and qualifier values deep inside, which an answer
quotes, were not in the prompt. Most of such a record's size is not those values but bulk: long
text, parts that repeat another part of the record word for word (the same reference under
every statement), and the same ``"key": value`` pairs in every item (``"snaktype": "value"``,
``"rank": "normal"``). :func:`skimmed` drops that bulk first and keeps every other scalar where
it stands; the parts the call is about (its focus) are kept whole. Only what still does not fit
is outlined (see :mod:`mcp_sim.prompting.record_render`).
"""

from __future__ import annotations

import json
from typing import Any

from jsonpointer import escape

LONG_TEXT = 160
"""Characters of a string kept whole; a longer one is cut to :data:`TEXT_KEPT`."""
TEXT_KEPT = 100
REPEATED_PART = 80
"""A part of this many characters or more that repeats an earlier one is named, not shown."""
SKIMMED_LABEL = " (long text cut, repeated parts named)"
PAIRS_LABEL = " (long text cut, repeated parts and values left out)"
"""The labels of a skimmed record's line: it is not the record whole."""


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def skimmed(record: Any, focus: set[str], pairs: bool = False) -> Any:
    """``record`` with long strings cut, each part that repeats an earlier one (in the order
    the record is written) replaced by a note naming where that one is, and, with ``pairs``,
    each ``"key": value`` pair shown earlier in the record left out; the parts at or inside a
    ``focus`` pointer are kept whole."""
    return _Skim(focus, pairs).part(record, "")


class _Skim:
    def __init__(self, focus: set[str], pairs: bool) -> None:
        self.focus, self.pairs = focus, pairs
        self.parts: dict[str, str] = {}
        """Each part shown so far (its JSON) → its pointer in the record."""
        self.seen: set[tuple[str, str]] = set()

    def focused(self, pointer: str) -> bool:
        return any(pointer == f or pointer.startswith(f + "/") for f in self.focus if f)

    def walk(self, value: Any, pointer: str) -> Any:
        if isinstance(value, dict):
            kept: dict[str, Any] = {}
            for key in sorted(value):
                inner = f"{pointer}/{escape(key)}"
                item = value[key]
                if isinstance(item, dict | list) or self.focused(inner):
                    kept[key] = self.part(item, inner)
                elif not self.repeated(key, item):
                    kept[key] = self.scalar(item)
            return kept
        return [self.part(item, f"{pointer}/{i}") for i, item in enumerate(value)]

    def part(self, value: Any, pointer: str) -> Any:
        if self.focused(pointer):
            return value
        if not isinstance(value, dict | list):
            return self.scalar(value)
        text = _dumps(value)
        if len(text) >= REPEATED_PART:
            first = self.parts.setdefault(text, pointer)
            if first != pointer:
                return f"<same as {first}>"
        return self.walk(value, pointer)

    def repeated(self, key: str, value: Any) -> bool:
        """Whether the pair ``key: value`` was shown earlier (and is left out)."""
        if not self.pairs:
            return False
        pair = (key, _dumps(value))
        if pair in self.seen:
            return True
        self.seen.add(pair)
        return False

    @staticmethod
    def scalar(value: Any) -> Any:
        if isinstance(value, str) and len(value) > LONG_TEXT:
            return f"{value[:TEXT_KEPT]}…<{len(value)} characters>"
        return value
