"""The statistics a tool's description asks for, each under the name the tool would give it.

"Count, total price, largest weight and the colour values of the boats of one colour" asks
for four values: a count, a sum, a maximum and a list of distinct values. An answer names
them from those words (``count``, ``total_price``, ``max_weight``, ``colour_values``), though
the state may call the fields otherwise (``cost``, ``mass_kg``, ``paint``). Each asked value is
read off the field its words name (by name, else by a shared word or a common start, else, of
the fields of the right kind no other asked value took, the first the records hold, or for
distinct values the one with fewest) and goes
under names made of the tool's words, spelled as the state spells its fields, before any
other name: the answer's own name is the likeliest, and a value under it is what the answer
copies.

A count of something narrower than the records ("unpaid count") counts the records meeting
it: a yes/no field the words name (``paid`` false for "unpaid"), or a value a field holds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import dropwhile

from mcp_sim.prompting.asked_names import asked_names
from mcp_sim.prompting.field_names import name_score, tokens
from mcp_sim.prompting.summary_counts import is_count_name, narrowed, referred, units
from mcp_sim.prompting.summary_names import (
    Stat,
    is_time,
    join,
    plural,
    singular,
    spelled,
    words,
)
from mcp_sim.prompting.summary_stats import (
    MOST_DISTINCT,
    FieldStats,
    GroupStats,
    is_identifier,
    value_of,
)
from mcp_sim.spec.world import ToolSpec

OPS: dict[str, str] = {
    "total": "sum",
    "sum": "sum",
    "largest": "max",
    "biggest": "max",
    "highest": "max",
    "greatest": "max",
    "maximum": "max",
    "max": "max",
    "most": "max",
    "longest": "max",
    "heaviest": "max",
    "latest": "max",
    "smallest": "min",
    "lowest": "min",
    "least": "min",
    "minimum": "min",
    "min": "min",
    "shortest": "min",
    "lightest": "min",
    "earliest": "min",
    "average": "mean",
    "mean": "mean",
    "avg": "mean",
    "count": "count",
    "number": "count",
    "distinct": "values",
    "unique": "values",
}
"""Words before a field's name that ask for an operation over it."""
_AFTER = {"values": "values", "count": "count", "total": "sum"}
"""Words after a field's name that do."""
_PRICES = frozenset(["price", "cost", "fare", "fee", "rate", "tariff", "charge"])
"""Words for what a thing costs: a phrase saying one reads a field named by another."""
_NAMED = 0.85
"""How well a listed noun must fit a field's name to name it (``fares`` ↔ ``fare``)."""
_SKIPPED = frozenset(["the", "a", "an", "their", "its", "each", "all", "or"])
_CHUNKS = re.compile(r",|;|\.\s|\.$|\band\b|\bwith\b|\(|\)|:")
_ENDS = frozenset(
    [
        *["of", "for", "per", "in", "by", "from", "on", "at", "over", "across", "between"],
        "during",
        # A clause's start ("when every value is a number") names no measure.
        *["when", "where", "if", "unless", "while", "whose", "which", "that"],
    ]
)
_MOST_PHRASE = 3
_COUNTING = frozenset(["distinct", "unique"])
"""Words before a noun asking for its distinct values, which name their count too."""
_LISTED_ALONE = frozenset(["count", "sum", "min", "max", "mean"])
"""Operations asked for by a word alone ("sum, mean, min and max"), of the measure an
argument names or the one the records hold (see :func:`resolve`)."""
_COUNTED_RECORDS = re.compile(
    r"(?<!list )\b(?:of|over|across)\s+(?:all the|the|all|each|every)\s+([a-z][\w-]*)",
    re.IGNORECASE,
)
_BARE_COUNTED = re.compile(r"\b(?:over|across)\s+([a-z][\w-]*[^s\W]s)\b", re.IGNORECASE)
"""Records a description counts in the plural without an article ("over pages with a
label")."""
_OWNED = re.compile(r"^\W*(?:an?|the)\s+[\w-]+'s\s+([a-z][\w-]*[^s\W]s)\b", re.IGNORECASE)
"""The records a description opens on as one thing's, in the plural ("A hotel's arrivals in
a month: count, ...", "An operator's stations, charge points, ...")."""
_POSSESSIVE = re.compile(r"\b\w+'s\b")
_COMPOUND = re.compile(r"[a-z0-9][A-Z]|\w[_-]\w")
"""A name of several words: camelCase, PascalCase, snake_case, kebab-case."""


