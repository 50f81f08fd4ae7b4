"""Reading back the search constraints a nested query object holds (:mod:`.query_objects`):
the terms of an Elasticsearch ``bool`` query, a MongoDB filter document, a GraphQL ``where``
object and a list of filters, each as its family means it (an unknown clause is an error, as
the service's is)."""

from __future__ import annotations

import re
from typing import Any

from benchmarks.zoo.kit import ToolError
from benchmarks.zoo.random_shapes.query_objects import FILTER_KEYS, JOINED, QueryStyle, Term


def _path(name: str) -> tuple[str, ...]:
    return tuple(name.removesuffix(".keyword").split("."))


def _unknown(what: Any) -> ToolError:
    return ToolError(f"unsupported query clause {what!r}")


def _parse_elastic(query: dict[str, Any]) -> list[Term]:
    found: list[Term] = []
    held = query.get("bool", {})
    for group in ("filter", "must", "must_not"):
        for clause in held.get(group, []):
            ((kind, inner),) = clause.items()
            ((name, value),) = inner.items()
            if kind == "range":
                bounds = {"gte": "ge", "lte": "le"}
                if set(value) - set(bounds):
                    raise _unknown(clause)
                found += [(_path(name), bounds[b], v) for b, v in value.items()]
                continue
            if isinstance(value, dict):
                value = value["value"]
            op = {"term": "eq", "terms": "in", "prefix": "prefix"}.get(kind)
            if op is None or (group == "must_not" and kind != "term"):
                raise _unknown(clause)
            found.append((_path(name), "ne" if group == "must_not" else op, value))
    return found


def _parse_mongo(document: dict[str, Any]) -> list[Term]:
    found: list[Term] = []
    for part in document.get("$and", [document]):
        for name, cond in part.items():
            if name == "$and":
                continue
            if not (isinstance(cond, dict) and all(k.startswith("$") for k in cond)):
                found.append((_path(name), "eq", cond))
                continue
            for op, value in cond.items():
                if op == "$regex":
                    found.append((_path(name), "prefix", re.sub(r"\\(.)", r"\1", value[1:])))
                elif op != "$options":
                    named = {"$gte": "ge", "$lte": "le"}.get(op, op[1:])
                    if named not in ("eq", "ne", "in", "ge", "le"):
                        raise _unknown({name: cond})
                    found.append((_path(name), named, value))
    return found


def _parse_where(style: QueryStyle, where: dict[str, Any]) -> list[Term]:
    ops = {v: k for k, v in style.ops().items()}
    leaf_keys = {*ops, "startsWith", "_ilike", "mode"}
    found: list[Term] = []

    def walk(path: tuple[str, ...], held: dict[str, Any]) -> None:
        if path and set(held) <= leaf_keys:
            for op, value in held.items():
                if op in ("startsWith", "_ilike"):
                    found.append((path, "prefix", str(value).removesuffix("%")))
                elif op != "mode":
                    found.append((path, ops[op], value))
            return
        for key, value in held.items():
            if not isinstance(value, dict):
                raise _unknown({key: value})
            walk((*path, key), value)

    joined = JOINED[style.family]
    for part in where.get(joined, [where]):
        walk((), {k: v for k, v in part.items() if k != joined})
    return found


def _parse_filters(style: QueryStyle, held: Any) -> list[Term]:
    ops = {v: k for k, v in style.ops().items()}
    if style.family == "hubspot":
        found: list[Term] = []
        for group in held["filterGroups"]:
            for f in group["filters"]:
                if f["operator"] == "CONTAINS_TOKEN":
                    found.append((_path(f["propertyName"]), "prefix", f["value"].rstrip("*")))
                else:
                    value = f["values"] if f["operator"] == "IN" else f["value"]
                    found.append((_path(f["propertyName"]), ops[f["operator"]], value))
        return found
    field, cmp, val = FILTER_KEYS[style.spelling % len(FILTER_KEYS)]
    return [(_path(f[field]), ops[f[cmp]], f[val]) for f in held]


def parse(style: QueryStyle, held: Any) -> list[Term]:
    """The terms a query object of the style's family holds (an unknown clause is an error)."""
    try:
        if style.family == "elastic":
            return _parse_elastic(held.get("query", {}))
        if style.family == "mongo":
            return _parse_mongo(held)
        if style.family in ("filters", "hubspot"):
            return _parse_filters(style, held)
        return _parse_where(style, held)
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise ToolError(f"malformed query object: {error!r}") from error
