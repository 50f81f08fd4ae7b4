"""Which calls answer with a summary of a collection rather than with records: a tool whose
name says so (``count_orders``, ``genre_stats``, ``list_all_types``, ``list_style_values``,
``headcount``), whose description's first sentence does (``how many``, ``the total``), that
ranks records, or whose answer is numbers in units (see
:mod:`mcp_sim.prompting.summary_quantities`)."""

from __future__ import annotations

import re

from mcp_sim.prompting.field_names import plural_words, tokens
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
_LISTED_STATISTICS = frozenset(["count", "number", "total", "sum"])
"""An item of a description's list that is a statistic on its own ("servers (count, ...)")."""
_ASIDE = re.compile(r"\([^)]*\)")
_ITEM = re.compile(r",|;|\band\b|\bor\b")
_OWNER = re.compile(r"^\W*(?:an?|the)?\s*[\w-]+'s\s+")
_FEWEST_ITEMS = 3
"""How many items a list of a thing's collections has at least."""


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
    if any(phrase in first for phrase in _AGGREGATE_PHRASES) or is_ranking(tool):
        return True
    return lists_statistics(first)


def lists_statistics(sentence: str) -> bool:
    """Whether a description's first sentence lists what a summary answers: a statistic as
    an item of its list ("a team's servers (count, running, types)"), or one thing's
    collections by name, most in the plural ("a channel's month: messages, threads, replies
    and reactions"), where one record's fields are mostly singular ("a pod's node, phase,
    IP, restarts") and a search lists its criteria after "by"."""
    asides = [a.strip("()") for a in _ASIDE.findall(sentence)]
    for part in [sentence, *asides]:
        items = [i.strip() for i in _ITEM.split(_ASIDE.sub("", part)) if i.strip()]
        if any(i.split(":")[-1].strip() in _LISTED_STATISTICS for i in items):
            return True
    owner = _OWNER.match(sentence)
    if owner is None or " by " in sentence:
        return False
    listed = _ASIDE.sub("", sentence[owner.end() :]).split(":")[-1]
    items = [i.split() for i in _ITEM.split(listed) if i.strip()]
    many = [i for i in items if plural_words(i[-1])]
    return len(items) >= _FEWEST_ITEMS and 3 * len(many) >= 2 * len(items)
