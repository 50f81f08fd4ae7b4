"""The fields an argument constrains when its name fits none of them, read from the values.

A service may store ``top_speed`` as ``vmax`` and ``floor`` as ``storey``: the argument's name
then says nothing, but its value does. An equality names the fields holding its value (see
:mod:`mcp_sim.prompting.constraints`); a prefix the text fields whose values start with it
(:func:`by_prefix`); a range bound the fields of its kind whose values lie around it
(:func:`range_distance`): ``min_top_speed=177`` is a bound on the field holding 60 to 250,
not on the one holding 300 to 6400, nor on a calendar's dates. Bounds of one name
(``min_floor`` and ``max_floor``) bound one field, and a field another argument claims is
not taken again (:func:`assign_ranges`), nor is a numbering no name says is an id
(:func:`numbering`). A word no record holds whole is sought inside the short text fields
(:func:`containing`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from itertools import pairwise
from typing import Any

from mcp_sim.prompting.field_names import stem, tokens
from mcp_sim.prompting.record_fields import (
    ANY,
    SELF,
    ZERO_DECADE,
    FieldInfo,
    FieldSchema,
    decade,
    magnitude,
)
from mcp_sim.runtime.state_shape import normalize

ID_WORDS = frozenset({"id", "ids", "key", "uuid", "guid"})
"""Last words of identifiers' names: an id is neither a measure nor a title."""
_MOST_DISTANCE = 50.0
_MULTI_VALUED = 0.5
"""Added to the distance of a field holding many values per record (a calendar's dates, a
list's items): a search's bound is on a record's own attribute more often."""
_OTHER_NUMBER = 0.25
"""Added when a bound's number and the field's differ in kind (``18.5`` on counts)."""


_NUMBER_TEXT = re.compile(r"-?\d{1,15}(\.\d+)?")


def written_number(value: Any) -> Any:
    """A bound as the number it writes: a query's operands are text (``litres:<=442`` bounds
    by ``442``, ``abv:>=12.5`` by ``12.5``), as a stored number written as text is compared
    by its number; any other value as it is."""
    if isinstance(value, str) and (found := _NUMBER_TEXT.fullmatch(value.strip())):
        return float(value) if found[1] else int(value)
    return value


def range_distance(info: FieldInfo, value: Any) -> float | None:
    """How far ``value`` (a bound, maybe written as text) lies from the values ``info``
    holds, in spans of them: 0 inside, more the farther outside; ``None`` when they cannot
    be compared."""
    value = written_number(value)
    number = magnitude(value)
    if number is None or info.low is None or info.high is None:
        return None
    span = (info.high - info.low) or 1.0
    gap = max(info.low - number, number - info.high, 0.0)
    distance = min(gap / span, _MOST_DISTANCE)
    if info.values > info.records * 1.5:
        distance += _MULTI_VALUED
    if isinstance(value, float) and not value.is_integer():
        distance += 0.0 if info.fractional else _OTHER_NUMBER
    elif isinstance(value, int) and info.fractional * 4 > info.values:
        distance += _OTHER_NUMBER
    return distance


LEAST_NEAR_SHARE = 1 / 3
"""Share of a field's numbers within a power of ten of a bound for the bound to be of their
magnitude."""


def of_magnitude(info: FieldInfo, value: Any) -> bool:
    """Whether a bound (``published_to=2208``) is of the magnitude of ``info``'s values: a
    third of them lie within a power of ten of it. A field whose values only span it (flags
    of 0 beside item numbers of 20000, under a map of coded attributes) is no field a range
    on years bounds. A bound of 0, and a field with no numbers seen, are not judged."""
    # A bound written as text is not judged here: read as its number, it would rule out
    # a field a lookup's key stands beside (a department's ``floor`` beside ``8``), and the
    # call would be taken for that lookup.
    number = magnitude(value)
    if number is None or not number or not info.decades:
        return True
    wanted = decade(number)
    near = sum(n for d, n in info.decades.items() if d != ZERO_DECADE and abs(d - wanted) <= 1)
    return near >= LEAST_NEAR_SHARE * sum(info.decades.values())


TEMPORAL = frozenset({"after", "before", "since", "until", "till", "earliest", "latest"})
"""Words of a bound on a time: a number it bounds is a year."""
_NOT_YEARS = 1.0
"""Added for a time's bound to a field whose values are no years."""


def _years(info: FieldInfo) -> bool:
    return (
        info.low is not None
        and info.high is not None
        and 1000 <= info.low <= info.high <= 2200
        and not info.fractional
    )


