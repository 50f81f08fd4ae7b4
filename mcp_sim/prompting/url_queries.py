"""A request's path and URL query string read as operands: the collection it names and the
fields its parameters constrain.

REST front ends over databases take one string that is a path and a query string rather
than one argument per field: PostgREST's ``/orders?status=eq.paid&total=gte.100&name=ilike.*x*
&id=in.(1,2)&select=*,customer:customers(*)&order=created_at.desc&limit=20``, OData's
``/Products?$filter=Price gt 20 and Category eq 'Books'&$top=5``, a plain
``/users?role=admin&page=2``. They share one structure, read here whatever the service: the
path's last segment names the records (``orders``; a key in parentheses after it,
``Products(5)``, names one of them), each parameter ``field=value`` constrains its field, and
a value written ``operator.operand`` says how (PostgREST's vocabulary: ``eq``, ``neq``,
``gt``, ``gte``, ``lt``, ``lte``, ``like``/``ilike`` with ``*`` or ``%`` as wildcards, so a
pattern fixing its start is a prefix and one fixing a middle a part, ``in.(a,b)`` any of a
list, ``is.true``, ``cs.{a}`` a list holding a value, ``fts`` words, each maybe behind
``not.``; ``and=(f.op.v,...)`` groups operands). A parameter whose name is a query's own
(``$filter``, ``$search``, ``q``) holds an expression read by
:func:`~mcp_sim.prompting.query_operands.query_operands`; the others of the ``$`` family
(``$top``, ``$orderby``) and ``select``, ``order``, ``limit``, ``offset`` shape the answer
and constrain nothing (``select``'s embedded resources, ``customer:customers(*)``, name the
collections whose linked records the answer shows: they are given as values that name
collections).

The result is plain ``(field, op, value)`` triples in the operand vocabulary of
:mod:`mcp_sim.prompting.query_operands` (``eq``, ``ne``, ``min``, ``max``, ``prefix``,
``contains``, ``match``, ``text``; a value naming a collection has no field), and the
expressions it holds, for that module to read; this one knows nothing of it, so either can
change alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

_PARAMETER = r"[A-Za-z_$][\w.$-]*=[^&\n]*"
_URL_QUERY = re.compile(
    rf"^(?P<path>/?(?:(?!://)[^\s?&=])*\?)?(?P<query>{_PARAMETER}(?:&{_PARAMETER})*)&?$", re.DOTALL
)
_OPERATOR = re.compile(
    r"^(?P<not>not\.)?(?P<op>eq|neq|gt|gte|lt|lte|like|ilike|in|is|cs|cd|ov|fts|plfts|phfts|"
    r"wfts|match|imatch)\.(?P<operand>.*)$",
    re.DOTALL,
)
"""A PostgREST value: an operator, maybe negated, then its operand after a dot."""
_SIMPLE = {"eq": "eq", "neq": "ne", "gt": "min", "gte": "min", "lt": "max", "lte": "max"}
_NEGATED = {"eq": "ne", "ne": "eq"}
_EXPRESSIONS = frozenset(["$filter", "$search", "filter", "q", "query", "search", "where"])
"""Parameters holding an expression of their own (OData's ``$filter=Price gt 20``)."""
_SHAPING = frozenset(["select", "order", "limit", "offset", "columns", "on_conflict"])
"""PostgREST's parameters that shape the answer (``$``-prefixed ones do so in OData)."""
_EMBEDDED = re.compile(
    r"(?:^|[,(])\s*(?:[\w-]+:)?(?P<name>[A-Za-z_][\w-]*)(?:![\w-]+)?\s*\((?!\s*\))"
)
"""A resource embedded by ``select`` (``customer:customers(*)``, ``items!inner(id)``); not an
aggregate function, whose parentheses are empty (``count()``)."""
_KEYED = re.compile(r"^(?P<name>[^()]+)\((?P<key>[^()]*)\)$")
"""A path segment naming one record by key in parentheses (OData's ``Products(5)``)."""


@dataclass(frozen=True)
class UrlQuery:
    """A path and query string read (see the module)."""

    operands: tuple[tuple[str, str, Any], ...]
    """``(field, op, value)`` per constraint; a field left empty for a value naming records
    or a collection."""
    expressions: tuple[str, ...]
    """Expressions the parameters hold, to be read as queries of their own."""
    resource: str = ""
    """The collection the path names (its last segment; empty: none)."""
    embedded: tuple[str, ...] = ()
    """The resources ``select`` embeds, outermost first."""


def url_query(text: str) -> UrlQuery | None:
    """``text`` read as a path and query string (see the module); ``None`` when it is none: it
    has neither a path before ``?``, nor two parameters, nor an operator or expression."""
    match = _URL_QUERY.match(text.strip())
    if match is None:
        return None
    parameters = [p.partition("=") for p in match["query"].split("&") if p]
    pairs = [(name, unquote(value)) for name, _, value in parameters]
    operated = any(_OPERATOR.match(v) or n in _EXPRESSIONS for n, v in pairs)
    if match["path"] is None and len(pairs) < 2 and not operated:
        return None
    found: list[tuple[str, str, Any]] = _path_names(match["path"] or "")
    expressions: list[str] = []
    embedded: list[str] = []
    for name, value in pairs:
        if name in _EXPRESSIONS:
            expressions.append(value)
        elif name == "select":
            resources = [m["name"] for m in _EMBEDDED.finditer(value)]
            embedded += resources
            found += [("", "eq", resource) for resource in resources]
        elif name in ("and", "not.and"):
            found += _grouped(value) if name == "and" else []
        elif name in _SHAPING or name.startswith("$") or name in ("or", "not.or"):
            # An ``or`` group meets any of its branches: no one of them constrains.
            continue
        else:
            found += _parameter(name, value)
    resource = str(found[0][2]) if match["path"] and found else ""
    return UrlQuery(tuple(found), tuple(expressions), resource, tuple(embedded))


def _path_names(path: str) -> list[tuple[str, str, Any]]:
    """The records a path names: its last segment's collection, and the key in parentheses
    after it (``/Products(5)``)."""
    segments = [s for s in unquote(path.rstrip("?")).split("/") if s]
    if not segments:
        return []
    last = segments[-1]
    keyed = _KEYED.match(last)
    if keyed is None:
        return [("", "eq", last)]
    key = keyed["key"].strip().strip("'\"")
    return [("", "eq", keyed["name"])] + ([("", "eq", key)] if key else [])


def _grouped(value: str) -> list[tuple[str, str, Any]]:
    """The operands of an ``and=(f.op.v,g.op.w)`` group."""
    found: list[tuple[str, str, Any]] = []
    for part in split_top(value.strip()[1:-1] if value.startswith("(") else value):
        field, _, condition = part.partition(".")
        found += _parameter(field, condition) if condition else []
    return found


def _parameter(field: str, value: str) -> list[tuple[str, str, Any]]:
    """One filter parameter as operands: PostgREST's ``op.operand``, else an equality."""
    match = _OPERATOR.match(value)
    if match is None:
        return [(field, "eq", value)] if value else []
    op, operand, negated = match["op"], match["operand"], bool(match["not"])
    found: list[tuple[str, str, Any]]
    if op in _SIMPLE:
        found = [(field, _SIMPLE[op], operand)]
    elif op in ("like", "ilike", "match", "imatch"):
        found = _pattern(field, operand)
    elif op == "in":
        values = [v.strip().strip('"') for v in split_top(operand.strip("()"))]
        found = [(field, "eq", values)] if values else []
    elif op == "is":
        truth = {"true": True, "false": False}.get(operand.lower())
        found = [] if truth is None else [(field, "eq", truth)]
    elif op in ("cs", "ov"):
        values = [v.strip().strip('"') for v in operand.strip("{}[]").split(",") if v.strip()]
        found = [(field, "match", values[0] if len(values) == 1 else values)] if values else []
    elif op.endswith("fts"):
        found = [(field, "match", operand.split(":", 1)[-1].strip("()"))]
    else:
        found = []  # ``cd`` (contained in): what a field may hold, too loose to select by
    if negated:
        return [(f, _NEGATED[o], v) for f, o, v in found if o in _NEGATED]
    return found


def _pattern(field: str, pattern: str) -> list[tuple[str, str, Any]]:
    """A ``like`` pattern as the constraint it amounts to: a literal start a prefix, a
    literal middle a part, no wildcard an equality."""
    parts = [p for p in re.split(r"[*%]+", pattern) if p]
    if not parts:
        return []
    if len(parts) == 1 and parts[0] == pattern:
        return [(field, "eq", pattern)]
    if pattern.startswith(parts[0]):
        return [(field, "prefix", parts[0])]
    return [(field, "contains", max(parts, key=len))]


def split_top(text: str) -> list[str]:
    """``text`` split at the commas outside parentheses and quotes."""
    parts, depth, start, quoted = [], 0, 0, False
    for n, char in enumerate(text):
        quoted = not quoted if char == '"' else quoted
        depth += {"(": 1, ")": -1}.get(char, 0) if not quoted else 0
        if char == "," and depth == 0 and not quoted:
            parts.append(text[start:n])
            start = n + 1
    return [p.strip() for p in [*parts, text[start:]] if p.strip()]
