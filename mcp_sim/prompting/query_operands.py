"""A query string read as operands: the fields it constrains and the values it gives.

Many tools take one string in a query language rather than one argument per field: a mail
search's ``from:alice@x.org subject:"quarterly report" -in:trash``, an issue tracker's
``repo:acme/api is:open label:bug created:<=2025-01-25``, a SPARQL graph pattern
``?item wdt:P31 wd:Q5 . FILTER(?born >= 1950)``, a metrics selector
``rate(http_requests_total{job="api",code=~"5.."}[5m])``, ``status = "In Progress" AND
assignee = currentUser()``, ``status:active AND price:[10 TO 20]``, ``Price gt 20 and
Category eq 'Books'``, RediSearch's ``@country:{SE|NO} @level:[(20 +inf] -@platform:{ps5}
@name:ana*``. One reader serves them all, by their common structure, not per
language: an operand is a field, an operator and a value (``field:value``, ``field=value``,
``field op value`` with ``=``, ``!=``, ``>``, ``>=``, ``<``, ``<=``, ``=~``, ``~`` or the
words ``eq``, ``ne``, ``gt``, ``ge``, ``lt``, ``le``; a range ``field:[a TO b]`` or ``@field:[a b]``
(``(a`` excludes its end, ``inf`` leaves it open); tags ``@field:{a|b}`` and values joined by
commas ``field:a,b``, any of them; a value ending in ``*`` is a prefix), a negation
(``-field:value``, ``NOT field:value``, ``!=``) rules its value out, a graph pattern's triple
(``?item wdt:P31 wd:Q5``) is its predicate's field and its object's value, and what stands
alone is a free term: in a flat query (no braces or parentheses: a mail or issue search) a
bare word is a word to find in the text, elsewhere a free term is a value (a metric's name,
a quoted literal). Left out: operators and keywords (``AND``, ``SELECT``), a query's
variables (``?item``, kept as a field's name when compared), function names (``rate(``,
``YEAR(``), calls whose arguments are names (``on(instance)``, ``currentUser()``),
durations in brackets (``[5m]``) and punctuation.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from mcp_sim.prompting.url_queries import url_query

MOST_CHARS = 4000
"""A longer text is a document, not a query."""
_CALL_OF_NAMES = re.compile(
    r"\b[A-Za-z_]\w*\s*\(\s*(?:[A-Za-z_][\w.]*(?:\s*,\s*[A-Za-z_][\w.]*)*)?\s*\)"
)
"""A call whose arguments are bare names (``on(instance)``, ``by (job)``, ``currentUser()``):
it names labels or computes a value; it gives none."""
_URL = re.compile(r"\b[A-Za-z][\w+.-]*://\S*")
"""An address is one value, not a query (``?a=b`` in it is no operand)."""
_KEYWORDS = frozenset(["and", "or", "not", "to", "in", "by"])
"""Words of a query's syntax, in whatever case they are written."""
_FUNCTION = re.compile(r"\b[A-Za-z_]\w*\s*\(")
_FIELD = r"[A-Za-z_?$@][\w.\-/?$@]*"
_RANGE = re.compile(
    rf"(?P<neg>-|!)?(?P<field>{_FIELD}):\s*[\[{{]\s*(?P<low>\S+)\s+TO\s+"
    r"(?P<high>[^\]}\s]+)\s*[\]}]"
)
_BOUNDS = re.compile(
    rf"(?P<neg>-)?@(?P<field>{_FIELD}):\s*\[\s*\(?(?P<low>[^\s\]]+)\s+\(?(?P<high>[^\s\]]+)\s*\]"
)
"""A numeric range without ``TO`` (RediSearch's ``@level:[20 (40]``): its field is marked ``@``."""
_TAGS = re.compile(rf"(?P<neg>-)?@(?P<field>{_FIELD}):\s*\{{(?P<tags>[^}}]*)\}}")
"""Tags, any of them (``@country:{SE|NO}``, ``-@platform:{ps5}`` none of them)."""
_ANY_OF = re.compile(
    rf"(?<![\w.\-/:@])(?P<neg>-)?(?P<field>{_FIELD}):(?P<values>[\w.\-]+(?:,[\w.\-]+)+)(?=\s|$)"
)
"""Values joined by commas alone (``livery:blue,red``): any of them (a quoted "Smith, John"
is one value)."""
_MARKED_FIELD = re.compile(rf"(?:^|\s)-?@{_FIELD}:")
"""A field marked ``@`` (``@name:ana*``): a query even with one operand."""
_OPEN_ENDS = frozenset(["*", "inf", "+inf", "-inf"])
_PREFIXED = r"[A-Za-z][\w-]*:[A-Za-z_][\w-]*"
_TRIPLE = re.compile(
    rf"(?P<subject>[?$]\w+|{_PREFIXED}|;)\s+(?P<predicate>{_PREFIXED})\s+"
    rf"(?P<object>[?$]\w+|{_PREFIXED}|\"[^\"]*\"|'[^']*'|[\w.+-]+)"
)
"""A triple of a graph pattern whose predicate is a prefixed name (``?item wdt:P31 wd:Q5``;
``;`` continues the subject before it)."""
_BRACKETS = re.compile(r"\[[^\]]*\]")
"""A bracketed group that is no range (a duration ``[5m]``, a slice): no value."""
_VALUE = (
    r"(?:\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*')(?:\^\^[\w:#]+|@[A-Za-z-]+)?"
    r"|[^\s,;(){}\[\]\"'\x00]+|\x00"
)
"""A value: a quoted literal (with its datatype or language tag), a bare run, or the place of
a call that computes one (``currentUser()``)."""
_OPERAND = re.compile(
    rf"(?<![\w.\-/:])(?P<neg>-|!)?(?P<field>{_FIELD})"
    rf"(?:(?P<colon>:(?!//)(?:[<>]=?)?)|\s*(?P<op>==|!=|=~|!~|>=|<=|=|>|<|~)\s*"
    rf"|\s+(?P<word>eq|ne|gt|ge|lt|le)\s+)"
    rf"(?P<value>{_VALUE})(?P<star>(?<=[\"'])\*)?"
)
"""An operand: a field, how it is compared, and its value; a quoted value followed by ``*``
(``label:"Onyx "*``) is a prefix with its spaces, as a bare ``ana*`` is one without."""
_TERM = re.compile(rf"(?P<neg>(?<![\w.])-)?(?P<value>{_VALUE})")
_TYPED = re.compile(r"^(\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*')(?:\^\^\S+|@[A-Za-z-]+)$")
"""A literal with a datatype or a language tag (``"2020-01-01"^^xsd:dateTime``)."""
_OPS = {
    ":": "match",
    "=": "eq",
    "==": "eq",
    "eq": "eq",
    "!=": "ne",
    "ne": "ne",
    ">": "min",
    ">=": "min",
    "gt": "min",
    "ge": "min",
    ":>": "min",
    ":>=": "min",
    "<": "max",
    "<=": "max",
    "lt": "max",
    "le": "max",
    ":<": "max",
    ":<=": "max",
    "=~": "regex",
    "!~": "unlike",
    "~": "contains",
}
_NEGATED = {"match": "ne", "eq": "ne", "ne": "eq"}
_SLASHED_DAY = re.compile(r"\d{4}/\d{2}/\d{2}")
"""A day written with slashes (``after:2025/01/03``), read as the same day with dashes."""
_NOT_BEFORE = re.compile(r"(?:^|[^\w])NOT\s*$")
_REGEX_MARKS = re.compile(r"[\\^$*+?()\[\]{}|]")
_SQL = re.compile(r"(?is)\s*(?:select|with)\b.*\bfrom\b")
"""A SQL statement: its bare words are names and keywords, whatever their case."""


