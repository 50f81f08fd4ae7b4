"""SOQL as the ``salesforce`` shape's REST API runs it: a field list with parent relationship
paths (``Account.Name``, ``Owner.Email``) and child subqueries (``(SELECT Name FROM
Opportunities)``), a ``WHERE`` of conditions joined by ``AND`` (``=``, ``!=``, ``<``, ``<=``,
``>``, ``>=``, ``LIKE`` with ``%``; text in single quotes, dates bare), ``ORDER BY`` and
``LIMIT``; aggregate queries answer ``AggregateResult`` records with ``expr0``, ``expr1``
for unaliased aggregates."""

from __future__ import annotations

import re
from typing import Any

from benchmarks.zoo.kit import State, ToolError
from benchmarks.zoo.salesforce_org import records, url

PARENTS = {"Account": ("AccountId", "Account"), "Owner": ("OwnerId", "User")}
CHILDREN = {"Contacts": ("Contact", "AccountId"), "Opportunities": ("Opportunity", "AccountId")}
CONDITION = re.compile(r"^([\w.]+)\s*(!=|<=|>=|=|<|>|\sLIKE\s)\s*(.+)$", re.IGNORECASE)


def _by_id(state: State, kind: str) -> dict[str, dict[str, Any]]:
    return {r["Id"]: r for r in records(state, kind)}


def _value(state: State, record: dict[str, Any], path: str) -> Any:
    if "." not in path:
        return record.get(path)
    head, rest = path.split(".", 1)
    if head not in PARENTS:
        raise ToolError(f"INVALID_FIELD: Didn't understand relationship '{head}'")
    key, kind = PARENTS[head]
    parent = _by_id(state, kind).get(record.get(key) or "")
    return None if parent is None else _value(state, parent, rest)


def _literal(text: str) -> Any:
    text = text.strip()
    if text.startswith("'") and text.endswith("'"):
        return text[1:-1].replace("\\'", "'")
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    if text.lower() == "null":
        return None
    if re.fullmatch(r"-?\d+(\.\d+)?", text):
        return float(text)
    return text  # a date or datetime literal


def _meets(actual: Any, op: str, wanted: Any) -> bool:
    op = op.strip().upper()
    if op == "=":
        return bool(actual == wanted)
    if op == "!=":
        return bool(actual != wanted)
    if op == "LIKE":
        pattern = "^" + re.escape(str(wanted)).replace("%", ".*") + "$"
        return actual is not None and re.match(pattern, str(actual), re.IGNORECASE) is not None
    if actual is None:
        return False
    compare = {"<": actual < wanted, "<=": actual <= wanted, ">": actual > wanted}
    return bool(compare.get(op, actual >= wanted))


def where(state: State, rows: list[dict[str, Any]], clause: str | None) -> list[dict[str, Any]]:
    if not clause:
        return rows
    tests = []
    for part in re.split(r"\s+AND\s+", clause.strip(), flags=re.IGNORECASE):
        found = CONDITION.match(part.strip())
        if not found:
            raise ToolError(f"MALFORMED_QUERY: unexpected token: '{part.strip()}'")
        tests.append((found.group(1), found.group(2), _literal(found.group(3))))
    return [r for r in rows if all(_meets(_value(state, r, f), op, v) for f, op, v in tests)]


def _split(fields: list[str]) -> list[str]:
    return [f.strip() for f in fields if f.strip()]


def shape_record(
    state: State, kind: str, record: dict[str, Any], fields: list[str]
) -> dict[str, Any]:
    """A record as SOQL answers it: ``attributes``, then the fields asked for in order, a
    parent path nested under its relationship, a subquery as a ``{"totalSize", "done",
    "records"}`` of its own (``null`` when it finds nothing)."""
    out: dict[str, Any] = {"attributes": {"type": kind, "url": url(kind, record["Id"])}}
    for field in _split(fields):
        sub = re.fullmatch(r"\(\s*SELECT\s+(.+?)\s+FROM\s+(\w+)\s*\)", field, re.IGNORECASE)
        if sub:
            name = sub.group(2)
            if name not in CHILDREN:
                raise ToolError(f"INVALID_TYPE: Didn't understand relationship '{name}'")
            child, key = CHILDREN[name]
            rows = [r for r in records(state, child) if r.get(key) == record["Id"]]
            inner = sub.group(1).split(",")
            shaped = [shape_record(state, child, r, inner) for r in rows]
            out[name] = (
                {"totalSize": len(shaped), "done": True, "records": shaped} if shaped else None
            )
        elif "." in field:
            head, rest = field.split(".", 1)
            key, parent_kind = PARENTS.get(head, ("", ""))
            if not key:
                raise ToolError(f"INVALID_FIELD: Didn't understand relationship '{head}'")
            parent = _by_id(state, parent_kind).get(record.get(key) or "")
            if parent is None:
                out[head] = None
                continue
            nested = out.get(head) or {
                "attributes": {"type": parent_kind, "url": url(parent_kind, parent["Id"])}
            }
            nested[rest] = _value(state, parent, rest)
            out[head] = nested
        elif field not in record:
            raise ToolError(f"INVALID_FIELD: No such column '{field}' on entity '{kind}'")
        else:
            out[field] = record[field]
    return out


def _object(state: State, kind: str) -> list[dict[str, Any]]:
    if kind not in state:
        raise ToolError(f"INVALID_TYPE: sObject type '{kind}' is not supported.")
    return records(state, kind)


def query(state: State, args: dict[str, Any]) -> dict[str, Any]:
    kind = args["objectName"]
    rows = where(state, _object(state, kind), args.get("whereClause"))
    if args.get("orderBy"):
        field, _, direction = args["orderBy"].partition(" ")
        rows = sorted(
            rows, key=lambda r: (_value(state, r, field) is None, _value(state, r, field) or 0)
        )
        rows = rows[::-1] if direction.strip().upper() == "DESC" else rows
    rows = rows[: args.get("limit", 2000)]
    shaped = [shape_record(state, kind, r, args["fields"]) for r in rows]
    return {"totalSize": len(shaped), "done": True, "records": shaped}


AGGREGATE = re.compile(r"^(COUNT|SUM|AVG|MIN|MAX)\((\w*)\)(?:\s+(\w+))?$", re.IGNORECASE)


def aggregate(state: State, args: dict[str, Any]) -> dict[str, Any]:
    kind = args["objectName"]
    rows = where(state, _object(state, kind), args.get("whereClause"))
    groups: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    keys = args.get("groupByFields", [])
    for row in rows:
        groups.setdefault(tuple(_value(state, row, k) for k in keys), []).append(row)
    answers = []
    for group, members in sorted(groups.items(), key=lambda kv: [str(v) for v in kv[0]]):
        out: dict[str, Any] = {"attributes": {"type": "AggregateResult"}}
        unnamed = 0
        for field in _split(args["selectFields"]):
            found = AGGREGATE.match(field)
            if not found:
                out[field.split(".")[-1]] = group[keys.index(field)]
                continue
            op, target, alias = found.group(1).upper(), found.group(2), found.group(3)
            if not alias:
                alias, unnamed = f"expr{unnamed}", unnamed + 1
            values = [r[target] for r in members if target and r.get(target) is not None]
            out[alias] = _summary(op, values, len(members))
        answers.append(out)
    return {"totalSize": len(answers), "done": True, "records": answers}


def _summary(op: str, values: list[Any], count: int) -> Any:
    if op == "COUNT":
        return count if not values else len(values)
    if not values:
        return None
    if op == "SUM":
        return float(sum(values))
    if op == "AVG":
        return sum(values) / len(values)
    return min(values) if op == "MIN" else max(values)
