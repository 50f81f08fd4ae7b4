"""Counts a summary's words ask for besides that of its records: of the records a yes/no
field or a value names ("unpaid count", "files"), of the units a quantity field holds ("item
count" of an order's lines), and the name a description writes for the records' count as one
word of several (``totalCount``), which the answer uses as written; and the records of a
kind the records refer to ("Count, patients": the patients readings name)."""

from __future__ import annotations

import re

from mcp_sim.prompting.summary_names import singular, words
from mcp_sim.prompting.summary_stats import MOST_DISTINCT, GroupStats
from mcp_sim.runtime.typed_references import typed_reference

_NEGATIONS = ("un", "non", "not")
_COUNT_NAME_WORDS = frozenset(["count", "total", "result", "hit", "match", "record", "item"])
"""The words of a name for how many records there are (``totalCount``, ``hit_count``)."""
_READ_REFERENCES = 50
"""Values of a field read to tell that it refers to records of one kind."""
_COMPOUND = re.compile(r"[a-z0-9][A-Z]|\w[_-]\w")
"""A name of several words: camelCase, PascalCase, snake_case, kebab-case."""


def is_count_name(token: str) -> bool:
    """Whether a name of several words names a count of records (``totalCount``,
    ``result_count``, ``HitCount``): ``count`` and only words for the records counted."""
    said = {singular(w.lower()) for w in words(token)}
    return bool(_COMPOUND.search(token)) and "count" in said and said <= _COUNT_NAME_WORDS


def units(group: GroupStats) -> int | None:
    """The total quantity of records that each hold a quantity of a priced thing (the count
    of a count × amount total), where exactly one field is such a quantity."""
    quantities = {count for count, _ in group.products}
    if len(quantities) != 1:
        return None
    return round(sum(group.fields[(quantities.pop(),)].numbers))


def narrowed(phrase: tuple[str, ...], group: GroupStats) -> int | None:
    """How many records a counted phrase picks out of the group: those whose yes/no field
    it names is true (or false, for ``un``-, ``non``-, ``not``-), or those holding a value
    it names; ``None`` when it names the records themselves."""
    said = "".join(w.lower() for w in phrase)
    for f in group.fields.values():
        if not (f.trues or f.falses):
            continue
        name = "".join(w.lower() for w in words(f.path[-1]))
        if said == name:
            return f.trues
        if any(said == n + name for n in _NEGATIONS):
            return f.falses
    for f in group.fields.values():
        held = f.said_counts() if f.texts else {}
        # The value as said, or in the singular ("files" of type ``file``).
        for form in dict.fromkeys([said, singular(said)]):
            if form in held and len(held) <= MOST_DISTINCT:
                return held[form]
    return None


def referred(phrase: tuple[str, ...], group: GroupStats) -> int | None:
    """How many records of the kind a plural noun names the group's records refer to
    ("Count, patients" of readings whose ``subject/reference`` is ``Patient/7``): the
    distinct references of the one field that holds only such; else ``None``."""
    said = phrase[-1].lower() if phrase else ""
    kind = singular(said)
    if kind == said:
        return None
    for f in group.fields.values():
        if not f.single or not f.texts or f.numbers:
            continue
        kinds = {(typed_reference(t) or ("", ""))[0].lower() for t in f.texts[:_READ_REFERENCES]}
        if kinds == {kind}:
            return len(set(f.texts))
    return None
