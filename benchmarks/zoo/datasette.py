"""``datasette``: a museum's collection database published with Datasette. The state is the
SQLite database as ``sqlite3 .dump`` writes it (a list of SQL statements, one a line: each
table's ``CREATE TABLE`` naming its columns, then its rows as ``INSERT INTO ... VALUES(...)``
lines of positional values); tools are Datasette's JSON API: a table's rows (as arrays under a
``columns`` list) filtered by ``column__op`` arguments, with ``_sort``, ``_col``, ``_facet``
(counts per value, foreign keys labelled) and ``_labels`` (foreign keys expanded to
``{"value", "label"}`` from the other table); a row by primary key; read-only SQL (joins and
``group by``); and the write API's ``-/update`` and ``-/insert``, which change the dump's
lines."""

from __future__ import annotations

import random
from typing import Any

from benchmarks.zoo.datasette_api import (
    execute_sql,
    get_row,
    insert_row,
    table_of,
    table_rows,
    update_row,
)
from benchmarks.zoo.datasette_db import CREDITS, DEPARTMENTS, MEDIA, NATIONALITIES, database
from benchmarks.zoo.kit import FIRST, LAST, Planned, State, Tool, note_tool, prop
from benchmarks.zoo.shape import Shape

TABLE = prop("string", "Table name.", enum=["objects", "artists", "departments"])
PK = prop("integer", "Primary key (id).")
COLUMNS = ["id", "accession_number", "title", "artist_id", "department_id", "year", "medium"]
COLUMNS += ["height_cm", "width_cm", "on_view", "acquired", "credit_line"]


def _row(values: list[Any]) -> dict[str, Any]:
    return dict(zip(COLUMNS, values, strict=True))


def _filters(rng: random.Random, row: dict[str, Any]) -> list[tuple[str, Any]]:
    options = [
        ("department_id__exact", row["department_id"]),
        ("medium__exact", row["medium"]),
        ("on_view__exact", row["on_view"]),
        ("year__gte", row["year"] - rng.randint(0, 10)),
        ("year__lte", row["year"] + rng.randint(0, 10)),
        ("title__contains", rng.choice(row["title"].split())),
        ("height_cm__lt", float(int(row["height_cm"]) + 5)),
        ("acquired__startswith", row["acquired"][:4]),
        ("artist_id__exact", row["artist_id"]),
    ]
    rng.shuffle(options)
    return options


