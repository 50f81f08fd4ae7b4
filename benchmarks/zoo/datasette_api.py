"""Datasette's JSON API over the ``datasette`` shape's database, as Datasette 0.64 answers it
(rows as arrays beside a ``columns`` list, the default ``_shape``): a table's rows filtered by
``column__op`` arguments, sorted, faceted (``facet_results`` with a count and, for a foreign
key, the label of each value) and with foreign keys expanded to ``{"value", "label"}``
(``_labels``); a row by primary key; read-only SQL; and the 1.0 write API's ``-/update`` and
``-/insert``, which rewrite the dump's ``INSERT`` lines."""

from __future__ import annotations

import sqlite3
from typing import Any

from benchmarks.zoo.datasette_db import (
    FOREIGN,
    LABELS,
    TABLES,
    connect,
    insert,
    last_line,
    line_of,
    lines,
)
from benchmarks.zoo.kit import Answer, State, ToolError, pointer

DATABASE = "collection"
OPS = {"exact": "= ?", "not": "!= ?", "gt": "> ?", "gte": ">= ?", "lt": "< ?", "lte": "<= ?"}
OPS |= {"contains": "like ?", "startswith": "like ?"}


def _table(table: str) -> str:
    if table not in TABLES:
        raise ToolError(f"Table not found: {table}")
    return table


def _columns(db: sqlite3.Connection, table: str) -> list[str]:
    return [row[1] for row in db.execute(f"pragma table_info({table})")]


def _where(args: dict[str, Any], columns: list[str]) -> tuple[str, list[Any]]:
    """The SQL ``where`` of ``column__op`` filters and its parameters."""
    clauses: list[str] = []
    params: list[Any] = []
    for key, value in args.get("filters", {}).items():
        column, _, op = key.rpartition("__")
        if not column:
            column, op = key, "exact"
        if column not in columns or op not in OPS:
            raise ToolError(f"Invalid filter: {key}")
        clauses.append(f"[{column}] {OPS[op]}")
        params.append(
            f"%{value}%" if op == "contains" else f"{value}%" if op == "startswith" else value
        )
    where = f" where {' and '.join(clauses)}" if clauses else ""
    return where, params


def _labelled(db: sqlite3.Connection, columns: list[str], rows: list[list[Any]]) -> list[list[Any]]:
    out = [list(r) for r in rows]
    for i, column in enumerate(columns):
        if column not in FOREIGN:
            continue
        other, key = FOREIGN[column]
        names = dict(db.execute(f"select {key}, {LABELS[other]} from {other}").fetchall())
        for row in out:
            if row[i] is not None:
                row[i] = {"value": row[i], "label": names.get(row[i])}
    return out


def _facet(
    db: sqlite3.Connection, table: str, column: str, where: str, params: list[Any]
) -> dict[str, Any]:
    counts = db.execute(
        f"select [{column}], count(*) from {table}{where} group by [{column}] "
        f"order by count(*) desc, [{column}] limit 31",
        params,
    ).fetchall()
    labels: dict[Any, Any] = {}
    if column in FOREIGN:
        other, key = FOREIGN[column]
        labels = dict(db.execute(f"select {key}, {LABELS[other]} from {other}").fetchall())
    results = [
        {"value": value, "label": labels.get(value, value), "count": n, "selected": False}
        for value, n in counts[:30]
    ]
    return {"name": column, "type": "column", "results": results, "truncated": len(counts) > 30}


