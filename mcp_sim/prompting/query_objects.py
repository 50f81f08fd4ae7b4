"""A query written as a nested object, read as operands: the fields it constrains and the
values it gives.

Many tools take their constraints as one JSON object rather than one argument per field: an
Elasticsearch body ``{"query": {"bool": {"filter": [{"term": {"status": "open"}}, {"range":
{"price": {"gte": 10}}}]}}}``, a MongoDB filter ``{"status": "open", "price": {"$lt": 50},
"tags": {"$in": ["a", "b"]}}``, a GraphQL where-input ``{"price": {"_gt": 10}, "author":
{"name": {"startsWith": "A"}}}``, a list of filters ``[{"field": "price", "op": ">=",
"value": 10}]``. One reader serves them all, by their common structure, not per service:

- an **operator key** compares the field above it (``{"price": {"$gte": 10}}``); its
  spellings across services are one vocabulary (``eq``, ``_eq``, ``$eq``, ``equals``; ``gte``,
  ``$gte``, ``greaterThanOrEqual``; ``in``, ``$in``; ``startsWith``, ``prefix``; a regular
  expression or a ``LIKE``/wildcard pattern as the prefix or part it amounts to);
- a **search clause** names its field inside (``{"term": {"status": "open"}}``,
  ``{"range": {"price": {"gte": 10}}}``, ``{"ids": {"values": [...]}}``);
- a **filter entry** names its field, operator and value beside one another
  (``{"propertyName": "price", "operator": "GTE", "value": 5}``);
- any other key is a **field**, nested keys its path (``author.name``; a sub-field such as
  ``city.keyword`` is its field's own text), a value under it an equality;
- **groupings** (``bool``, ``must``, ``filter``, ``AND``, ``$and``; ``should``, ``OR``) are read
  through, the branches of an ``OR`` on one field as one "any of"; a **negation**
  (``must_not``, ``$not``, ``NOT``, ``none``) rules out the values it gives (bounds ruled out
  are left out: too rare to read).

A request's options beside its query (``size``, ``from``, ``sort``, ``aggs``, ``_source``) are
no constraints. An object in which no operator, clause, filter entry or grouping is found is
no query (:func:`object_operands` says ``None``): its entries are read as arguments, as ever.
"""

from __future__ import annotations

import re
from typing import Any

from mcp_sim.prompting.field_names import read_argument, tokens
from mcp_sim.prompting.query_operands import Operand, query_operands, regex_operand