class Datasette(Shape):
    name = "datasette"
    title = "Collections assistant over a museum's Datasette"
    description = (
        "The Harrowby Museum's collection database (collection.db, SQLite) as published with "
        "Datasette: objects, artists and departments. Errors are text starting with 'Error:'."
    )
    note = ("add_note", "note")

    def build(self, rng: random.Random, target_bytes: int) -> State:
        return database(rng, target_bytes)

    def tools(self) -> list[Tool]:
        return [
            Tool(
                "table_rows",
                "GET /collection/{table}.json: rows (arrays, in the order of columns) of the "
                "collection database's table, 100 a page unless _size says; filters as "
                "column__op (exact, not, gt, gte, lt, lte, contains, startswith).",
                {
                    "table": TABLE,
                    "filters": prop("object", "column__op: value, e.g. year__gte: 1900."),
                    "_col": prop("array", "Columns to show.", items={"type": "string"}),
                    "_sort": prop("string", "Column to sort by."),
                    "_sort_desc": prop("string", "Column to sort by, descending."),
                    "_facet": prop("array", "Columns to facet by.", items={"type": "string"}),
                    "_labels": prop("boolean", "Expand foreign keys to their labels."),
                    "_size": prop("integer", "Rows per page (0 for facets only)."),
                },
                table_rows,
                ("table",),
            ),
            Tool(
                "get_row",
                "GET /collection/{table}/{pk}.json: one row.",
                {"table": TABLE, "pk": PK, "_labels": prop("boolean", "Expand foreign keys.")},
                get_row,
                ("table", "pk"),
            ),
            Tool(
                "execute_sql",
                "GET /collection.json?sql=: a read-only SQL query (SQLite).",
                {"sql": prop("string", "A SELECT statement.")},
                execute_sql,
                ("sql",),
            ),
            Tool(
                "update_row",
                "POST /collection/{table}/{pk}/-/update: set columns of a row.",
                {"table": TABLE, "pk": PK, "update": prop("object", "Columns to set.")}
                | {"return": prop("boolean", "Answer with the updated row.")},
                update_row,
                ("table", "pk", "update"),
                effect="write",
            ),
            Tool(
                "insert_row",
                "POST /collection/{table}/-/insert: add a row (id assigned).",
                {"table": TABLE, "row": prop("object", "Column values.")}
                | {"return": prop("boolean", "Answer with the inserted row.")},
                insert_row,
                ("table", "row"),
                effect="write",
            ),
            note_tool("add_note", "note", "Add a note to the registrar's log (answers nothing)."),
        ]

    def lookup(self, rng: random.Random, state: State) -> Planned:
        table = rng.choice(["objects", "objects", "objects", "artists"])
        pk = rng.choice(table_of(state, table))[0]
        return Planned("lookup", "get_row", {"table": table, "pk": pk})

    def nested_lookup(self, rng: random.Random, state: State) -> Planned:
        row = _row(rng.choice(table_of(state, "objects")))
        shown = rng.sample(COLUMNS[2:], rng.randint(2, 4))
        args = {"table": "objects", "filters": {"accession_number__exact": row["accession_number"]}}
        return Planned("nested_lookup", "table_rows", args | {"_col": shown})

    def search(self, rng: random.Random, state: State) -> Planned:
        rows = [_row(r) for r in table_of(state, "objects")]
        row = rng.choice(rows)
        wanted, chosen = rng.randint(1, 4), {}
        for key, value in _filters(rng, row):
            chosen[key] = value
            args = {"table": "objects", "filters": chosen, "_size": 0}
            if (
                len(chosen) >= wanted
                and table_rows(state, args)[0]["filtered_table_rows_count"] <= 20
            ):
                break
        args = {"table": "objects", "filters": chosen, "_size": 20}
        if rng.random() < 0.3:
            args[rng.choice(["_sort", "_sort_desc"])] = rng.choice(
                ["year", "height_cm", "acquired"]
            )
        return Planned("search", "table_rows", args)

    def join(self, rng: random.Random, state: State) -> Planned:
        row = _row(rng.choice(table_of(state, "objects")))
        if rng.random() < 0.5:
            args = {"table": "objects", "filters": {"artist_id__exact": row["artist_id"]}}
            return Planned("join", "table_rows", args | {"_labels": True, "_size": 20})
        nationality = rng.choice(NATIONALITIES)
        sql = (
            "select o.accession_number, o.title, o.year, a.name as artist from objects o "
            f"join artists a on a.id = o.artist_id where a.nationality = '{nationality}' "
            f"and o.department_id = {row['department_id']} and o.year >= {row['year'] - 5} "
            "order by o.year, o.id limit 20"
        )
        return Planned("join", "execute_sql", {"sql": sql})

    def aggregate(self, rng: random.Random, state: State) -> Planned:
        if rng.random() < 0.5:
            filters: dict[str, Any] = rng.choice(
                [{"on_view__exact": 1}, {"medium__exact": rng.choice(MEDIA)}, {"year__lt": 1900}]
            )
            facet = rng.choice(["department_id", "medium", "on_view"])
            args = {"table": "objects", "filters": filters, "_facet": [facet], "_size": 0}
            return Planned("aggregate", "table_rows", args)
        since = rng.randint(1960, 2015)
        sql = (
            "select d.name as department, count(*) as objects, sum(o.on_view) as on_view, "
            "round(avg(o.height_cm), 1) as mean_height_cm from objects o join departments d "
            f"on d.id = o.department_id where o.acquired >= '{since}-01-01' "
            "group by d.name order by d.name"
        )
        return Planned("aggregate", "execute_sql", {"sql": sql})

    def write(self, rng: random.Random, state: State) -> tuple[Planned, Planned]:
        rows = table_of(state, "objects")
        if rng.random() < 0.6:
            row = _row(rng.choice(rows))
            update: dict[str, Any] = rng.choice(
                [
                    {"on_view": 1 - row["on_view"]},
                    {"department_id": rng.randint(1, len(DEPARTMENTS))},
                    {"title": f"{row['title']} (Study)"},
                ]
            )
            args = {"table": "objects", "pk": row["id"], "update": update, "return": True}
            read = {"table": "objects", "pk": row["id"]}
            return Planned("write", "update_row", args), Planned(
                "read_after_write", "get_row", read
            )
        artist = rng.choice(table_of(state, "artists"))[0]
        number = f"2026.{rng.randint(1, 60)}.{len(rows) + 1}"
        new: dict[str, Any] = {
            "accession_number": number,
            "title": f"Untitled ({rng.choice(MEDIA).lower()})",
        }
        new |= {"artist_id": artist, "department_id": rng.randint(1, len(DEPARTMENTS))}
        new |= {"year": rng.randint(1950, 2025), "medium": rng.choice(MEDIA), "on_view": 0}
        new |= {"acquired": "2026-11-20"}
        new["credit_line"] = (
            f"{rng.choice(CREDITS)} {rng.choice(FIRST)} {rng.choice(LAST)} Foundation"
        )
        read = {"table": "objects", "filters": {"accession_number__exact": number}}
        args = {"table": "objects", "row": new, "return": rng.random() < 0.5}
        return Planned("write", "insert_row", args), Planned("read_after_write", "table_rows", read)

    def no_match(self, rng: random.Random, state: State) -> Planned:
        filters = rng.choice(
            [{"title__contains": rng.choice(["Zeppelin", "Quasar", "Nebula"])}, {"year__gt": 2030}]
        )
        return Planned("empty", "table_rows", {"table": "objects", "filters": filters, "_size": 20})