@dataclass(frozen=True)
class Operand:
    """One constraint of a query: ``field`` (empty for a free term), ``op`` (``match`` for
    ``field:value``, whose value may be part of the field's; ``eq``, ``ne``, ``min``, ``max``,
    ``prefix``, ``contains``; ``text`` for words to find, ``literal`` for a value that may
    name records but constrains no field) and the value as written (a list: any of them; a
    number as typed where an object gives it, see :mod:`mcp_sim.prompting.query_objects`)."""

    field: str
    op: str
    value: str | int | float | list[Any]


QUERIES_KEPT = 1 << 10
"""Queries whose reading is remembered: a call's query is read once per collection searched."""


@lru_cache(maxsize=QUERIES_KEPT)
def query_operands(text: str) -> tuple[Operand, ...] | None:
    """``text`` read as a query (see the module); ``None`` when it is no query: a plain value,
    prose, a time, an address. A query has an operand on a field and another term beside it,
    or is a selector in braces."""
    if len(text) > MOST_CHARS or not text.strip():
        return None
    url = url_query(text)
    if url is not None:  # a path and query string (PostgREST's, OData's)
        inner = (query_operands(e) or (Operand("", "text", e),) for e in url.expressions)
        found = [Operand(*triple) for triple in url.operands]
        return tuple(found + [o for operands in inner for o in operands]) or None
    flat = not any(mark in text for mark in "{}()")
    sql = _SQL.match(text) is not None
    rest = _CALL_OF_NAMES.sub(" \x00 ", _URL.sub(" ", text))
    found = _ranges(rest) + _tags(rest) + _any_of(rest)
    rest = _ANY_OF.sub(" ", _TAGS.sub(" ", _BOUNDS.sub(" ", _RANGE.sub(" ", rest))))
    flat = flat or not any(mark in rest for mark in "{}()")
    if not flat:
        found += _triples(rest)
        rest = _TRIPLE.sub(" ", rest)
    rest = _BRACKETS.sub(" ", rest)
    rest = _FUNCTION.sub(" ", rest).replace("(", " ").replace(")", " ")
    fielded, at = len(found), 0
    for match in _OPERAND.finditer(rest):
        found += _free(rest[at : match.start()], flat, sql)
        at = match.end()
        operand = _operand(match, negated=bool(match["neg"]) or _after_not(rest, match.start()))
        fielded += 1
        found += [operand] if operand is not None else []
    found += _free(rest[at:], flat, sql)
    alone = "{" in text or sql or _MARKED_FIELD.search(text) is not None
    if not fielded or (len(found) < 2 and not alone):
        return None
    return tuple(found)


