"""The names a summary's values go under: those an answer would use for them.

An aggregate's answer holds values no record holds, under names its tool chose (``books``,
``pages_total``, ``highestKm``, ``mean_score``). A tool's output schema says which: a property
whose words are an operation's and a field's (``total_pages``, ``pagesTotal``) takes that
value. Without one, each value goes under the few names answers commonly give it: the
operation's words before or after the field's name or its last word (``total_pages``,
``pages_total``, ``totalKm`` for ``odometerKm``), the bare field name for a total (``on_hand``,
``debits``), the bare operation where only one field has it (``highest``, ``latest``), and for a
count, the records' plural and ``<record>_count``; all spelled as the state spells its fields
(snake_case, camelCase, PascalCase, kebab-case or UPPER_SNAKE).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

_WORD = re.compile(r"[A-Z]?[a-z]+\d*|[A-Z]+\d*(?![a-z])|\d+")
"""A word and the digits after it (``m2`` of ``area_m2`` is one word)."""
_CAMEL = re.compile(r"[a-z0-9][A-Z]")
STYLES = ("snake", "camel", "pascal", "kebab", "upper")
BEFORE: dict[str, tuple[str, ...]] = {
    "sum": ("total", "sum"),
    "max": ("max", "highest", "top", "most"),
    "min": ("min", "lowest"),
    "mean": ("mean", "average", "avg"),
}
"""Words an answer puts before a field's name for each operation."""
AFTER: dict[str, tuple[str, ...]] = {
    "sum": ("total",),
    "max": ("max",),
    "min": ("min",),
    "mean": ("mean",),
}
BARE: dict[str, tuple[str, ...]] = {
    "sum": ("total",),
    "max": ("max", "highest"),
    "min": ("min", "lowest"),
    "mean": ("mean", "average"),
}
"""Names an operation goes under alone, where only one field has it."""
DATES: dict[str, tuple[str, ...]] = {"max": ("latest",), "min": ("earliest",)}
"""Further words for the range of a date or a year."""
_TIME_WORDS = frozenset(["year", "date", "day", "time", "when"])


@dataclass(frozen=True)
class Stat:
    """One value of a summary and the names it goes under."""

    names: list[str]
    """Best first: a tool's output schema's name, else the common names."""
    value: Any
    fallback: tuple[str, ...] = ()
    """Names it takes only where no other value has them."""
    asked: bool = False
    """Asked for by the tool's words: keeps more of its names where room is short."""
    of: tuple[str, tuple[str, ...]] | None = None
    """The operation and the field's path it is of, for an asked statistic: the same one
    read again under the common names would only repeat it (see
    :func:`mcp_sim.prompting.summary_values.group_values`)."""


def words(name: str) -> list[str]:
    """A name's words as written (``odometerKm`` → ``odometer``, ``Km``)."""
    return _WORD.findall(name)


def _style_of_one(key: str) -> str | None:
    """The spelling ``key`` shows, or ``None`` where one lower-case word could be any."""
    letters = [c for c in key if c.isalpha()]
    if not letters or not re.fullmatch(r"[A-Za-z0-9_-]+", key):
        return None
    if "-" in key:
        return "kebab"
    if all(c.isupper() for c in letters):
        return "upper" if len(letters) > 1 else None
    if "_" in key:
        return "snake"
    if _CAMEL.search(key) or letters[0].isupper():
        return "pascal" if key[0].isupper() else "camel"
    return None


def style_of(keys: Iterable[str]) -> str:
    """How the state spells its field names: ``snake`` (the default), ``camel``,
    ``pascal``, ``kebab`` or ``upper``, by the most names that show one."""
    votes = Counter(s for s in map(_style_of_one, keys) if s is not None)
    if not votes:
        return "snake"
    return max(STYLES, key=lambda s: (votes[s], s == "snake"))


def join(parts: Iterable[str], style: str) -> str:
    """``parts``' words as one name in ``style``."""
    flat = [w.lower() for part in parts for w in words(part)]
    if not flat:
        return ""
    if style == "camel":
        return "".join([flat[0], *(w[:1].upper() + w[1:] for w in flat[1:])])
    if style == "pascal":
        return "".join(w[:1].upper() + w[1:] for w in flat)
    if style == "kebab":
        return "-".join(flat)
    if style == "upper":
        return "_".join(flat).upper()
    return "_".join(flat)


def spelled(name: str, style: str) -> str:
    """A bare word (``count``) as the state would spell it."""
    return join([name], style)


def plural(name: str) -> str:
    if name.isupper():
        return plural(name.lower()).upper()
    if name.endswith("y") and len(name) > 2 and name[-2] not in "aeiou":
        return name[:-1] + "ies"
    return name if name.endswith("s") else name + "s"


def singular(name: str) -> str:
    if name.endswith("ies"):
        return name[:-3] + "y"
    return name[:-1] if name.endswith("s") and not name.endswith("ss") else name


def is_time(field: str) -> bool:
    return bool({w.lower() for w in words(field)} & _TIME_WORDS)


def stat_names(
    op: str, field: str, style: str, *, alone: bool, time: bool
) -> tuple[list[str], list[str]]:
    """The names of operation ``op`` over ``field`` (its last named segment), and the names
    to fall back on: the operation's words on the field's name, and on the last and the first
    word of a name of several words (a fallback: another field's own name comes first); ``alone`` adds
    the bare operation's names, ``time`` those of a date range."""
    before = BEFORE[op] + (DATES.get(op, ()) if time else ())
    names = [field, plural(field)] if op == "sum" else []
    names += [join([w, field], style) for w in before]
    names += [join([field, w], style) for w in AFTER[op]]
    if alone:
        names += [spelled(w, style) for w in (DATES.get(op, ()) if time else BARE[op])]
    fallback: list[str] = []
    # A name of several words names its measure first and its unit last (``temperature_c``,
    # ``price_usd``): an answer names the operation on either alone.
    said = words(field)
    for part in [said[-1], said[0]] if len(said) > 1 else []:
        fallback += [join([w, part], style) for w in before]
        fallback += [join([part, w], style) for w in AFTER[op]]
    return list(dict.fromkeys(names)), list(dict.fromkeys(fallback))


def count_names(group: str, style: str, phrases: Iterable[str]) -> list[str]:
    """The names of a count of the records of ``group`` (``books``, ``book_count``,
    ``count``), and of the words a tool's name or description counts (``headcount``; the
    ``enrolled`` of "enrolled count")."""
    one = singular(join([group], style))
    # The tool's own word for what it counts goes first: where room leaves one name, it is
    # the name the answer is likeliest to use.
    names: list[str] = []
    for phrase in phrases:
        said = spelled(phrase, style)
        names += [said] if "count" in phrase else [said, join([phrase, "count"], style)]
        # "Number of inspections" answered as ``inspection_count``.
        names += [] if "count" in phrase else [join([singular(phrase), "count"], style)]
    names += [plural(one), join([one, "count"], style), spelled("count", style)]
    return list(dict.fromkeys(n for n in names if n))


def squeezed(name: str) -> str:
    """A name with case and separators dropped, to match a schema's ``pagesTotal`` to
    ``pages_total``."""
    return "".join(w.lower() for w in words(name))
