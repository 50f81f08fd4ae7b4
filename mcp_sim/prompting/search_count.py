"""What a search tool calls the number of records that meet its arguments, and the list
holding them.

A search may answer with its records wrapped beside their count (``{"matches": [...],
"total": 40}``, ``{"data": [...], "meta": {"total": 40}}``), the count being of every record
that meets the arguments, not of those one page shows. Where that wrapper is told, in this
order:

1. the tool's output schema names the count among its properties or the fields it requires:
   a name of the words ``total`` or ``count`` (``total``, ``totalCount``, ``result_count``)
   that is no list nor text;
2. an earlier answer of the same tool holds it: a whole number, so named, in an object that
   also holds a list (at its top or one level down);
3. the tool's description writes it as code (``returns {"results": [...], "count": n}``,
   `` `total` ``).

The view then writes the count of the records it found under that name, so the model answers
with it, also when no record meets the arguments (the count is then 0, which no record
holds); an earlier answer also tells the list's name, so an empty answer keeps its wrapper.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from mcp_sim.prompting.field_names import tokens
from mcp_sim.spec.world import ToolSpec

_COUNT_WORDS = frozenset({"total", "count"})
_NOT_A_COUNT = frozenset({"array", "object", "string", "boolean"})
EARLIER_ANSWERS = 5
"""The latest answers of the same tool read for its wrapper."""
_CODE = re.compile(r"[`'\"{]\s*([A-Za-z_][\w-]*)")
"""A name written as code in a description: quoted, backticked or opening an object."""


@dataclass(frozen=True)
class CountField:
    """The answer's count field and, when an earlier answer showed it, its list's name."""

    name: str
    listed: str | None = None
    inner: str | None = None
    """The key of the number when the count is an object holding it (Elasticsearch's
    ``"total": {"value": 40, "relation": "eq"}``)."""

    def entry(self, total: int) -> str:
        """The count as the answer writes it: ``"total": 40``, ``"total": {"value": 40}``."""
        number = f'{{"{self.inner}": {total}}}' if self.inner is not None else str(total)
        return f'"{self.name}": {number}'


def count_field(tool: ToolSpec | None, answers: Sequence[str] = ()) -> CountField | None:
    """The output field of ``tool`` that holds how many records meet a search, if it has
    one beside a list of them (``answers``: earlier answers of the tool, oldest first)."""
    listed = next((f for a in reversed(answers) if (f := _wrapper(a)) is not None), None)
    declared = _declared(tool)
    if declared is not None:
        return CountField(declared, listed.listed if listed is not None else None)
    if listed is not None:
        return listed
    described = _described(tool)
    return CountField(described) if described is not None else None


def _declared(tool: ToolSpec | None) -> str | None:
    schema: Any = tool.output_schema if tool is not None else None
    if not isinstance(schema, dict) or schema.get("type") not in (None, "object"):
        return None
    properties = schema.get("properties")
    properties = properties if isinstance(properties, dict) else {}
    required = schema.get("required")
    names: list[str] = [*properties, *(n for n in required or () if isinstance(n, str))]
    for name in dict.fromkeys(names):
        declared = properties.get(name)
        kind = declared.get("type") if isinstance(declared, dict) else None
        if _counts(name) and kind not in _NOT_A_COUNT:
            return name
    return None


def _counts(name: str) -> bool:
    return bool(set(tokens(name)) & _COUNT_WORDS)


def _wrapper(answer: str) -> CountField | None:
    """The count and list names of an answer ``{list: [...], count: n}``: the count also one
    level down (``{"data": [...], "meta": {"total": n}}``) or an object holding the number
    (``"total": {"value": n}``), and the pair also inside an envelope one level down
    (Elasticsearch's ``{"took": 3, "hits": {"total": {"value": n}, "hits": [...]}}``)."""
    try:
        parsed = json.loads(answer)
    except (json.JSONDecodeError, TypeError):
        return None
    if not isinstance(parsed, dict):
        return None
    holders = [parsed, *(v for v in parsed.values() if isinstance(v, dict))]
    for holder in holders:
        lists = [k for k, v in holder.items() if isinstance(v, list)]
        if not lists:
            continue
        inner = (v.items() for v in holder.values() if isinstance(v, dict))
        for name, value in [*holder.items(), *(item for items in inner for item in items)]:
            if not _counts(name):
                continue
            if _whole(value):
                return CountField(name, lists[0])
            held = [k for k, v in value.items() if _whole(v)] if isinstance(value, dict) else []
            if len(held) == 1:
                return CountField(name, lists[0], held[0])
    return None


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _described(tool: ToolSpec | None) -> str | None:
    """A count name the description writes as code."""
    if tool is None:
        return None
    return next(iter(_code_names(tool.description)), None)


def _code_names(text: str) -> Iterable[str]:
    return (m.group(1) for m in _CODE.finditer(text) if _counts(m.group(1)))