_COMPARISONS = {
    **dict.fromkeys(["eq", "equals", "equal", "is", "exact", "iexact", "=", "=="], "eq"),
    **dict.fromkeys(["ne", "neq", "notequal", "notequals", "isnot", "!=", "<>"], "ne"),
    **dict.fromkeys(["gt", "gte", "ge", "greaterthan", "greaterthanorequal", ">", ">="], "min"),
    **dict.fromkeys(["greaterthanorequalto", "greaterorequal", "atleast", "after"], "min"),
    **dict.fromkeys(["lt", "lte", "le", "lessthan", "lessthanorequal", "<", "<="], "max"),
    **dict.fromkeys(["lessthanorequalto", "lessorequal", "atmost", "before"], "max"),
    **dict.fromkeys(["in", "anyof", "isanyof", "oneof", "isoneof", "all"], "eq"),
    **dict.fromkeys(["nin", "notin", "noneof", "isnoneof"], "ne"),
    **dict.fromkeys(["startswith", "istartswith", "beginswith", "prefix"], "prefix"),
    **dict.fromkeys(["contains", "icontains", "containstoken", "includes", "has"], "contains"),
    **dict.fromkeys(["endswith", "iendswith", "substring"], "contains"),
    **dict.fromkeys(["like", "ilike", "wildcard"], "pattern"),
    **dict.fromkeys(["regex", "iregex", "regexp", "matches", "similar"], "regex"),
    **dict.fromkeys(["search", "text", "match", "matchphrase", "fuzzy"], "match"),
    **dict.fromkeys(["between", "range", "inrange"], "between"),
    **dict.fromkeys(["not"], "not"),
}
"""Operators as services spell them (see :func:`_spelling`) → what they test: ``pattern`` a
``LIKE``/wildcard pattern, ``between`` two bounds, ``not`` a negation (of a value or of the
operators under it)."""
_OPTIONS = frozenset(
    ["mode", "options", "boost", "format", "timezone", "caseinsensitive", "analyzer", "operator"]
)
_OPTIONS |= frozenset(["exists", "isnull", "null", "type", "size", "mod", "relation"])
"""Keys beside operators that say how to compare (``"mode": "insensitive"``), or operators
testing what no value says (``$exists``, ``_is_null``): no constraint read."""
_CLAUSES = {
    "term": "eq",
    "terms": "eq",
    "match": "match",
    "matchphrase": "match",
    "matchboolprefix": "match",
    "fuzzy": "match",
    "matchphraseprefix": "prefix",
    "prefix": "prefix",
    "wildcard": "pattern",
    "regexp": "regex",
    "range": "range",
}
"""Search clauses that name their field inside (``{"term": {"status": "open"}}``)."""
_ALL_OF = frozenset(["and", "must", "bool", "constantscore", "elemmatch", "some", "every"])
_ALL_OF |= frozenset(["nested", "haschild", "hasparent", "dismax", "functionscore", "positive"])
_WRAPPERS = frozenset(["query", "where", "filter", "criteria", "condition"])
"""Words of keys holding a query (``query``, ``post_filter``, ``filterGroups``), read through
as a grouping is but no sign of one (a plain
``{"filters": {"city": "Oslo"}}`` is read as arguments, as ever); beside one, a request's
other entries are its options (``size``, ``from``, ``sort``, ``_source``), no fields."""
_ANY_OF = frozenset(["or", "should", "any", "anyof"])
_RANGE_ENDS = {"from": "gte", "to": "lte"}
_WHOLE_CLAUSES = frozenset(["ids", "querystring", "simplequerystring", "multimatch"])
_NONE_OF = frozenset(["mustnot", "nor", "none", "noneof", "not"])
_REQUEST_OPTIONS = frozenset(["aggs", "aggregations", "highlight", "collapse", "suggest"])
_REQUEST_OPTIONS |= frozenset(["scriptfields", "rescore", "minimumshouldmatch", "boost"])
_REQUEST_OPTIONS |= frozenset(["exists", "matchall", "matchnone", "script", "morelikethis"])
_REQUEST_OPTIONS |= frozenset(["geodistance", "geoboundingbox", "geoshape", "geopolygon"])
"""Keys that shape the answer or tune the scoring, and clauses testing what no value of a
field says (a field's presence, a place's distance): no constraint read."""
_ENTRY_FIELDS = ("field", "property", "propertyname", "column", "attribute", "fieldname", "member")
_LOOSE_ENTRY_FIELDS = ("name", "key", "path", "attr")
"""Keys naming a filter entry's field only beside an operator (``{"name": "Bo", "value": 5}``
is a record more likely than a filter)."""
_ENTRY_OPS = ("op", "operator", "comparison", "cmp", "condition", "operation")
_ENTRY_VALUES = ("value", "values", "val", "highvalue")
_SUBFIELDS = frozenset(["keyword", "raw", "exact", "sort", "lowercase", "normalized", "folded"])
"""Last segments of a field path naming a field's other indexing (``city.keyword``)."""


def _spelling(key: str) -> str:
    """A key as the vocabularies write it: ``$gte``, ``_gte`` and ``GTE`` are ``gte``,
    ``must_not`` and ``mustNot`` are ``mustnot``."""
    stripped = key.lstrip("$_")
    if not stripped:
        return key
    return stripped.replace("_", "").replace("-", "").replace(" ", "").casefold()


