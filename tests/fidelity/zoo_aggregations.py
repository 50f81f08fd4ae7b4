"""Answering a family's aggregation request apart from the tools' code, to check them: SQL and
SOQL text run by SQLite over a table of the records; an Elasticsearch body, a MongoDB pipeline,
a Hasura query and Prisma's arguments by plain loops reading the request as the family means
it (filters by :func:`tests.fidelity.zoo_query_objects.meets_query`)."""

from __future__ import annotations

import math
import re
import sqlite3
from datetime import UTC, datetime
from typing import Any

from benchmarks.zoo.random_shapes.query_objects import QueryStyle
from tests.fidelity.zoo_query_objects import at, meets_query

Row = dict[str, Any]


def same(one: Any, other: Any) -> bool:
    """Equal, numbers of the same type and floats within rounding."""
    if isinstance(one, dict) and isinstance(other, dict):
        return one.keys() == other.keys() and all(same(one[k], other[k]) for k in one)
    if isinstance(one, list) and isinstance(other, list):
        return len(one) == len(other) and all(map(same, one, other))
    if isinstance(one, float) and isinstance(other, float):
        return math.isclose(one, other, rel_tol=1e-9, abs_tol=1e-9)
    return type(one) is type(other) and one == other


def sqlite_rows(text: str, table: str, rows: list[Row]) -> tuple[list[str], list[list[Any]]]:
    """SQL (or SOQL, rewritten to SQL) run over ``rows`` as ``table``: names and rows."""
    text = text.replace("COUNT(Id)", "COUNT(*)")
    text = re.sub(r"COUNT_DISTINCT\((\w+)\)", r"COUNT(DISTINCT \1)", text)
    names = sorted({k for r in rows for k in r})
    db = sqlite3.connect(":memory:")
    db.execute(f"CREATE TABLE {table} ({', '.join(names)})")
    marks = ", ".join("?" for _ in names)
    db.executemany(
        f"INSERT INTO {table} VALUES ({marks})", [[r.get(n) for n in names] for r in rows]
    )
    cursor = db.execute(text)
    return [d[0] for d in cursor.description], [list(r) for r in cursor.fetchall()]


def _present(docs: list[Row], field: str) -> list[Any]:
    return [v for d in docs if (v := at(d, field)) is not None]


def _es_metric(agg: dict[str, Any], docs: list[Row]) -> Any:
    ((op, inner),) = agg.items()
    values = _present(docs, inner["field"])
    if op == "value_count":
        return len(values)
    if op == "cardinality":
        return len(set(values))
    if op == "sum":
        return float(sum(values))
    if not values:
        return None
    return float(
        sum(values) / len(values) if op == "avg" else min(values) if op == "min" else max(values)
    )


def _es_buckets(agg: dict[str, Any], hits: list[Row]) -> dict[str, Any]:
    subs = agg.get("aggs", {})
    if "date_histogram" in agg:
        held = agg["date_histogram"]
        month = held["calendar_interval"] == "month"
        start = {
            d: datetime(int(d[:4]), int(d[5:7]) if month else 1, 1, tzinfo=UTC)
            for d in _present(hits, held["field"])
        }
        keys, buckets = sorted(set(start.values())), []
        day = keys[0] if keys else None
        while day is not None and day <= keys[-1]:
            buckets.append(day)
            up = month and day.month < 12
            day = datetime(day.year + (not up), day.month + 1 if up else 1, 1, tzinfo=UTC)
        out = []
        for key in buckets:
            docs = [h for h in hits if start.get(at(h, held["field"])) == key]
            out.append({"key_as_string": key.strftime("%Y-%m-%dT00:00:00.000Z"),
                        "key": int(key.timestamp() * 1000), "doc_count": len(docs)}
                       | {n: {"value": _es_metric(a, docs)} for n, a in subs.items()})  # fmt: skip
        return {"buckets": out}
    terms = agg["terms"]
    groups: dict[Any, list[Row]] = {}
    for h in hits:
        if (key := at(h, terms["field"])) is not None:
            groups.setdefault(key, []).append(h)
    ((by, way),) = terms.get("order", {"_count": "desc"}).items()
    items = sorted(groups.items())
    if by == "_key":
        items.sort(key=lambda kv: kv[0], reverse=way == "desc")
    else:

        def figure(kv: tuple[Any, list[Row]]) -> float:
            found = len(kv[1]) if by == "_count" else _es_metric(subs[by], kv[1])
            return -math.inf if found is None else float(found)

        items.sort(key=figure, reverse=way == "desc")
    shown = items[: terms.get("size", 10)]
    shown_buckets = [{"key": k, "doc_count": len(d)} | {n: {"value": _es_metric(a, d)} for n, a in subs.items()}
               for k, d in shown]  # fmt: skip
    other = sum(len(d) for _, d in items[len(shown) :])
    return {
        "doc_count_error_upper_bound": 0,
        "sum_other_doc_count": other,
        "buckets": shown_buckets,
    }


