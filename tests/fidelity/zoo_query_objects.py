"""Reading a nested query object as its family means it, apart from the tools' code: whether a
record (as the service answers it) meets an Elasticsearch ``bool`` query, a MongoDB filter
document, a GraphQL / Hasura / Prisma ``where`` object or a list of filters, each term's value
read from the record by the path the term names (``details.hull``) and compared by
:func:`holds`."""

from __future__ import annotations

import re
from typing import Any

from benchmarks.zoo.random_shapes.query_objects import QueryStyle

WHERE_OPS = {
    "eq": "eq", "ne": "ne", "in": "in", "gte": "ge", "lte": "le",  # graphql
    "_eq": "eq", "_neq": "ne", "_in": "in", "_gte": "ge", "_lte": "le",  # hasura
    "equals": "eq", "not": "ne",  # prisma
}  # fmt: skip
LIST_OPS = {"=": "eq", "!=": "ne", ">=": "ge", "<=": "le", "neq": "ne", "gte": "ge", "lte": "le"}
LIST_OPS |= {"eq": "eq", "in": "in", "starts_with": "prefix", "startswith": "prefix"}


def holds(op: str, actual: Any, wanted: Any) -> bool:
    """Whether a record's value ``actual`` meets a search argument's ``wanted`` under ``op``,
    as the state says, not as the tools' code does."""
    if actual is None:
        return False
    if op == "eq":
        return str(actual) == str(wanted)
    if op == "ne":
        return bool(actual != wanted)
    if op == "in":
        return actual in wanted
    if op == "ge":
        return bool(actual >= wanted)
    if op == "le":
        return bool(actual <= wanted)
    assert op == "prefix", op
    return str(actual).lower().startswith(str(wanted).lower())


def at(record: dict[str, Any], name: str) -> Any:
    """The value at a dotted path (``.keyword`` sub-fields are the field itself)."""
    value: Any = record
    for part in name.removesuffix(".keyword").split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return value


def _unlike(absent_matches: bool, actual: Any, wanted: Any) -> bool:
    return absent_matches if actual is None else holds("ne", actual, wanted)


def _elastic(body: dict[str, Any], record: dict[str, Any]) -> bool:
    held = body.get("query", {}).get("bool", {})

    def clause(c: dict[str, Any]) -> bool:
        ((kind, inner),) = c.items()
        ((name, value),) = inner.items()
        actual = at(record, name)
        if kind == "range":
            return all(holds({"gte": "ge", "lte": "le"}[b], actual, v) for b, v in value.items())
        value = value["value"] if isinstance(value, dict) else value
        return holds({"term": "eq", "terms": "in", "prefix": "prefix"}[kind], actual, value)

    kept = all(clause(c) for c in [*held.get("filter", []), *held.get("must", [])])
    # A document lacking the field is not excluded by a term on it.
    return kept and not any(clause(c) for c in held.get("must_not", []))


def _mongo(document: dict[str, Any], record: dict[str, Any]) -> bool:
    for name, cond in document.items():
        if name == "$and":
            if not all(_mongo(part, record) for part in cond):
                return False
            continue
        actual = at(record, name)
        if not isinstance(cond, dict):
            cond = {"$eq": cond}
        for op, value in cond.items():
            if op == "$regex":
                flags = re.IGNORECASE if "i" in cond.get("$options", "") else 0
                ok = actual is not None and re.search(value, str(actual), flags) is not None
            elif op == "$ne":
                ok = _unlike(True, actual, value)
            else:
                ok = op == "$options" or holds(
                    op[1:].replace("gte", "ge").replace("lte", "le"), actual, value
                )
            if not ok:
                return False
    return True


def _where(held: dict[str, Any], record: Any) -> bool:
    for key, value in held.items():
        if key in ("AND", "_and"):
            if not all(_where(part, record) for part in value):
                return False
        elif key in ("startsWith", "_ilike"):
            if not holds("prefix", record, str(value).removesuffix("%")):
                return False
        elif key in WHERE_OPS:
            if not holds(WHERE_OPS[key], record, value):
                return False
        elif key != "mode":
            inner = record.get(key) if isinstance(record, dict) else None
            if not _where(value, inner):
                return False
    return True


def _listed(style: QueryStyle, held: Any, record: dict[str, Any]) -> bool:
    if style.family == "hubspot":
        hubspot = {"EQ": "eq", "NEQ": "ne", "GTE": "ge", "LTE": "le"}

        def one(f: dict[str, Any]) -> bool:
            actual, op = at(record, f["propertyName"]), f["operator"]
            if op == "IN":
                return holds("in", actual, f["values"])
            if op == "CONTAINS_TOKEN":
                return holds("prefix", actual, f["value"].rstrip("*"))
            return holds(hubspot[op], actual, f["value"])

        return any(all(one(f) for f in group["filters"]) for group in held["filterGroups"])
    for f in held:
        name, op, value = f.values()
        if not holds(LIST_OPS[op], at(record, name), value):
            return False
    return True


def meets_query(style: QueryStyle, held: Any, record: dict[str, Any]) -> bool:
    """Whether ``record`` meets the query object ``held`` of ``style``'s family."""
    if style.family == "elastic":
        return _elastic(held, record)
    if style.family == "mongo":
        return _mongo(held, record)
    if style.family in ("filters", "hubspot"):
        return _listed(style, held, record)
    return _where(held, record)
