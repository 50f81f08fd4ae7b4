"""The ``cassandra`` shape's CQL: the statements the keyspace is asked with, parsed (``SELECT``
of columns or aggregates with ``WHERE`` restrictions of ``?`` markers, ``IN``, ``CONTAINS``,
``LIMIT`` and ``ALLOW FILTERING``; ``UPDATE`` and ``INSERT``) and run over the merged SSTables,
rows answered as ``SELECT JSON`` renders them (timestamps as Cassandra's text, sets as lists,
maps as objects); a write is flushed to a new SSTable of its own."""

from __future__ import annotations

import re
from typing import Any

from benchmarks.zoo.cassandra_sstables import TABLES, merged, partition, sstables, write_time
from benchmarks.zoo.kit import Answer, State, ToolError, pointer

SELECT = re.compile(
    r"SELECT (?P<cols>.+?) FROM (?P<table>\w+)(?: WHERE (?P<where>.+?))?"
    r"(?: LIMIT (?P<limit>\d+))?(?P<allow> ALLOW FILTERING)?$"
)
TERM = re.compile(r"(\w+) (=|>=|<=|<|>|IN|CONTAINS) \?")
AGGREGATE = re.compile(r"(count|sum|avg|min|max)\((\*|\w+)\)")
UPDATE = re.compile(r"UPDATE (\w+) SET (.+?) WHERE (\w+) = \?( IF EXISTS)?$")
INSERT = re.compile(r"INSERT INTO (\w+) \(([\w, ]+)\) VALUES \(([?, ]+)\)$")
WRITE_TIME = "2025-07-01 09:00:00.000Z"


def _invalid(message: str) -> ToolError:
    return ToolError(f'InvalidRequest: code=2200 [Invalid query] message="{message}"')


def _test(op: str, actual: Any, wanted: Any) -> bool:
    if op == "IN":
        return actual in wanted
    if op == "CONTAINS":
        return isinstance(actual, list | dict) and wanted in actual
    if actual is None:
        return False
    return bool(
        {
            "=": actual == wanted,
            ">=": actual >= wanted,
            "<=": actual <= wanted,
            "<": actual < wanted,
            ">": actual > wanted,
        }[op]
    )


def _restrictions(
    table: str, where: str | None, values: list[Any], allow: bool
) -> list[tuple[str, str, Any]]:
    spec = TABLES[table]
    terms = TERM.findall(where or "")
    if len(terms) != len(values):
        raise _invalid(
            f"There were {len(terms)} markers(?) in CQL but {len(values)} bound variables"
        )
    keyed = {name for name, op in terms if op in ("=", "IN")}
    whole_key = set(spec["partition"]) <= keyed
    for name, _ in terms:
        on_key = name in spec["partition"] or (whole_key and name in spec["clustering"])
        if not on_key and not allow:
            raise _invalid(
                "Cannot execute this query as it might involve data filtering and thus "
                "may have unpredictable performance. If you want to execute this query "
                "despite the performance unpredictability, use ALLOW FILTERING"
            )
    return [(name, op, value) for (name, op), value in zip(terms, values, strict=True)]


def _aggregated(columns: list[str], rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    answer: dict[str, Any] = {}
    for column in columns:
        match = AGGREGATE.fullmatch(column)
        if match is None:
            # A plain column beside aggregates: its value in the first row.
            answer[column] = rows[0].get(column) if rows else None
            continue
        func, arg = match.groups()
        if func == "count":
            answer["count"] = sum(1 for r in rows if arg == "*" or r.get(arg) is not None)
            continue
        present = [r[arg] for r in rows if r.get(arg) is not None]
        name = f"system.{func}({arg})"
        if func == "sum":
            answer[name] = sum(present)
        elif func == "avg":
            # avg of an int column is an int in CQL (the sum divided, truncated).
            answer[name] = int(sum(present) / len(present)) if present else 0
        else:
            answer[name] = (min if func == "min" else max)(present) if present else None
    return [answer]


def select(state: State, query: str, values: list[Any]) -> list[dict[str, Any]]:
    match = SELECT.fullmatch(query)
    if match is None or match["table"] not in TABLES:
        raise ToolError(f"SyntaxException: line 1:0 no viable alternative at input {query[:30]!r}")
    table = match["table"]
    terms = _restrictions(table, match["where"], values, bool(match["allow"]))
    rows = [
        r for r in merged(state, table) if all(_test(op, r.get(name), v) for name, op, v in terms)
    ]
    columns = [c.strip() for c in match["cols"].split(",")]
    if any(AGGREGATE.fullmatch(c) for c in columns):
        return _aggregated(columns, rows)
    if match["limit"]:
        rows = rows[: int(match["limit"])]
    if columns == ["*"]:
        return rows
    return [{c: r.get(c) for c in columns} for r in rows]


def _flush(state: State, table: str, key: str, row: dict[str, Any]) -> list[dict[str, Any]]:
    """The patch of a flush: a new SSTable holding the written row's partition."""
    files = sstables(state, table)
    name = f"nb-{len(files) + 1}-big-Data.db"
    path = pointer("streamly", TABLES[table]["dir"], name)
    return [{"op": "add", "path": path, "value": [partition(key, [row])]}]


def _cells(assignments: dict[str, Any], stamp: str | None) -> list[dict[str, Any]]:
    """A write's cells; each with its own ``tstamp`` unless the row's liveness holds it
    (``sstabledump`` shows a cell's timestamp only where it differs from the row's)."""
    own = {} if stamp is None else {"tstamp": stamp}
    cells: list[dict[str, Any]] = []
    for name, value in sorted(assignments.items()):
        if isinstance(value, list):
            cells += [{"name": name, "path": [v], "value": ""} | own for v in value]
        else:
            cells.append({"name": name, "value": value} | own)
    return cells


def write(state: State, query: str, values: list[Any]) -> Answer:
    stamp = write_time(WRITE_TIME, sum(len(f) for f in state["streamly"].values()))
    if (match := UPDATE.fullmatch(query)) is not None:
        table, sets, key_name, if_exists = match.groups()
        if (
            table not in TABLES
            or [key_name] != TABLES[table]["partition"]
            or TABLES[table]["clustering"]
        ):
            raise _invalid("Some partition key parts are missing")
        names = re.findall(r"(\w+) = (?:\1 \+ )?\?", sets)
        *assigned, key = values
        exists = any(r[key_name] == key for r in merged(state, table))
        if if_exists and not exists:
            return [{"[applied]": False}], []
        updated = {
            "type": "row",
            "position": 0,
            "cells": _cells(dict(zip(names, assigned, strict=True)), stamp),
        }
        return ([{"[applied]": True}] if if_exists else []), _flush(state, table, key, updated)
    if (match := INSERT.fullmatch(query)) is not None:
        table, names_text, _ = match.groups()
        names = [n.strip() for n in names_text.split(",")]
        given = dict(zip(names, values, strict=True))
        spec = TABLES[table]
        key = given.pop(spec["partition"][0])
        clustering = [given.pop(c) for c in spec["clustering"]]
        row: dict[str, Any] = {"type": "row", "position": 0}
        row |= {"clustering": clustering} if clustering else {}
        row |= {"liveness_info": {"tstamp": stamp}, "cells": _cells(given, None)}
        return [], _flush(state, table, key, row)
    raise ToolError(f"SyntaxException: line 1:0 no viable alternative at input {query[:30]!r}")
