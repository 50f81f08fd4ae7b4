"""What an argument's name says about the field it constrains, without knowing the world.

An argument of a search names a field, more or less: ``origin`` is the field ``origin``;
``departureDate``, ``departure_date`` and ``departure-date`` are one name; ``cities`` is
``city``; ``user_id`` is the ``user`` field or a user's key; ``city`` is ``address.city``;
``min_price``, ``price_min``, ``from_date`` and ``after`` bound a range; ``title_starts`` is a
prefix; ``q`` and ``keyword`` are words to find in the text. :func:`read_argument` splits a
name into the operation and the name that is left, and :func:`name_score` says how well that
name fits a field path (see :mod:`mcp_sim.prompting.record_fields`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

_SPLIT = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
_LOWER_BOUND = frozenset(
    [
        "min",
        "minimum",
        "from",
        "start",
        "starting",
        "after",
        "since",
        "earliest",
        "lower",
        "low",
        "gte",
        "gt",
        "over",
        "above",
        "begin",
        "newer",
    ]
)
_UPPER_BOUND = frozenset(
    [
        "max",
        "maximum",
        "to",
        "end",
        "ending",
        "before",
        "until",
        "till",
        "latest",
        "upper",
        "high",
        "lte",
        "lt",
        "under",
        "below",
        "older",
    ]
)
_PREFIX = frozenset(["prefix", "starts", "startswith", "start_with", "begins"])
_CONTAINS = frozenset(["contains", "containing", "like", "includes", "including", "substring"])
_MATCH = frozenset(["matches"])
"""The mark of a query's ``field:value`` (see :mod:`mcp_sim.prompting.query_operands`): the
field's value, or a part of it."""
_NEGATION = frozenset(["not", "except", "excluding", "exclude", "excluded", "without", "nin"])
"""Marks of an argument that rules a value out (``style_not``, ``exceptColor``)."""
TEXT_NAMES = frozenset(
    [
        "q",
        "query",
        "keyword",
        "keywords",
        "search",
        "text",
        "term",
        "terms",
        "phrase",
        "fulltext",
        "words",
    ]
)
"""Argument names that carry words to find in a record's text, not a field's value."""
CONTROL_NAMES = frozenset(
    [
        "limit",
        "offset",
        "page",
        "per",
        "sort",
        "order",
        "by",
        "cursor",
        "format",
        "fields",
        "include",
        "exclude",
        "verbose",
        "skip",
        "top",
        "count",
        "direction",
        "asc",
        "desc",
        "token",
        "results",
        "first",
        "last",
    ]
)
_CONTROL_TOO = frozenset({"size", "max", "num", "n", "number", "return"})
"""Words of argument names that shape the answer rather than select records."""
_DIRECTIONS = (
    frozenset(["from", "origin", "source", "src", "departure", "depart", "leaving", "start"]),
    frozenset(["to", "destination", "dest", "target", "arrival", "arrive", "going", "end"]),
)
"""Generic words for the two ends of a trip or a link: ``from`` means ``origin``."""
_SIDES = (
    _DIRECTIONS[0] | {"sender", "shipper", "departed", "outbound", "pickup", "payer"},
    _DIRECTIONS[1] | {"recipient", "receiver", "consignee", "arrived", "inbound", "delivery"},
)
"""Words that put a name on one end of a movement (a parcel's ``sender`` is where it comes
``from``; a flight's ``arrival`` time is at its ``to`` end)."""
_IDS = frozenset({"id", "ids", "key", "uuid", "no", "num", "number", "code", "url", "uri", "href"})
"""Words that say a field holds a key (a resource's URL refers to it as its id does)."""


def names_key(words: tuple[tuple[str, ...], ...]) -> bool:
    """Whether a field path's words (see :func:`name_score`) end in a word of a key."""
    return bool(words and words[-1] and words[-1][-1] in _IDS)


