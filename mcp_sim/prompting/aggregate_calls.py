"""Which calls answer with a summary of a collection rather than with records: a tool whose
name says so (``count_orders``, ``genre_stats``, ``list_all_types``, ``list_style_values``,
``headcount``), whose description's first sentence does (``how many``, ``the total``), that
ranks records, or whose answer is numbers in units (see
:mod:`mcp_sim.prompting.summary_quantities`)."""

from __future__ import annotations

from mcp_sim.prompting.field_names import tokens
from mcp_sim.prompting.summary_quantities import answers_in_units
from mcp_sim.prompting.summary_ranked import is_ranking
from mcp_sim.spec.world import ToolSpec

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
        "usage",
        "balance",
    ]
)
_COMPOUND_PARTS = ("count", "total", "stats", "summary")

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
_STATISTIC_WORDS = frozenset(["count", "mean", "median", "sum"])
"""Words of a description's first sentence that name statistics it answers with (two of
them: one alone may be a field's name, a book's "page count")."""
_VALUES_WORDS = ("values", "value")
"""A name's last word that asks for a field's distinct values (``list_style_values``)."""


def is_aggregate(tool: ToolSpec | None) -> bool:
    """Whether the tool asks for a summary of a collection rather than records: its name
    says so (``count_orders``, ``genre_stats``, ``list_all_types``, ``list_style_values``), or
    the first sentence of its description does (``how many``, ``the total``)."""
    if tool is None or tool.effect == "write":
        return False
    if answers_in_units(tool):
        return True  # numbers only, in units (``cpu_requests_millicores``): totals
    words = tokens(tool.name)
    if set(words) & _AGGREGATE_WORDS:
        return True
    if len(words) > 1 and words[-1] in _VALUES_WORDS:
        return True  # list_style_values: the distinct values of a field
    if any(part in word for word in words for part in _COMPOUND_PARTS):
        return True  # headcount, subtotal
    first = tool.description.split(". ")[0].lower()
    if len(set(tokens(first)) & _STATISTIC_WORDS) > 1:
        # "a hotel's arrivals in a month: count, room nights, mean stay"; one such word may
        # name a field ("by title or page count").
        return True
    return any(phrase in first for phrase in _AGGREGATE_PHRASES) or is_ranking(tool)