def table_rows(state: State, args: dict[str, Any]) -> Answer:
    table = _table(args["table"])
    db = connect(state)
    columns = _columns(db, table)
    where, params = _where(args, columns)
    shown = args.get("_col") or columns
    if any(c not in columns for c in shown):
        raise ToolError(f"Invalid _col: {', '.join(c for c in shown if c not in columns)}")
    picked = ["id", *(c for c in shown if c != "id")]
    order = "id"
    if "_sort" in args or "_sort_desc" in args:
        key = args.get("_sort") or args["_sort_desc"]
        order = f"[{key}]{' desc' if '_sort_desc' in args else ''}, id"
    size = args.get("_size", 100)
    rows = db.execute(
        f"select {', '.join(f'[{c}]' for c in picked)} from {table}{where} order by {order} "
        f"limit {size + 1}",
        params,
    ).fetchall()
    total = db.execute(f"select count(*) from {table}{where}", params).fetchone()[0]
    page = [list(r) for r in rows[:size]]
    expanded: list[Any] = []
    if args.get("_labels"):
        page = _labelled(db, picked, page)
        expanded = [
            [
                {"column": c, "other_table": FOREIGN[c][0], "other_column": FOREIGN[c][1]},
                LABELS[FOREIGN[c][0]],
            ]
            for c in picked
            if c in FOREIGN
        ]
    answer: dict[str, Any] = {"database": DATABASE, "table": table, "is_view": False}
    answer |= {"rows": page, "truncated": False}
    answer |= {"filtered_table_rows_count": total, "expanded_columns": expanded}
    answer |= {"columns": picked, "primary_keys": ["id"]}
    answer["facet_results"] = {
        c: _facet(db, table, c, where, params) for c in args.get("_facet", [])
    }
    answer["next"] = str(page[-1][0]) if page and len(rows) > size else None
    return answer, []


def get_row(state: State, args: dict[str, Any]) -> Answer:
    table = _table(args["table"])
    db = connect(state)
    columns = _columns(db, table)
    rows = [list(r) for r in db.execute(f"select * from {table} where id = ?", [args["pk"]])]
    if not rows:
        raise ToolError(f"Record not found: {args['pk']}")
    if args.get("_labels"):
        rows = _labelled(db, columns, rows)
    answer = {"database": DATABASE, "table": table, "rows": rows, "columns": columns}
    return answer | {"primary_keys": ["id"], "primary_key_values": [str(args["pk"])]}, []


def execute_sql(state: State, args: dict[str, Any]) -> Answer:
    sql = args["sql"]
    if not sql.lstrip().lower().startswith(("select", "with")):
        raise ToolError("Statement must be a SELECT")
    db = connect(state)
    try:
        cursor = db.execute(sql)
    except sqlite3.Error as error:
        raise ToolError(str(error)) from error
    rows = [list(r) for r in cursor.fetchmany(1001)]
    columns = [d[0] for d in cursor.description]
    return {
        "database": DATABASE,
        "rows": rows[:1000],
        "truncated": len(rows) > 1000,
        "columns": columns,
        "query": {"sql": sql, "params": {}},
        "error": None,
    }, []


def update_row(state: State, args: dict[str, Any]) -> Answer:
    table = _table(args["table"])
    db = connect(state)
    columns = _columns(db, table)
    bad = [c for c in args["update"] if c not in columns or c == "id"]
    if bad:
        raise ToolError(f"Invalid keys: {', '.join(bad)}")
    found = db.execute(f"select * from {table} where id = ?", [args["pk"]]).fetchone()
    if found is None:
        raise ToolError("Record not found")
    row = {c: v for c, v in zip(columns, found, strict=True)} | args["update"]
    n = line_of(state, table, args["pk"])
    patch = [
        {
            "op": "replace",
            "path": pointer("collection.db", n),
            "value": insert(table, list(row.values())),
        }
    ]
    answer: dict[str, Any] = {"ok": True}
    return (answer | {"row": row} if args.get("return") else answer), patch


def insert_row(state: State, args: dict[str, Any]) -> Answer:
    table = _table(args["table"])
    db = connect(state)
    columns = _columns(db, table)
    given = args["row"]
    bad = [c for c in given if c not in columns]
    if bad:
        raise ToolError(f"Invalid column: {', '.join(bad)}")
    pk = db.execute(f"select coalesce(max(id), 0) + 1 from {table}").fetchone()[0]
    row = {c: pk if c == "id" else given.get(c) for c in columns}
    at = last_line(state, table) + 1
    value = insert(table, list(row.values()))
    answer: dict[str, Any] = {"ok": True}
    patch = [{"op": "add", "path": pointer("collection.db", at), "value": value}]
    return (answer | {"rows": [row]} if args.get("return") else answer), patch


def table_of(state: State, table: str) -> list[list[Any]]:
    """The rows of a table (for the planners)."""
    db = connect(state)
    return [list(r) for r in db.execute(f"select * from {table} order by id")]


__all__ = ["execute_sql", "get_row", "insert_row", "lines", "table_of", "table_rows", "update_row"]