def singular(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("sses", "xes", "ches", "shes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


NAMES_KEPT = 1 << 16
"""How many names (and pairs of names) the pure functions below remember: a call compares
its arguments' names with every field of every collection, the same names call after call."""


@lru_cache(maxsize=NAMES_KEPT)
def tokens(name: str) -> tuple[str, ...]:
    """The words of a name (camelCase, snake_case, kebab-case, dotted, slashed), lower-cased
    and singular."""
    return tuple(singular(w.lower()) for w in _SPLIT.findall(name))


def plural_words(text: str) -> set[str]:
    """The words of ``text`` written in the plural, made singular (``depotDrivers`` →
    ``driver``)."""
    lowered = (w.lower() for w in _SPLIT.findall(text))
    return {one for w in lowered if (one := singular(w)) != w}


def names_collection(pointer: str, value: object) -> bool:
    """Whether ``value`` is a word naming the records of the collection at ``pointer``: a
    segment's word (``issue`` of ``/repository/issues``) or the initials of a segment of
    several words (``pr`` of ``/pullRequests/edges``)."""
    if not isinstance(value, str) or not value.isalpha():
        return False
    wanted = singular(value.casefold())
    for segment in (tokens(s) for s in pointer.split("/")):
        initials = "".join(w[0] for w in segment) if len(segment) > 1 else ""
        if wanted in segment or wanted == initials:
            return True
    return False


@dataclass(frozen=True)
class ArgumentName:
    """An argument's name read as a constraint: the operation and the field name left."""

    op: str
    """``eq``, ``ne``, ``min``, ``max``, ``prefix``, ``contains``, ``match`` or ``text``."""
    words: tuple[str, ...]
    """The field name's words (empty for a bare ``after`` or ``q``)."""
    ambiguous_bound: bool = False
    """A bare ``from``/``to``: a bound for a date or a number, else the end of a trip."""
    control: bool = False
    """A name that shapes the answer (``limit``, ``sort_by``) rather than selects records."""


def read_argument(name: str) -> ArgumentName:
    """What ``name`` says: ``min_price`` → (``min``, ``price``), ``title_starts`` →
    (``prefix``, ``title``), ``style_not`` → (``ne``, ``style``), ``q`` → (``text``, ())."""
    words = tokens(name)
    raw = tuple(w.lower() for w in _SPLIT.findall(name))
    if not words:
        return ArgumentName("eq", ())
    if len(raw) == 1 and raw[0] in TEXT_NAMES:
        return ArgumentName("text", ())
    # A leading underscore marks a query's own parameters (Datasette's ``_size``, FHIR's
    # ``_count``), so there a size word alone shapes the answer; ``_id`` still selects.
    meta = name.startswith("_")
    if (meta or any(w in CONTROL_NAMES for w in raw)) and all(
        w in CONTROL_NAMES or w in _CONTROL_TOO for w in raw
    ):
        return ArgumentName("eq", words, control=True)
    if raw[-2:] == ("not", "in"):
        # ``color_not_in``: none of a list.
        raw = (*raw[:-2], "not")
    marked = (("prefix", _PREFIX), ("contains", _CONTAINS), ("ne", _NEGATION), ("match", _MATCH))
    bounds = _LOWER_BOUND | _UPPER_BOUND
    for op, marks in marked:
        # A last word that bounds outranks a first one that marks: ``starts_after`` bounds
        # when a talk starts, it is no prefix of "after".
        if raw[-1] in marks or (raw[0] in marks and not (len(raw) > 1 and raw[-1] in bounds)):
            rest = raw[:-1] if raw[-1] in marks else raw[1:]
            return ArgumentName(op, tuple(singular(w) for w in rest if w != "with"))
    if len(raw) > 1 and raw[:2] == ("as", "of"):
        # "as of" a date: what held up to it (a balance as of a day).
        return ArgumentName("max", tuple(singular(w) for w in raw[2:]))
    # A last word that bounds outranks a first one, which may be the field's own
    # (``max_kmh_to`` bounds ``max_kmh`` from above, as ``max_kmh_from`` does from below).
    for at in (-1, 0):
        for op, marks in (("min", _LOWER_BOUND), ("max", _UPPER_BOUND)):
            if raw[at] in marks:
                rest = raw[:-1] if at == -1 else raw[1:]
                # "from"/"to" bound a date or a number, but name the ends of a trip otherwise.
                return ArgumentName(
                    op, tuple(singular(w) for w in rest), ambiguous_bound=raw[at] in ("from", "to")
                )
    if raw[-1] in TEXT_NAMES and len(raw) > 1 and raw[-1] in ("query", "search", "text"):
        return ArgumentName("text", words[:-1])
    return ArgumentName("eq", words)


_STEM_ENDINGS = ("ment", "ing", "ure", "ion", "al", "ed", "e")
"""Endings that make a verb a noun or a participle (``arriving``, ``arrival``, ``departure``,
``created``, ``creation``, ``shipment``): a name is matched on what is left of each word."""


def stem(word: str) -> str:
    """A word without the ending that turns a verb into a noun, and without a doubled last
    consonant (``arriving`` and ``arrival`` are ``arriv``, ``shipping`` and ``shipment``
    ``ship``); words of four letters or fewer are left as they are."""
    if len(word) <= 4:
        return word
    for ending in _STEM_ENDINGS:
        if len(word) > len(ending) + 3 and word.endswith(ending):
            word = word[: -len(ending)]
            break
    if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "aeiou":
        return word[:-1]
    return word


_FUNCTION_WORDS = frozenset({"on", "at", "of", "in", "by", "for", "the", "a", "an"})
"""Words that share no meaning between two names: a request's date ``on`` is not when a reel
was ``filmedOn``; a name sharing only such a word with a field fits it no more than any."""


def _core(words: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(w for w in words if w not in _IDS) or words


def _direction(words: tuple[str, ...]) -> int | None:
    for side, group in enumerate(_DIRECTIONS):
        if words and all(w in group for w in words):
            return side
    return None


def side_of(words: tuple[str, ...]) -> int | None:
    """The end of a movement a name is on (0: where it starts, ``from``, ``sender``,
    ``departure_time``; 1: where it ends, ``to``, ``recipient``, ``arrival_time``), or
    ``None`` when it names neither or both."""
    sides = {i for i, group in enumerate(_SIDES) if set(words) & group}
    return sides.pop() if len(sides) == 1 else None


@lru_cache(maxsize=NAMES_KEPT)
def name_score(arg: tuple[str, ...], path: tuple[tuple[str, ...], ...]) -> float:
    """How well an argument's field name (its words) fits a field path (the words of each
    segment, outermost first): 1 exact, 0 unrelated."""
    if not arg or not path:
        return 0.0
    last = path[-1]
    whole = tuple(w for segment in path for w in segment)
    if arg in (whole, last) or "".join(arg) in ("".join(whole), "".join(last)):
        # ``call_sign`` ↔ ``callsign``: one name written as one word or two.
        return 1.0
    if _core(arg) in (_core(last), _core(whole)):
        return 0.9
    for start in range(len(path)):
        suffix = tuple(w for segment in path[start:] for w in segment)
        if arg == suffix or _core(arg) == _core(suffix):
            return 0.85
    side = _direction(arg)
    if side is not None and _direction(last) == side:
        return 0.8
    if tuple(map(stem, arg)) == tuple(map(stem, last)):
        # ``arriving_until`` ↔ ``Arrival``: one word, as a verb and as a noun.
        return 0.7
    shared = set(_core(arg)) & set(_core(last)) - _FUNCTION_WORDS
    if shared and (set(arg) <= set(whole) or set(last) <= set(arg)):
        return 0.6
    return 0.0