def nearest(
    schema: FieldSchema, fields: Iterable[str], values: list[Any], temporal: bool = False
) -> list[str]:
    """Of ``fields``, those whose values lie nearest all of ``values`` (bounds of one name;
    ``temporal``: bounds on a time, nearest a field of years)."""
    scored: dict[str, float] = {}
    for path in fields:
        info = schema.fields[path]
        distances = [range_distance(info, v) for v in values]
        if all(d is not None for d in distances):
            scored[path] = sum(d for d in distances if d is not None)
            if temporal and not _years(info) and info.kind == "number":
                scored[path] += _NOT_YEARS
    if not scored:
        return []
    best = min(scored.values())
    return [p for p, d in scored.items() if d == best]


def _timed(members: list[tuple[str, Any, list[str]]]) -> bool:
    """Whether bounds are on a time (``published_after``)."""
    return any(set(tokens(argument)) & TEMPORAL for argument, _, _ in members)


def by_prefix(schema: FieldSchema, value: Any, op: str, named: Iterable[str] = ()) -> list[str]:
    """The text fields holding values that start with (``prefix``) or contain ``value``,
    those holding the most such values first (ties all kept): of the ``named`` fields when
    one of them holds such values, else of all; else the records' own keys when some start
    with it."""
    needle = str(value).strip().casefold()
    if not needle:
        return []
    counts: dict[str, int] = {}
    named = list(named)
    for path, info in schema.fields.items():
        if path == SELF or info.kind not in ("string", "text"):
            continue
        if op == "prefix":
            found = sum(1 for v in info.distinct if v.startswith(needle))
        else:
            found = sum(1 for v in info.distinct if needle in v)
        if found:
            counts[path] = found
    if not counts:
        # A map keyed by names (an object key's tags, keyed by the key) holds them only
        # as its records' own keys.
        own = schema.fields.get(SELF)
        if op == "prefix" and own is not None and any(v.startswith(needle) for v in own.distinct):
            return [SELF]
        return _free_text(schema, named)
    if any(p in counts for p in named):
        counts = {p: n for p, n in counts.items() if p in named}
    elif any(ANY not in p.split("/") for p in counts):
        # A prefix is typed from a record's own value (its name), not from the items of a
        # list it holds: comments' bodies start with any word, and more distinct ones.
        counts = {p: n for p, n in counts.items() if ANY not in p.split("/")}
    most = max(counts.values())
    return [p for p, n in counts.items() if n == most]


def assign_ranges(
    schema: FieldSchema,
    groups: dict[tuple[str, ...], list[tuple[str, Any, list[str]]]],
    claimed: set[str],
) -> dict[str, list[str]]:
    """The field(s) each unnamed bound constrains: per group of bounds of one name (the
    words left of ``min_floor`` and ``max_floor``), with its ``(argument, value,
    candidates)``, the candidates nearest every bound of the group that no other argument
    claimed, groups whose values fit a field best choosing first."""
    chosen: dict[str, list[str]] = {}
    taken = set(claimed)
    ranked: list[tuple[float, int, tuple[str, ...]]] = []
    for words, members in groups.items():
        candidates = set.intersection(*(set(c) for _, _, c in members))
        best = nearest(schema, candidates, [v for _, v, _ in members], _timed(members))
        if best:
            distance = sum(range_distance(schema.fields[best[0]], v) or 0.0 for _, v, _ in members)
            # Of bounds that fit equally well, the one fewer fields fit chooses first
            # (``-1.98`` fits only a temperature; ``0.0`` fits rain, wind and temperature).
            ranked.append((distance / len(members), len(best), words))
    for _, _, words in sorted(ranked):
        members = groups[words]
        candidates = set.intersection(*(set(c) for _, _, c in members))
        free = [p for p in sorted(candidates) if p not in taken] or sorted(candidates)
        best = nearest(schema, free, [v for _, v, _ in members], _timed(members))
        taken.update(best)
        for argument, _, _ in members:
            chosen[argument] = best
    return chosen


_LEAST_NUMBERED = 10
"""Values a field needs in the sample for their spacing to tell a numbering."""
_YEAR_WORDS = frozenset({"year", "years", "yr"})
_EVEN_SHARE = 0.5
"""Share of the gaps between a numbering's sampled values that are the sample's step."""


def numbering(info: FieldInfo, step: int) -> bool:
    """Whether a field numbers what holds it (Koha's biblionumbers ``1001``, ``1002``, ...,
    its copies' ``20001``, ... under tags no name says are ids): whole numbers none seen
    twice, most lying one apart, or as far apart as the records the sample takes (every
    ``step``-th). Such numbers may lie among years, but are no measure a range bounds."""
    if info.values != len(info.distinct) or info.values < _LEAST_NUMBERED:
        return False
    if info.words and info.words[-1][-1] in _YEAR_WORDS:
        return False  # a field its name says holds years holds a measure of time
    if not all(v.isdigit() for v in info.distinct):
        return False
    numbers = sorted(int(v) for v in info.distinct)
    gaps = [b - a for a, b in pairwise(numbers)]
    return sum(1 for g in gaps if g in (1, step)) >= _EVEN_SHARE * len(gaps)