@dataclass(frozen=True)
class Asked:
    op: str
    """``count``, ``sum``, ``max``, ``min``, ``mean`` or ``values``."""
    phrase: tuple[str, ...]
    """The words naming the field (or, for a count, what is counted), as written."""
    said: str
    """The operation's word as written (``largest``)."""
    of: str = ""
    """For a count of the records, what it says they are ("number of turns": ``turns``)."""
    bare: bool = False
    """A noun listed alone ("total bytes, files and owners"): a count of the records holding
    a value it names (``type`` = ``file``), where one does; else nothing."""
    named: str = ""
    """The answer's own name for a count of the records, written in the description as one
    (``totalCount``): the value goes under it as written."""


def _asked_in(chunk: list[str], following: tuple[str, ...]) -> Asked | None:
    """The statistic one comma- or "and"-separated part of a description asks for."""
    bare = list(dropwhile(lambda w: w.lower() in _SKIPPED, chunk))
    if len(bare) == 1 and is_count_name(bare[0]):
        return Asked("count", (), bare[0], named=bare[0])  # "(a totalCount)"
    if bare and bare[0].lower() in ("count", "number") and bare[1:2] == ["of"]:
        # "(a) number of visits": the records themselves.
        of = next((w for w in bare[2:] if w.lower() not in _SKIPPED), "")
        return Asked("count", (), bare[0], of)
    phrase = _phrase(chunk)
    if not phrase:
        return None
    first, last = phrase[0].lower(), phrase[-1].lower()
    if first in OPS:
        # "total and mean cost": an operation alone shares the field of the part after it.
        rest = phrase[1:] or (following if OPS[first] != "count" else ())
        return Asked(OPS[first], rest, phrase[0])
    if last in _AFTER and len(phrase) > 1:
        return Asked(_AFTER[last], phrase[:-1], phrase[-1])
    return Asked("count", phrase, "", bare=True)


def _phrase(chunk: list[str]) -> tuple[str, ...]:
    """A part's words up to a preposition that starts its scope (``of the boats``), less
    adverbs ("optionally for one city" names no measure)."""
    kept: list[str] = []
    for word in chunk:
        if word.lower() in _ENDS:
            break
        if word.lower() not in _SKIPPED and not _adverb(word):
            kept.append(word)
    return tuple(kept[: _MOST_PHRASE + 1])


def _adverb(word: str) -> bool:
    """Whether ``word`` reads as an adverb (``optionally``, ``only``): never a field's name."""
    return word.islower() and word.endswith("ly") and len(word) > 3


def _split(token: str) -> list[str]:
    """A description's word, or the words of a name it quotes (``TotalAreaM2``,
    ``max_ph``, ``medium-values``: the answer's own keys, listed)."""
    return words(token) if _COMPOUND.search(token) and not is_count_name(token) else [token]


def asked(tool: ToolSpec) -> list[Asked]:
    """What the first sentence of ``tool``'s description asks for, in its order; else what
    its name does (``list_style_values``)."""
    # A possessive says whose, not what ("an order's item count").
    first = _POSSESSIVE.sub(" ", tool.description.split(". ")[0])
    parts = (re.findall(r"[\w-]+", part) for part in _CHUNKS.split(first))
    chunks = [[w for token in part for w in _split(token)] for part in parts]
    bare = [tuple(w for w in _phrase(c) if w.lower() not in OPS) for c in chunks]
    found: list[Asked] = []
    for at, chunk in enumerate(chunks):
        following = next((b for b in bare[at + 1 :] if b), ())
        one = _asked_in(chunk, following)
        if one is not None and (one.phrase or one.op in _LISTED_ALONE):
            # An operation listed alone ("count, min, max and mean of a reading") is named
            # by its word alone: the answer's ``min``.
            found.append(one)
    return found if any(not a.bare for a in found) else found + _named_values(tool)


def _named_values(tool: ToolSpec) -> list[Asked]:
    """The distinct values a name ending in ``values`` asks for: of the field its other
    words name, a leading verb left out (``list_style_values``, ``listBandValues``)."""
    said = words(tool.name)
    if len(said) < 2 or said[-1].lower() not in ("values", "value"):
        return []
    phrase = said[1:-1] if len(said) > 2 else said[:-1]
    return [Asked("values", tuple(phrase[-_MOST_PHRASE:]), said[-1])]


def counted(tool: ToolSpec) -> list[str]:
    """The records a description counts ("of the boats", "over all warehouses", "over
    pages"), and those it opens on as one thing's ("A hotel's arrivals")."""
    first = tool.description.split(". ")[0]
    found = [m.group(1) for m in _COUNTED_RECORDS.finditer(first)]
    found += [m.group(1) for m in _BARE_COUNTED.finditer(first)]
    owned = _OWNED.match(first)
    return found + ([owned.group(1)] if owned is not None else [])