def _ranges(text: str) -> list[Operand]:
    """The bounds of each range (``price:[10 TO 20]``, ``@price:[10 (20]``; ``*`` or ``inf``
    leaves an end open), in the order written."""
    found: list[tuple[int, Operand]] = []
    for match in [*_RANGE.finditer(text), *_BOUNDS.finditer(text)]:
        if not match["neg"]:
            field = _field(match["field"])
            ends = (("min", match["low"]), ("max", match["high"]))
            found += [
                (match.start(), Operand(field, op, _literal(v)))
                for op, v in ends
                if v.lower() not in _OPEN_ENDS
            ]
    return [operand for _, operand in sorted(found, key=lambda pair: pair[0])]


def _tags(text: str) -> list[Operand]:
    """Each tag list's values, any of them (one alone as itself); negated, none of them."""
    found: list[Operand] = []
    for match in _TAGS.finditer(text):
        tags = [t.strip() for t in match["tags"].split("|") if t.strip()]
        if tags:
            value: str | list[Any] = tags[0] if len(tags) == 1 else tags
            found.append(Operand(_field(match["field"]), "ne" if match["neg"] else "eq", value))
    return found


def _any_of(text: str) -> list[Operand]:
    """Each field's values joined by commas, any of them; negated, none of them."""
    found: list[Operand] = []
    for match in _ANY_OF.finditer(text):
        values: list[Any] = match["values"].split(",")
        found.append(Operand(_field(match["field"]), "ne" if match["neg"] else "eq", values))
    return found


def _triples(text: str) -> list[Operand]:
    """A graph pattern's triples (``?item wdt:P27 wd:Q30``): the predicate's name is the
    field, the object its value (none when it is a variable); a subject written out
    (``wd:Q42 wdt:P108 ?employer``) names a record, constraining no field."""
    found: list[Operand] = []
    for match in _TRIPLE.finditer(text):
        subject, field, value = match["subject"], _local(match["predicate"]), match["object"]
        if subject[0] not in "?$;":
            found.append(Operand("", "literal", _local(subject)))
        if value[0] in "\"'":
            found.append(Operand("", "literal", _literal(value)))
        elif value[0] not in "?$":
            found.append(Operand(field, "match", _local(value)))
    return found