def object_operands(value: Any, name: str = "") -> tuple[Operand, ...] | None:
    """``value`` (an argument's object or list of objects) read as a query (see the module);
    ``name``: the argument's, the field an object of operators alone compares
    (``created={"gte": 1700000000}``), or a grouping (``AND=[...]``). ``None`` when it is no
    query, or gives no operand."""
    reader = _Reader()
    if name and (_spelling(name) in _ALL_OF | _ANY_OF | _NONE_OF or _wraps(name, value)):
        reader.object({name: value}, "", negated=False)
    elif isinstance(value, dict) and value and _operators_only(value):
        if not name:
            return None
        reader.compare(name, value, negated=False)
    else:
        reader.walk(value, "", negated=False)
    if not reader.structured or not reader.found or reader.looked_up:
        return None
    unique = [o for i, o in enumerate(reader.found) if o not in reader.found[:i]]
    return tuple(unique)


def _operators_only(node: dict[str, Any]) -> bool:
    spelled = [_spelling(k) for k in node]
    return any(s in _COMPARISONS for s in spelled) and all(
        s in _COMPARISONS or s in _OPTIONS for s in spelled
    )


def _wraps(key: str, value: Any) -> bool:
    """Whether ``key`` holds a query (see :data:`_WRAPPERS`): not when its value compares it
    (a product's ``{"condition": {"$eq": "new"}}``)."""
    nested = isinstance(value, dict | list) and not _compares(value)
    return nested and bool(set(tokens(key)) & _WRAPPERS)


def _compares(value: Any) -> bool:
    return isinstance(value, dict) and bool(value) and _operators_only(value)


def _path(field: str, key: str) -> str:
    return f"{field}.{key}" if field else key


def _resolved(field: str) -> str:
    """``field`` without a sub-field's last segment (``address.city.keyword``)."""
    head, _, last = field.rpartition(".")
    return head if head and last.casefold() in _SUBFIELDS else field