LEAST_WORD = 3
"""Characters a value needs to be sought inside other values (``t`` is inside anything)."""


def containing(schema: FieldSchema, value: Any) -> list[str]:
    """The short text fields whose values hold ``value`` at the start of a word (a word of a
    title, a surname's start, a code inside a fixed-length field), those holding the most
    such values first (ties all kept); none when no sampled value does."""
    needle = str(value).strip().casefold()
    starts = re.compile(r"(?<![^\W_])" + re.escape(needle))
    counts: dict[str, int] = {}
    for path, info in schema.fields.items():
        # Prose (``text``) mentions many words in passing; short values are what is searched.
        # A word inside an identifier is part of a composed key (``tree`` of ``tree/1013``),
        # which the lookups by key read.
        named_id = bool(info.words) and info.words[-1][-1] in ID_WORDS
        if needle and path != SELF and info.kind == "string" and not named_id:
            if needle not in _text(schema, path):
                continue  # one search rules out a field no value of which holds the text
            found = sum(1 for v in info.distinct if needle in v and starts.search(v))
            if found:
                counts[path] = found
    most = max(counts.values(), default=0)
    return [p for p, n in counts.items() if n == most]


def _text(schema: FieldSchema, path: str) -> str:
    """The distinct values of a field in one text (a schema's sample is read once, whole)."""
    text = schema.texts.get(path)
    if text is None:
        text = schema.texts[path] = "\n".join(schema.fields[path].distinct)
    return text


def _free_text(schema: FieldSchema, named: list[str]) -> list[str]:
    """When no sampled value starts with the text: the text fields whose values hardly
    repeat (a title, a name: what a prefix is typed from), the ``named`` among them first;
    none when there are several and none is named."""
    free = [
        p
        for p, info in schema.fields.items()
        if p != SELF
        and info.kind in ("string", "text")
        and info.records * 2 >= schema.sampled
        and len(info.distinct) * 2 >= info.values
        and not (info.words and info.words[-1][-1] in ID_WORDS)
    ]
    mine = [p for p in free if p in named]
    return mine or (free if len(free) == 1 else [])


_TIMED_SHARE = 10
"""A date field held by at least one sampled record in this many bounds a mixed collection."""


def by_kind(schema: FieldSchema, kind: str) -> list[str]:
    """The fields of ``kind`` most records hold, but not identifiers (a numeric id, or a
    numbering no name says is one, is no measure a range bounds)."""
    measures = [
        (p, info)
        for p, info in schema.fields.items()
        if p != SELF
        and info.sorts_as == kind
        and not (info.words and info.words[-1][-1] in ID_WORDS)
        and not numbering(info, schema.step)
    ]
    found = [p for p, info in measures if info.records * 2 >= schema.sampled]
    # Records keyed by their time (a series' readings) are bounded by it, if by no other.
    if not found and kind == "date" and schema.time_keyed:
        return [SELF]
    if not found and kind == "date" and measures:
        # A collection of several kinds of records (a git store's commits among its trees
        # and blobs) is bounded in time on the kind that has a time: the dates held most.
        most = max(info.records for _, info in measures)
        if most * _TIMED_SHARE >= schema.sampled:
            found = [p for p, info in measures if info.records == most]
    return found


def stem_named(schema: FieldSchema, fields: list[str], words: tuple[str, ...]) -> list[str]:
    """Of ``fields``, those a word of the name shares a stem with (``created`` of
    ``created_after`` and ``metadata/creationTimestamp``, not ``status/startTime``)."""
    wanted = {stem(w) for w in words}
    return [p for p in fields if wanted & {stem(w) for s in schema.fields[p].words for w in s}]


def own_first(schema: FieldSchema, fields: list[str], value: Any, op: str) -> list[str]:
    """Of fields a name fits equally, the record's own that hold such a value (an item's
    ``name``, not its supplier's): an argument about the object it holds would name it
    (``supplier_name``); all of them when no own field holds it (``type`` of a record's
    ``attributes`` where its own ``Type`` is another thing), or for a bound."""
    own = [p for p in fields if "/" not in p]  # the record's key (``SELF``) is its own too
    if len(fields) < 2 or not own or len(own) == len(fields):
        return fields
    if op in ("prefix", "contains"):
        held = [p for p in by_prefix(schema, value, op, own) if p in own]
    elif op in ("eq", "ne"):
        wanted = {normalize(v) for v in (value if isinstance(value, list) else [value])}
        held = [p for p in own if schema.fields[p].distinct & wanted]
    else:
        held = []
    return held or fields
