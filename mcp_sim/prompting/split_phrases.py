"""The phrases saying what a tool breaks its records down by, in any service's words.

A report says it splits its records in its description ("issues per status", "tracks per
release decade and album type", "per stage, the number of deals and their total amount"), its
name (``issues_by_status``), an argument naming the field (``group_by: "status"``,
``property: "Tier"``) or its output schema (a ``by_status`` property). "By" also says how a
search finds or orders records ("sorted by date", "accounts by branch, currency and product"):
those are no splits. Each phrase of a description comes with the words of what it splits
("count and bytes ... per storage class": a measure, totalled per part; "tracks per decade":
the records, counted).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from mcp_sim.prompting.field_names import tokens
from mcp_sim.prompting.summary_names import words
from mcp_sim.spec.world import ToolSpec

_SPLIT = re.compile(r"\b(per|by|for each|broken down by|grouped by)\s+(?:the\s+|each\s+)?", re.I)
_NOT_SPLITS = frozenset(
    ["sorted", "ordered", "filtered", "keyed", "identified", "named", "searched", "found", "made"]
)
"""Words before "by" that say how records are found or ordered, not grouped."""
_PHRASE_END = re.compile(r",|;|\.\s|\.$|\(|\)|:|\bwith\b|\bor\b|\bon\b|\bin\b|\bof\b|\bfrom\b")
_GROUP_ARGUMENTS = frozenset(
    ["group", "groupby", "by", "per", "breakdown", "dimension", "facet", "split", "property"]
)
"""Words of argument names whose value names the field to break the records down by."""
_SPLIT_WORDS = frozenset(["per", "by", "each"])
_ANEW = frozenset(["the", "a", "an", "its", "their", "all"])
"""Words that start a new item of a list rather than another split ("and the assignees")."""
_RANGES = frozenset(["range", "ranges", "interval", "window"])
"""Words of a phrase naming a search's bounds ("by date range"), not a split."""


def split_phrases(tool: ToolSpec, arguments: dict[str, Any]) -> list[tuple[str, ...]]:
    """The phrases naming what the tool breaks its records down by: in its description's
    first sentence ("per storage class and per next-level folder"), its name
    (``issues_by_status``), an argument naming a field to group by, its output schema's
    ``by_*`` properties."""
    first = tool.description.split(". ")[0]
    found = [phrase for phrase, _ in _described(first)]
    found += [phrase for phrase, _ in _described(" ".join(words(tool.name)))]
    for name, value in arguments.items():
        if set(tokens(name)) & _GROUP_ARGUMENTS:
            listed = value if isinstance(value, list) else [value]
            found += [tuple(words(v)) for v in listed if isinstance(v, str) and words(v)]
    for name in (tool.output_schema or {}).get("properties") or {}:
        said = [w.lower() for w in words(str(name))]
        if len(said) > 1 and said[0] in ("by", "per"):
            found.append(tuple(said[1:]))
    return [p for p in dict.fromkeys(found) if p]


def measured(tool: ToolSpec) -> dict[tuple[str, ...], set[str]]:
    """Per phrase of the description, the words of what it splits: the part before it
    ("bytes of code per language", "count and bytes in all, per storage class"), and where
    it leads, the rest of the sentence ("per stage, the number of deals and their total
    amount")."""
    return dict(_described(tool.description.split(". ")[0]))


def _described(text: str) -> Iterator[tuple[tuple[str, ...], set[str]]]:
    """The phrases after "per" and "by" in ``text``, each "and"-joined one its own ("per
    release decade and album type"), up to one that starts anew ("and the assignees"); each
    with the words of what it splits (see :func:`measured`)."""
    last: set[str] = set()
    for match in _SPLIT.finditer(text):
        before = text[: match.start()].split()
        rest = text[match.end() :]
        if match.group(1).lower() == "by" and (
            (before and before[-1].lower() in _NOT_SPLITS) or _criteria(rest)
        ):
            continue
        own, after = [*_PHRASE_END.split(rest, maxsplit=1), ""][:2]
        chunks = [c for c in re.split(r"[,;:(]", text[: match.start()]) if c.strip()]
        split = set(re.findall(r"[\w-]+", chunks[-1].lower())) if chunks else set()
        if split & {"per", "by"}:
            split = last  # "per storage class and per folder": what the first one splits
        last = split
        if rest[len(own) : len(own) + 1] == ",":
            split = split | set(re.findall(r"[\w-]+", after.split(". ")[0].lower()))
        for part in re.split(r"\band\b", own):
            said = re.findall(r"[\w-]+", part)
            if said and said[0].lower() in _ANEW:
                break
            said = [w for w in said if w.lower() not in _SPLIT_WORDS]
            if said and not _RANGES & {w.lower() for w in said}:
                yield tuple(said[:4]), split


def _criteria(rest: str) -> bool:
    """Whether the words after "by" list a search's criteria ("by branch, currency, product
    and opening date range"), not one split ("by scan code, and the heaviest")."""
    items = [i.split() for i in re.split(r",|\band\b|\bor\b", rest.split(". ")[0]) if i.strip()]
    return len(items) >= 3 and items[1][0].lower() not in _ANEW