class _Reader:
    """Walks a query object, gathering its operands."""

    def __init__(self) -> None:
        self.found: list[Operand] = []
        self.structured = False
        """Whether an operator, a clause, a filter entry or a grouping was seen."""
        self.looked_up = False
        """Whether a clause takes its values from another record (Elasticsearch's terms
        lookup ``{"terms": {"_id": {"index": "users", "id": "u1", "path": "saved"}}}``): the
        query is a join, which the key lookups answer by following the record it names; its
        other clauses alone would select far more records than it does."""

    def walk(self, node: Any, field: str, negated: bool) -> None:
        if isinstance(node, list):
            if node and all(not isinstance(v, dict | list) for v in node):
                self.add(field, "eq", node, negated)  # a field's list: any of its values
                return
            for item in node:
                self.walk(item, field, negated)
        elif isinstance(node, dict):
            self.object(node, field, negated)
        else:
            self.add(field, "eq", node, negated)

    def object(self, node: dict[str, Any], field: str, negated: bool) -> None:
        if field and _operators_only(node):
            self.compare(field, node, negated)
            return
        if self.entry(node, negated):
            return
        # A request holding its query under ``query``/``where``: its other entries are its
        # options (``size``, ``from``, ``sort``), no fields.
        request = any(_wraps(k, v) for k, v in node.items())
        for key, value in node.items():
            spelled = _spelling(key)
            nested = isinstance(value, dict | list)
            if spelled in _REQUEST_OPTIONS or (read_argument(key).control and not _compares(value)):
                continue
            if not field and spelled in _CLAUSES and isinstance(value, dict):
                self.structured = True
                self.clause(_CLAUSES[spelled], value, negated)
            elif not field and spelled in _WHOLE_CLAUSES:
                self.structured = True
                self.whole_clause(spelled, value, negated)
            elif _wraps(key, value):
                self.walk(value, field, negated)
            elif nested and spelled in _ANY_OF:
                self.structured = True
                self.any_of(value, field, negated)
            elif nested and spelled in _NONE_OF:
                self.structured = True
                self.walk(value, field, not negated)
            elif nested and spelled in _ALL_OF:
                self.structured = True
                self.walk(value, field, negated)
            elif not request:
                self.walk(value, _path(field, key), negated)

    def compare(self, field: str, node: dict[str, Any], negated: bool) -> None:
        """An object of operators on ``field`` (``{"$gte": 10, "$lt": 50}``)."""
        self.structured = True
        for key, value in node.items():
            op = _COMPARISONS.get(_spelling(key))
            if op is None:
                continue  # an option (``"mode": "insensitive"``)
            if isinstance(value, dict) and op in ("eq", "not"):
                # ``is``/``not`` of a relation or of operators: read under the field.
                self.walk(value, field, negated != (op == "not"))
            elif op == "not":
                self.add(field, "ne", value, negated)
            else:
                self.add(field, op, value, negated)

    def clause(self, op: str, body: dict[str, Any], negated: bool) -> None:
        """A search clause's fields, each with its value or its operators (``{"price":
        {"gte": 10}}``; ``{"title": {"query": "x"}}``; ``{"status": {"value": "open"}}``)."""
        for key, spec in body.items():
            if _spelling(key) in _OPTIONS or _spelling(key) in _REQUEST_OPTIONS:
                continue
            if op == "range":
                # An older range's ``from``/``to`` are its ``gte``/``lte``.
                ends: dict[str, Any] = spec if isinstance(spec, dict) else {}
                bounds = {_RANGE_ENDS.get(k, k): v for k, v in ends.items()}
                if bounds and _operators_only(bounds):
                    self.compare(key, bounds, negated)
            elif isinstance(spec, dict):
                # The value under ``value``/``query``; else the spec names where to read it.
                given = [spec[k] for k in ("value", "query", "values") if k in spec]
                if given:
                    self.add(key, op, given[0], negated)
                else:
                    self.looked_up = self.looked_up or not negated
            else:
                self.add(key, op, spec, negated)

    def whole_clause(self, kind: str, value: Any, negated: bool) -> None:
        """``ids`` (the records' own keys), or a query string inside the object."""
        if not isinstance(value, dict):
            return
        if kind == "ids":
            self.add("_id", "eq", value.get("values"), negated)
            return
        text = value.get("query")
        if kind == "multimatch":
            self.add("", "text", text, negated)
        elif isinstance(text, str) and not negated:
            self.found += query_operands(text) or [Operand("", "text", text)]

    def entry(self, node: dict[str, Any], negated: bool) -> bool:
        """A filter entry naming its field, operator and value beside one another; whether
        ``node`` is one."""
        keys = {_spelling(k): k for k in node}
        how = next((node[keys[k]] for k in _ENTRY_OPS if k in keys), None)
        fields = _ENTRY_FIELDS if how is None else _ENTRY_FIELDS + _LOOSE_ENTRY_FIELDS
        named = next((node[keys[k]] for k in fields if k in keys), None)
        given = [node[keys[k]] for k in _ENTRY_VALUES if k in keys]
        if not isinstance(named, str) or not given or not isinstance(how or "eq", str):
            return False
        spelled = str(how or "eq")
        op = _COMPARISONS.get(_spelling(spelled)) or _COMPARISONS.get(spelled.strip())
        if op is None and not _spelling(spelled).startswith(("not", "exist", "has", "is")):
            return False  # an operator of no vocabulary: maybe no filter entry after all
        self.structured = True
        if op is not None:
            # A range's two ends given apart (HubSpot's ``value`` and ``highValue``).
            value = given if op == "between" and len(given) > 1 else given[0]
            self.add(named, "ne" if op == "not" else op, value, negated)
        return True

    def any_of(self, branches: Any, field: str, negated: bool) -> None:
        """The branches of an ``OR``: when each gives one value of one field, one "any of"
        them; else each operand (a record meeting any ranks above one meeting none)."""
        reader = _Reader()
        reader.walk(branches, field, negated)
        self.structured = self.structured or reader.structured
        ops = {(o.field, o.op) for o in reader.found}
        if len(reader.found) > 1 and len(ops) == 1 and next(iter(ops))[1] in ("eq", "match"):
            values = [v for o in reader.found for v in _listed(o.value)]
            self.found.append(Operand(reader.found[0].field, "eq", values))
            return
        self.found += reader.found

    def add(self, field: str, op: str, value: Any, negated: bool) -> None:
        """One operand, as the constraint its operator amounts to (see :func:`_operand`)."""
        if value is None or isinstance(value, bool) or value in ("", []):
            return
        if isinstance(value, dict) or (
            isinstance(value, list) and any(isinstance(v, dict | list | bool) for v in value)
        ):
            return  # a shape, a list of pairs: no value written out
        if op == "between" and isinstance(value, list) and len(value) == 2:
            self.add(field, "min", value[0], negated)
            self.add(field, "max", value[1], negated)
            return
        operand = _operand(_resolved(field), op, value)
        if operand is not None and negated:
            operand = _negated(operand)
        if operand is not None:
            self.found.append(operand)