def fits(phrase: tuple[str, ...], f: FieldStats) -> float:
    """How well ``phrase`` names field ``f``: its name's fit, else a word they share or
    start alike (``freq`` and ``frequency``)."""
    said = tuple(t for w in phrase for t in tokens(w))
    path = tuple(tokens(p) for p in f.path)
    score = name_score(said, path)
    if score > 0:
        return score
    own = {t for t in path[-1] if len(t) > 1}
    if set(said) & own:
        return 0.5
    starts = any(
        len(a) >= 3 and len(b) >= 3 and (a.startswith(b[:4]) or b.startswith(a[:4]))
        for a in said
        for b in own
    )
    return 0.4 if starts else 0.0


def _fit(a: Asked, f: FieldStats, hints: tuple[tuple[str, ...], ...]) -> float:
    """How well ``a``'s words name ``f``; an operation's alone, how well an argument does."""
    if a.phrase:
        return fits(a.phrase, f)
    return max((fits(h, f) for h in hints), default=0.0)


def _both_priced(phrase: tuple[str, ...], f: FieldStats) -> bool:
    """Whether a phrase and a field's path both name a price (``fare``, ``rates``)."""
    said = {singular(t) for w in phrase for t in tokens(w)}
    named = {singular(t) for part in f.path for t in tokens(part)}
    return bool(said & _PRICES) and bool(named & _PRICES)


def _kind_fits(op: str, f: FieldStats) -> bool:
    if op == "values":
        distinct = len(set(f.texts))
        return bool(f.texts) and not f.dates and 0 < distinct <= MOST_DISTINCT
    if op in ("max", "min"):
        return bool(f.numbers and not f.texts) or f.dates
    return bool(f.numbers and not f.texts)


def resolve(
    wanted: list[Asked],
    group: GroupStats,
    constrained: set[str],
    hints: tuple[tuple[str, ...], ...] = (),
) -> dict[Asked, FieldStats]:
    """The field each asked statistic reads: best name fits first, then each one no name
    fits takes the first field of its kind no other took (a record's own field before a
    calendar's). An operation listed alone ("sum, mean, min and max") reads the field an
    argument names (``hints``: the words of the arguments' values, ``property: "Duration"``)
    where one does."""
    usable = [
        f for f in group.fields.values() if f.path[-1] not in constrained and not is_identifier(f)
    ]
    pairs = [
        (_fit(a, f, hints), -i, a, f)
        for a in wanted
        if a.op != "count"
        for i, f in enumerate(usable)
        if _kind_fits(a.op, f)
    ]
    chosen: dict[Asked, FieldStats] = {}
    # A field is read by one phrase (its total and its mean may both ask for it).
    owner: dict[tuple[str, ...], tuple[str, ...]] = {}
    # Of fields a phrase fits alike, one priced as the phrase is ("economy fare": a cabin's
    # ``prices/economy``, not its ``available_seats/economy``).
    ranked = sorted(pairs, key=lambda p: (-p[0], not _both_priced(p[2].phrase, p[3]), -p[1]))
    for score, _, a, f in ranked:
        if score > 0 and a not in chosen and owner.get(f.path, a.phrase) == a.phrase:
            chosen[a], owner[f.path] = f, a.phrase
    for a in wanted:
        rest = [f for _, _, b, f in pairs if b == a and owner.get(f.path, a.phrase) == a.phrase]
        # A record's own field before a calendar's; a number before a date unless the words
        # name a time; of the values, an enumeration's (fewest distinct) before a place's.
        timed = is_time(" ".join(a.phrase)) or a.said.lower() in ("latest", "earliest")
        # A field most records hold before a rarer one (a directory's own ``size``, not
        # that of the one file three levels down that only one record holds). Values to list
        # repeat and vary: neither a value every record holds alike (a kind, a source) nor
        # names nearly each its own are an enumeration's.
        rest.sort(
            key=lambda f: (
                a.op == "values" and not _enumerates(f),
                not f.single,
                -f.holders,
                f.dates != timed if a.op in ("max", "min") else False,
                len(set(f.texts)) if a.op == "values" else 0,
            )
        )
        if a not in chosen and rest:
            chosen[a], owner[rest[0].path] = rest[0], a.phrase
    return chosen


def _enumerates(f: FieldStats) -> bool:
    """Whether a field's texts are an enumeration's: a few values, each held by several."""
    distinct = len(set(f.texts))
    return distinct >= 2 and 2 * distinct <= len(f.texts)


