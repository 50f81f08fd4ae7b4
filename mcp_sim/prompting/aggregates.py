"""Summaries of a collection computed from the state, for calls whose answer is one.

A call such as ``list_all_product_types``, ``count_orders(status=...)``, ``genre_stats`` or
``total_spent(user)`` answers with something no single record holds: the distinct values of a
field, a count, a sum, a range. No view of records lets a model count a thousand of them, so
such a call's view gets the summary itself: over the records its arguments select (or the
whole collection its name names), the count, and for the fields its name, description and
arguments point at (else the collection's numbers and enumerations) the sums, minima and
maxima of numbers, the ranges of dates, and the distinct values of strings with their counts
(or, where each value is one record's, the record's key).
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from typing import Any

from mcp_sim.prompting.constraints import tool_words
from mcp_sim.prompting.field_names import singular, tokens
from mcp_sim.prompting.field_search import FieldSearch, SearchResult
from mcp_sim.prompting.field_tables import FieldTables
from mcp_sim.prompting.record_fields import SELF, FieldInfo, FieldSchema
from mcp_sim.runtime.state_index import StateOverlay
from mcp_sim.runtime.state_shape import Collection
from mcp_sim.spec.world import ToolSpec

SUMMARY_HEADING = "**Summary computed from the state**"
_AGGREGATE_WORDS = frozenset(
    [
        "count",
        "total",
        "sum",
        "stat",
        "statistic",
        "summary",
        "summarize",
        "average",
        "avg",
        "mean",
        "distinct",
        "unique",
        "all",
        "type",
        "category",
        "kind",
        "number",
        "min",
        "max",
        "minimum",
        "maximum",
        "range",
        "breakdown",
        "spent",
        "spend",
        "many",
        "histogram",
        "tally",
        "group",
        "overview",
    ]
)
_COMPOUND_PARTS = ("count", "total", "stats", "summary")
_MOST_FIELDS = 4
_MOST_VALUES = 60


_AGGREGATE_PHRASES = (
    "how many",
    "number of",
    "total",
    "sum of",
    "average",
    "distinct",
    "statistic",
    "list of all",
)


def is_aggregate(tool: ToolSpec | None) -> bool:
    """Whether the tool asks for a summary of a collection rather than records: its name
    says so (``count_orders``, ``genre_stats``, ``list_all_types``), or the first sentence of
    its description does (``how many``, ``the total``)."""
    if tool is None or tool.effect == "write":
        return False
    words = tokens(tool.name)
    if set(words) & _AGGREGATE_WORDS:
        return True
    if any(part in word for word in words for part in _COMPOUND_PARTS):
        return True  # headcount, subtotal
    first = tool.description.split(". ")[0].lower()
    return any(phrase in first for phrase in _AGGREGATE_PHRASES)


@dataclass
class Summary:
    collection: Collection
    where: str
    """What selected the records (``""``: the whole collection)."""
    values: dict[str, Any]

    def render(self, room: int) -> str:
        """The summary in at most ``room`` characters: long lists of values are cut (and
        say so) until it fits; ``""`` if not even that does."""
        scope = f" where {self.where}" if self.where else ""
        head = f"{SUMMARY_HEADING} (records of {self.collection.pointer}{scope}):"
        most = _MOST_VALUES
        while True:
            values = {k: _cut(v, most) for k, v in self.values.items()}
            text = f"{head}\n{json.dumps(values, ensure_ascii=False)}"
            if len(text) <= room:
                return text
            if most == 0:
                return ""
            most //= 2


def _cut(value: Any, most: int) -> Any:
    if isinstance(value, list) and len(value) > most:
        return [*value[:most], f"… {len(value) - most} more"]
    if not isinstance(value, dict) or len(value) <= most:
        return value
    kept = dict(list(value.items())[:most])
    kept["…"] = f"{len(value) - most} more"
    return kept


def _named_collection(tool: ToolSpec, collections: list[Collection]) -> Collection | None:
    words = tool_words(tool.name, tool.description)
    for collection in collections:
        last = tokens(collection.pointer.rsplit("/", 1)[-1])
        if last and set(last) <= words:
            return collection
    return None


def _targets(schema: FieldSchema, words: set[str]) -> list[FieldInfo]:
    """The fields the tool's words name, else the collection's numbers and enumerations."""
    fields = [i for p, i in schema.fields.items() if p != SELF and i.records * 2 >= schema.sampled]
    named = [i for i in fields if i.words and set(i.words[-1]) & words]
    if named:
        return named[:_MOST_FIELDS]
    numbers = [i for i in fields if i.kind == "number" and "id" not in i.words[-1]]
    enums = [i for i in fields if i.kind == "string" and 2 <= len(i.distinct) <= 30]
    return [*numbers[:_MOST_FIELDS], *enums[:2]]


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _tidy(value: float) -> float | int:
    return int(value) if float(value).is_integer() else round(value, 2)


def _plural(name: str) -> str:
    if name.endswith("y") and len(name) > 2 and name[-2] not in "aeiou":
        return name[:-1] + "ies"
    return name if name.endswith("s") else name + "s"


def _add_field(
    values: dict[str, Any], name: str, info: FieldInfo, held: list[tuple[str, list[Any]]]
) -> None:
    """Adds what ``held`` (each record's key and values of the field) sums up to: totals,
    minima, maxima and means of numbers (grouped by operation, under the field's name),
    ranges of dates, and the distinct values of strings with their counts."""
    found = [v for _, vs in held for v in vs]
    numbers = [n for n in map(_number, found) if n is not None]
    if info.kind == "number" and numbers:
        values.setdefault("total", {})[name] = _tidy(sum(numbers))
        values.setdefault("min", {})[name] = _tidy(min(numbers))
        values.setdefault("max", {})[name] = _tidy(max(numbers))
        values.setdefault("mean", {})[name] = round(sum(numbers) / len(numbers), 2)
        return
    texts = sorted({v for v in found if isinstance(v, str)})
    if not texts:
        return
    if info.kind == "date":
        values.setdefault("min", {})[name] = texts[0]
        values.setdefault("max", {})[name] = texts[-1]
        return
    if len(texts) == len(held) and all(len(vs) == 1 for _, vs in held):
        if any(vs[0] != key for key, vs in held):
            # Each value is one record's (a name): the record's key says which.
            values[name] = {vs[0]: key for key, vs in held}
        return
    values[_plural(name)] = texts
    values[f"{name} counts"] = dict(sorted(Counter(v for v in found if isinstance(v, str)).items()))


def summarize(
    overlay: StateOverlay, state: Any, tool: ToolSpec, search: SearchResult | None
) -> Summary | None:
    """The summary a call of ``tool`` answers with, over the records ``search`` selected
    (or the collection the tool names), or ``None`` when it names no collection."""
    constrained: set[str] = set()
    if search is not None:
        collection, pointers = search.collection, search.full
        where = "; ".join(c.describe() for c in search.constraints)
        constrained = {f for c in search.constraints if c.op == "eq" for f in c.fields}
    else:
        found = _named_collection(tool, overlay.base.collections)
        if found is None:
            return None
        collection, pointers, where = found, overlay.pointers(found.pointer), ""
    schema = FieldTables.of(overlay.base).schema(collection)
    search_of = FieldSearch(overlay, state)
    keys = search_of.keys(collection, pointers)
    words = {singular(w) for w in tool_words(tool.name, tool.description)}
    values: dict[str, Any] = {collection.pointer.rsplit("/", 1)[-1] or "records": len(pointers)}
    targets = [i for i in _targets(schema, words) if i.path not in constrained]
    names = [
        p.rsplit("/", 1)[-1] for p in (i.path.replace("/*", "").replace("/#", "") for i in targets)
    ]
    for info, name in zip(targets, names, strict=True):
        shown = name if names.count(name) == 1 else info.path.replace("/*", "").replace("/#", "")
        held = [(keys[p], v) for p, v in search_of.current(collection, info.path, pointers)]
        _add_field(values, shown, info, held)
    return Summary(collection, where, values)
