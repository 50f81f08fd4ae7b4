"""A join's answer that lists one field of the records reached, each value once: "the depots
of the locomotives a driver has turns with (each once, sorted)", ``{"emails": [...]}`` of the
parties a record's links refer to.

The rows of a join show as many links as fit; an answer made of a field's distinct values
needs that field of every record reached, and nothing else. When the tool's output schema
(or else its description) names in the plural a field of the target records (``Depots`` for
``HomeDepot``, ``emails`` for ``email``), the view writes those values, each once and sorted,
under the name the answer gives them, before the rows.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

from mcp_sim.prompting.field_names import singular, tokens
from mcp_sim.prompting.key_names import casing_of
from mcp_sim.prompting.link_join import LinkJoin
from mcp_sim.prompting.record_fields import FieldSchema, values_at
from mcp_sim.runtime.state_paths import resolve
from mcp_sim.spec.world import ToolSpec

MOST_VALUES = 200
"""Distinct values written at most (a longer list is left to the rows)."""
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")
_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
_SCALAR = frozenset({"string", "text", "number", "date"})


Lists = dict[str, tuple[str, bool]]
"""The singular of a listed name's last word → the name, and whether the output schema
writes it (else a description's word does)."""


def answer_lists(tool: ToolSpec | None) -> Lists:
    """The lists a tool's answer names in the plural (its output schema's property names
    first, then the words of its description)."""
    if tool is None:
        return {}
    schema = tool.output_schema or {}
    names = [*(schema.get("properties") or {}), *(schema.get("required") or [])]
    said = _WORD.findall(tool.description)
    found: Lists = {}
    for i, name in enumerate([*names, *said]):
        words = [w.lower() for w in _WORDS.findall(str(name))]
        if words and singular(words[-1]) != words[-1]:
            found.setdefault(singular(words[-1]), (str(name), i < len(names)))
    return found


def respelt_word(word: str, fields: list[str]) -> str:
    """A description's word as the answer writes a key: in the capitals the records' field
    names share (``depots`` → ``Depots`` beside ``HomeDepot``, ``DEPOTS`` beside
    ``HOME_DEPOT``), else as it is."""
    # One word in capitals (``NAME``) is upper case too, not Pascal case.
    found = ("upper" if f.isupper() else casing_of(f) for f in fields)
    casings = Counter(c for c in found if c is not None)
    if not casings:
        return word
    casing, count = casings.most_common(1)[0]
    if count * 5 < sum(casings.values()) * 4:
        return word
    return word.title() if casing == "pascal" else word.upper() if casing == "upper" else word


def _head(path: str) -> str:
    own = tokens(path.rsplit("/", 1)[-1])
    return own[-1] if own else ""


def listed_field(
    join: LinkJoin, schema: FieldSchema, lists: Lists, links: FieldSchema
) -> tuple[str, str]:
    """``(target field path, answer's name)`` of the target records' own scalar field (not
    one of their entries') whose name's last word the answer lists in the plural, or
    ``("", "")``; a word a field of the links ends in names theirs (the bookings' dates)."""
    theirs = {_head(p) for p in links.fields}
    for path, info in schema.fields.items():
        if path == join.target_key or "*" in path or info.kind not in _SCALAR:
            continue
        head = _head(path)
        if head in lists and head not in theirs:
            name, written = lists[head]
            fields = [p.rsplit("/", 1)[-1] for p in schema.fields]
            return path, name if written else respelt_word(name, fields)
    return "", ""


def values_line(
    state: Any, join: LinkJoin, schemas: tuple[FieldSchema, FieldSchema], lists: Lists
) -> str:
    """The line listing the named field's distinct values over every record the join
    reaches (``schemas``: the links' and the targets'; ``""`` when the answer lists no field
    of theirs, or too many values)."""
    path, name = listed_field(join, schemas[1], lists, schemas[0])
    if not path:
        return ""
    values: set[Any] = set()
    for target in join.target_pointers:
        values.update(v for _, v in values_at(resolve(state, target), path) if v is not None)
    if not values or len(values) > MOST_VALUES:
        return ""
    listed = json.dumps({name: sorted(values, key=str)}, ensure_ascii=False)
    total = len(join.target_pointers)
    return (
        f"- The {path} of the {total} {join.targets.pointer} record{'s' if total > 1 else ''} "
        f"reached, each value once, sorted: {listed}"
    )