def _listed(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def _operand(field: str, op: str, value: Any) -> Operand | None:
    """The operand an operator on ``field`` amounts to: a pattern or an expression the value,
    prefix or part it fixes; nothing for a bound or a part given as a list."""
    if op == "contains" and isinstance(value, str) and "*" in value:
        op = "pattern"  # a token with wildcards (HubSpot's ``CONTAINS_TOKEN`` of ``Ab*``)
    if op == "pattern" and isinstance(value, str):
        return _like_operand(field, value)
    if op == "regex" and isinstance(value, str):
        return _regex_operand(field, value)
    if op in ("pattern", "regex", "between"):
        return None
    if op in ("min", "max", "prefix", "contains") and isinstance(value, list):
        return None
    return Operand(field, op, value)


_WILDCARDS = frozenset("%*_?")


def _like_operand(field: str, pattern: str) -> Operand | None:
    """A ``LIKE`` (``%``, ``_``) or wildcard (``*``, ``?``) pattern: the value when it has no
    wildcard, its head when one starts it (``Ab%``, ``Jo*n``), else its longest literal run."""
    runs = "".join("\x00" if c in _WILDCARDS else c for c in pattern).split("\x00")
    if len(runs) == 1:
        return Operand(field, "eq", pattern)
    if runs[0]:
        return Operand(field, "prefix", runs[0])
    longest = max(runs, key=len)
    return Operand(field, "contains", longest) if len(longest) >= 2 else None


def _regex_operand(field: str, pattern: str) -> Operand | None:
    """A regular expression, searched anywhere in the value unless anchored (``^Ab``: a
    prefix; ``^open$``: the value), its escaped marks literal (``^Sea\\ Breeze``); anything
    else as a query string's pattern reads."""
    body = pattern.removeprefix("^").removesuffix("$")
    if body and not any(c in _REGEX_MARKS for c in _ESCAPED.sub("", body)):
        literal = _ESCAPED.sub(r"\1", body)
        if pattern.startswith("^"):
            return Operand(field, "eq" if pattern.endswith("$") else "prefix", literal)
        return Operand(field, "contains", literal)
    return regex_operand(field, body, negated=False)


_ESCAPED = re.compile(r"\\(\W)")
"""A mark escaped to stand for itself (``\\.``, ``\\ ``)."""


_REGEX_MARKS = frozenset("\\^$*+?()[]{}|.")


def _negated(operand: Operand) -> Operand | None:
    """A value ruled out; a bound or a part ruled out is left out (too rare to read)."""
    flipped = {"eq": "ne", "match": "ne", "ne": "eq"}.get(operand.op)
    return None if flipped is None else Operand(operand.field, flipped, operand.value)