def _operand(match: re.Match[str], negated: bool) -> Operand | None:
    mark = match["colon"] or match["op"] or match["word"]
    op = _OPS.get(mark.lower(), "match")
    field, value = _field(match["field"]), _literal(match["value"])
    if value == "\x00":
        return None
    if op in ("match", "eq") and match["star"] and value:
        op = "prefix"  # ``label:"Onyx "*``: a quoted prefix
    elif op in ("match", "eq") and len(value) > 1 and value.endswith("*") and "*" not in value[:-1]:
        op, value = "prefix", value[:-1]  # ``name:ana*``: a wildcard after a prefix
    if op == "regex":
        return regex_operand(field, value, negated)
    if op == "unlike":
        return None  # what a pattern rules out is too loose to exclude by
    if op == "ne" and match["neg"]:
        return None  # a doubled negation says too little to bother
    if negated:
        if op not in _NEGATED:
            return None  # a bound ruled out is a bound the other way: too rare to read
        op = _NEGATED[op]
    return Operand(field, op, value)


def regex_operand(field: str, pattern: str, negated: bool) -> Operand | None:
    """A regular expression as the constraint it amounts to: alternatives of literals any of
    them, a literal followed by anything its prefix, else its longest literal run a part."""
    if negated:
        return None
    options = pattern.split("|")
    if len(options) > 1 and not any(_REGEX_MARKS.search(o) for o in options):
        return Operand(field, "eq", options)
    head = re.split(r"\.[*+]|\.+$", pattern, maxsplit=1)[0].rstrip(".")
    if head and not _REGEX_MARKS.search(head) and head != pattern:
        return Operand(field, "prefix", head)
    if not _REGEX_MARKS.search(pattern):
        return Operand(field, "eq", pattern)
    runs = [r for r in re.split(r"\\.|[.^$*+?()\[\]{}|]", pattern) if len(r) >= 3]
    return Operand(field, "contains", max(runs, key=len)) if runs else None


def _free(span: str, flat: bool, sql: bool = False) -> list[Operand]:
    """The free terms of ``span`` (no field named): quoted literals and bare words, not
    keywords written in capitals (``AND``, ``SELECT``), variables or negated terms; a bare
    word of a ``flat`` query is a word to find; of a ``sql`` statement, a name or a keyword
    in any case (``o.title``, ``from``, ``limit 20``): none."""
    found: list[Operand] = []
    for match in _TERM.finditer(span):
        raw = match["value"]
        quoted = raw[0] in "\"'"
        value = _literal(raw)
        if match["neg"] or _after_not(span, match.start()) or not value:
            continue
        if not quoted and (
            raw.isupper()
            or raw.lower() in _KEYWORDS
            or raw[0] in "?$\x00"
            or not any(c.isalnum() for c in raw)
            or sql
        ):
            continue
        if flat and not sql:
            found.append(Operand("", "text" if quoted or value.isalpha() else "eq", value))
        else:
            # A literal of an expression (a language tag, a function's argument) names
            # records at most; a bare name (a metric's) is a value some field holds.
            found.append(Operand("", "literal" if quoted else "eq", value))
    return found


def _after_not(text: str, at: int) -> bool:
    return _NOT_BEFORE.search(text[:at]) is not None


def _field(name: str) -> str:
    return name.lstrip("?$@")


def _local(name: str) -> str:
    """A prefixed name's local part (``Q5`` of ``wd:Q5``)."""
    return name.split(":", 1)[1] if re.fullmatch(_PREFIXED, name) else name


def _literal(raw: str) -> str:
    if _SLASHED_DAY.fullmatch(raw):
        return raw.replace("/", "-")
    typed = _TYPED.match(raw)
    if typed:
        raw = typed[1]
    if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "\"'":
        return raw[1:-1].replace(f"\\{raw[0]}", raw[0]).strip(" ,")
    return raw