def elastic(body: dict[str, Any], records: list[Row]) -> tuple[int, dict[str, Any]]:
    """The total hits and the ``aggregations`` of a search body."""
    hits = [r for r in records if meets_query(QueryStyle("elastic", "b"), body, r)]
    out = {}
    for name, agg in body["aggs"].items():
        bucketed = {"terms", "date_histogram"} & set(agg)
        out[name] = _es_buckets(agg, hits) if bucketed else {"value": _es_metric(agg, hits)}
    return len(hits), out


def _accumulate(accumulator: dict[str, Any], docs: list[Row]) -> Any:
    ((op, value),) = accumulator.items()
    if op == "$sum" and value == 1:
        return len(docs)
    values = _present(docs, value[1:])
    if op == "$sum":
        return sum(values)
    if not values:
        return None
    return sum(values) / len(values) if op == "$avg" else (min if op == "$min" else max)(values)


def mongo(pipeline: list[dict[str, Any]], records: list[Row]) -> list[Row]:
    docs = records
    for stage in pipeline:
        ((kind, held),) = stage.items()
        if kind == "$match":
            docs = [d for d in docs if meets_query(QueryStyle("mongo", "f"), held, d)]
        elif kind == "$group":
            key = held["_id"]
            groups: dict[Any, list[Row]] = {}
            for d in docs:
                groups.setdefault(at(d, key[1:]) if key else None, []).append(d)
            docs = [{"_id": k} | {n: _accumulate(a, members)
                                  for n, a in held.items() if n != "_id"}
                    for k, members in groups.items()]  # fmt: skip
        elif kind == "$sort":
            for name, way in reversed(list(held.items())):

                def by(d: Row, n: str = name) -> tuple[bool, Any]:
                    return d[n] is not None, d[n]

                docs.sort(key=by, reverse=way == -1)
        else:
            docs = docs[:held]
    return docs


def _figures(rows: list[Row], chosen: dict[str, list[str]]) -> dict[str, Any]:
    """Hasura's and Prisma's figures: per operation, per column."""
    out: dict[str, Any] = {}
    for op, columns in chosen.items():
        out[op] = {}
        for column in columns:
            values = [r[column] for r in rows if r.get(column) is not None]
            if not values:
                out[op][column] = None
            elif op == "avg":
                out[op][column] = sum(values) / len(values)
            else:
                out[op][column] = (
                    sum(values) if op == "sum" else min(values) if op == "min" else max(values)
                )
    return out


def hasura(text: str, where: dict[str, Any], rows: list[Row]) -> dict[str, Any]:
    kept = [r for r in rows if meets_query(QueryStyle("hasura", "where"), where, r)]
    chosen = {
        op: cols.split() for op, cols in re.findall(r"(sum|avg|min|max) \{ ([\w ]+) \}", text)
    }
    return {"count": len(kept)} | _figures(kept, chosen)


def prisma(held: dict[str, Any], rows: list[Row]) -> Any:
    kept = [r for r in rows if meets_query(QueryStyle("prisma", "where"), held.get("where", {}), r)]
    chosen = {k[1:]: list(v) for k, v in held.items() if k in ("_sum", "_avg", "_min", "_max")}

    def figures(members: list[Row]) -> Row:
        found = {f"_{op}": v for op, v in _figures(members, chosen).items()}
        return {"_count": {"_all": len(members)}} | found

    if "by" not in held:
        return figures(kept)
    (by,) = held["by"]
    groups: dict[Any, list[Row]] = {}
    for r in kept:
        groups.setdefault(r[by], []).append(r)
    out = [{by: k} | figures(m) for k, m in groups.items()]
    for order in reversed(held["orderBy"]):
        ((name, inner),) = order.items()
        if isinstance(inner, str):
            out.sort(key=lambda g: g[by], reverse=inner == "desc")
        else:
            ((column, way),) = inner.items()

            def pick(g: Row, name: str = name, column: str = column) -> Any:
                return g["_count"]["_all"] if name == "_count" else g[name][column]

            out.sort(key=lambda g: (pick(g) is not None, pick(g)), reverse=way == "desc")
    return out[: held.get("take")]
