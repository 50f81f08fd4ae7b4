"""The names a summary's values go under: those an answer would use for them.

An aggregate's answer holds values no record holds, under names its tool chose (``books``,
``pages_total``, ``highestKm``, ``mean_score``). A tool's output schema says which: a property
whose words are an operation's and a field's (``total_pages``, ``pagesTotal``) takes that
value. Without one, each value goes under the few names answers commonly give it: the
operation's words before or after the field's name or its last word (``total_pages``,
``pages_total``, ``totalKm`` for ``odometerKm``), the bare field name for a total (``on_hand``,
``debits``), the bare operation where only one field has it (``highest``, ``latest``), and for a
count, the records' plural and ``<record>_count``; all spelled as the state spells its fields
(snake_case or camelCase).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
_CAMEL = re.compile(r"[a-z][A-Z]")
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


def words(name: str) -> list[str]:
    """A name's words as written (``odometerKm`` → ``odometer``, ``Km``)."""
    return _WORD.findall(name)


def style_of(keys: Iterable[str]) -> str:
    """``camel`` when the state's field names are camelCase, else ``snake``."""
    listed = list(keys)
    camel = sum(1 for k in listed if _CAMEL.search(k))
    snake = sum(1 for k in listed if "_" in k)
    return "camel" if camel > snake else "snake"


def join(parts: Iterable[str], style: str) -> str:
    flat = [w for part in parts for w in words(part)]
    if style == "camel":
        return "".join([flat[0].lower(), *(w[:1].upper() + w[1:] for w in flat[1:])])
    return "_".join(w.lower() for w in flat)


def plural(name: str) -> str:
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
    to fall back on: the operation's words on the field's name, and on the last word of a
    name of several words (a fallback: another field's own name comes first); ``alone`` adds
    the bare operation's names, ``time`` those of a date range."""
    before = BEFORE[op] + (DATES.get(op, ()) if time else ())
    names = [field, plural(field)] if op == "sum" else []
    names += [join([w, field], style) for w in before]
    names += [join([field, w], style) for w in AFTER[op]]
    if alone:
        names += [*DATES.get(op, ())] if time else [*BARE[op]]
    last = words(field)[-1] if len(words(field)) > 1 else None
    fallback = [join([w, last], style) for w in before] if last is not None else []
    fallback += [join([last, w], style) for w in AFTER[op]] if last is not None else []
    return list(dict.fromkeys(names)), fallback


def count_names(group: str, style: str, phrases: Iterable[str]) -> list[str]:
    """The names of a count of the records of ``group`` (``books``, ``book_count``,
    ``count``), and of the words a tool's name or description counts (``headcount``; the
    ``enrolled`` of "enrolled count")."""
    one = singular(group)
    # The tool's own word for what it counts goes first: where room leaves one name, it is
    # the name the answer is likeliest to use.
    names: list[str] = []
    for phrase in phrases:
        names += [phrase] if "count" in phrase else [phrase, join([phrase, "count"], style)]
    names += [plural(group), join([one, "count"], style), "count"]
    return list(dict.fromkeys(n for n in names if n))


def squeezed(name: str) -> str:
    """A name with case and separators dropped, to match a schema's ``pagesTotal`` to
    ``pages_total``."""
    return "".join(w.lower() for w in words(name))
