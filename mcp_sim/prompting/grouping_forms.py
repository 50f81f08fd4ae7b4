"""Groupings written in the forms of query languages other than SQL's ``GROUP BY``, read as
the same :class:`~mcp_sim.prompting.grouped_rows.Grouping`:

- a URL query's ``select`` that lists aggregate functions beside plain columns, as PostgREST
  writes it (``/bookings?select=status,count(),total:paid_cents.sum()&class_id=eq.7``): the
  plain columns are the grouped fields, each function an item named by its alias, else by
  the function (``count``, ``sum``, ``avg``), as PostgREST's rows name them;
- a pipeline of ``GROUPBY`` and ``REDUCE`` steps, as RediSearch's ``FT.AGGREGATE`` writes it
  (``GROUPBY 1 @country REDUCE COUNT 0 AS players REDUCE AVG 1 @level AS avg_level``): each
  ``@field`` grouped, each reducer an item under its ``AS`` name. That language answers
  every value as text (``"players": "231"``), its numbers with 12 significant digits at
  most: the rows say so.

Each reads the request's own grammar, not any store's fields: the rows are computed by
:func:`~mcp_sim.prompting.grouped_rows.grouped_rows` like every other grouping.
"""

from __future__ import annotations

import re
from typing import Any

from mcp_sim.prompting.url_queries import split_top, url_query

_FUNCTION = re.compile(
    r"^\s*(?:(?P<alias>[\w-]+)\s*:\s*)?(?:(?P<field>[\w.>-]+?)\s*\.\s*)?"
    r"(?P<op>count|sum|avg|min|max)\(\s*\)(?:::\w+)?\s*$",
    re.IGNORECASE,
)
"""An aggregate item of PostgREST's ``select``: ``count()``, ``paid_cents.sum()``,
``total:paid_cents.sum()``, maybe cast (``::int``)."""
_COLUMN = re.compile(r"^\s*(?:[\w-]+\s*:\s*)?(?P<field>[\w.>-]+?)(?:::\w+)?\s*$")
"""A plain column of ``select``, maybe renamed (``kind:style``) or cast."""
_GROUPBY = re.compile(r"\bGROUPBY\s+(?P<n>\d+)\s+(?P<fields>(?:@[\w.]+\s*)+)", re.IGNORECASE)
_REDUCE = re.compile(
    r"\bREDUCE\s+(?P<op>\w+)\s+(?P<n>\d+)(?P<args>(?:\s+(?!AS\b|REDUCE\b|SORTBY\b|APPLY\b|"
    r"LIMIT\b|FILTER\b|GROUPBY\b)\S+)*)(?:\s+AS\s+(?P<alias>\w+))?",
    re.IGNORECASE,
)
_REDUCERS = {
    "count": "count",
    "count_distinct": "count_distinct",
    "count_distinctish": "count_distinct",
    "sum": "sum",
    "avg": "avg",
    "min": "min",
    "max": "max",
}
"""RediSearch's reducers that are the aggregate items a grouping computes."""


Read = tuple[list[str], list[tuple[str, str, str]], str, bool]
"""The grouped fields, the items (op, field, name), the collection named, and whether the
answer writes its values as text."""


def url_grouping(arguments: dict[str, Any]) -> Read | None:
    """The grouping a URL query's ``select`` asks for by listing aggregate functions; the
    collection its path names."""
    for value in arguments.values():
        read = url_query(value) if isinstance(value, str) and "select=" in value else None
        if read is None:
            continue
        selected = next(
            (
                v
                for n, _, v in (p.partition("=") for p in value.split("?", 1)[-1].split("&"))
                if n == "select"
            ),
            "",
        )
        fields: list[str] = []
        items: list[tuple[str, str, str]] = []
        for part in split_top(selected):
            function = _FUNCTION.match(part)
            if function is not None:
                op = function["op"].lower()
                items.append((op, function["field"] or "", function["alias"] or op))
                continue
            column = _COLUMN.match(part)
            if column is None:
                return None  # an embedded resource or a spread: no grouping this reads
            fields.append(column["field"].replace("->", "."))
        if items:
            return fields, items, read.resource, False
    return None


def pipeline_grouping(arguments: dict[str, Any]) -> Read | None:
    """The grouping a ``GROUPBY`` step and its ``REDUCE`` steps ask for."""
    for value in arguments.values():
        words = isinstance(value, list) and all(isinstance(v, str) for v in value)
        text = " ".join(value) if words else value
        grouped = _GROUPBY.search(text) if isinstance(text, str) else None
        if grouped is None or not isinstance(text, str):
            continue
        fields = [f.lstrip("@") for f in grouped["fields"].split()][: int(grouped["n"])]
        items: list[tuple[str, str, str]] = []
        for reduce in _REDUCE.finditer(text, grouped.end()):
            op = _REDUCERS.get(reduce["op"].lower())
            args = reduce["args"].split()
            if op is None:
                continue
            field = args[0].lstrip("@") if args else ""
            alias = reduce["alias"] or f"__generated_alias{op}{field}"
            items.append((op, field, alias))
        if items:
            return fields, items, "", True
    return None


def as_text(value: Any) -> Any:
    """A value as a language answering text writes it: a number with 12 significant digits
    at most (``39.70995671``, ``9289716``)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return value
    return format(value, ".12g")