def asked_stats(
    tool: ToolSpec,
    group: GroupStats,
    constrained: set[str],
    style: str,
    hints: tuple[tuple[str, ...], ...] = (),
) -> tuple[list[Stat], list[Stat]]:
    """The statistics ``tool``'s description asks for, under the names it would use: those
    to show first, and the guesses to show after the group's quantity × price totals
    (``hints``: see :func:`resolve`)."""
    wanted = asked(tool)
    chosen = resolve(wanted, group, constrained, hints)
    stats: list[Stat] = []
    late: list[Stat] = []
    for a in wanted:
        if a.op == "count":
            stats += _count(a, group, style)
            continue
        f = chosen.get(a)
        # A total alone totals the field an argument names: of any other, it says too little.
        if f is None or (a.op == "sum" and not a.phrase and not _fit(a, f, hints)):
            continue
        names = asked_names(a.op, a.said, a.phrase, f.path[-1], style)
        # An operation listed alone has its one plain name: the same value under the
        # common names (``minValue``, ``lowestValue``) would crowd out the others.
        alone = None if a.phrase else (a.op, f.path)
        if a.op == "values" and a.said.lower() in _COUNTING and len(names) > 2:
            # "Distinct artists" among a thing's figures is how many (as a count of distinct
            # values is named, ``distinct_artists``); the values go under their own names.
            values = value_of(a.op, f)
            stats.append(Stat(names[2:], len(values), asked=True))
            names = names[:2]
        stat = Stat(names, value_of(a.op, f), asked=True, of=alone)
        # A total no field is named for, over records with a quantity and a price, may be
        # the total of their products (an order's amount): that takes its bare words first.
        weak = a.op == "sum" and bool(group.products) and not fits(a.phrase, f)
        (late if weak else stats).append(stat)
    return stats, late


def _count(a: Asked, group: GroupStats, style: str) -> list[Stat]:
    """A count: of the records, or of those a yes/no field or a value the words name."""
    part = narrowed(a.phrase, group) if a.phrase else None
    if a.bare:
        # "files" counts the records of type ``file``; "fares" totals the ``fare`` field.
        # The word as the description writes it first ("running"): the answer's own key.
        said = [join(list(a.phrase), style), join([plural(a.phrase[-1])], style)]
        said.append(join([*a.phrase, "count"], style))
        if part is None:
            return _bare_field(a.phrase, group, style)
        return [Stat(list(dict.fromkeys(said)), part, asked=True)]
    if a.named:
        return [Stat([a.named, spelled("count", style)], group.count, asked=True)]
    if not a.phrase:
        # "Number of turns" answered as ``turn_count`` (or ``turns``) beside ``count``.
        said = [join([singular(a.of), "count"], style), join([a.of], style)] if a.of else []
        return [Stat([spelled("count", style), *said], group.count, asked=True)]
    names = [join(list(a.phrase), style), join([*a.phrase, "count"], style)]
    if set(tokens("".join(a.phrase))) <= set(tokens(group.name)):
        # "vehicle count" of the vehicles: the records' noun alone would name one of them.
        names = [names[1], join([plural(a.phrase[-1])], style), names[0]]
    if part is None and not set(tokens("".join(a.phrase))) <= set(tokens(group.name)):
        # "item count" of an order's lines, each with a quantity: the units, not the lines.
        part = units(group)
        names.insert(1, join([plural(a.phrase[-1])], style))
    return [Stat(names, part if part is not None else group.count, asked=True)]


def _bare_field(phrase: tuple[str, ...], group: GroupStats, style: str) -> list[Stat]:
    """A listed noun naming a field: its total where it holds numbers ("fares":
    ``fares_total``), its distinct values where few texts; else nothing."""
    named = [f for f in group.fields.values() if fits(phrase, f) >= _NAMED and f.single]
    referring = referred(phrase, group) if not named else None
    if referring is not None:
        return [Stat([join([*phrase[:-1], plural(phrase[-1])], style)], referring, asked=True)]
    if not named or is_identifier(named[0]):
        return []
    f, noun = named[0], [*phrase[:-1], plural(phrase[-1])]
    if f.numbers and not f.texts:
        names = [join(noun, style), join([*noun, "total"], style), join(["total", *noun], style)]
        return [Stat(names, value_of("sum", f), asked=True)]
    if _kind_fits("values", f):
        names = [join(noun, style), join([*noun, "values"], style)]
        return [Stat(names, value_of("values", f), asked=True)]
    return []
