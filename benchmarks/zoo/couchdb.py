"""``couchdb``: a tea wholesaler's orders in Apache CouchDB 3, its state the database's
``_all_docs`` with the documents (:mod:`.couchdb_docs`), the design document's views defined
by JavaScript map functions. Tools are CouchDB's HTTP API: ``GET /{db}/{docid}``, a view's
``_view`` query (``key``, ``startkey``/``endkey`` with ``{}`` as the high key, ``reduce``,
``group_level``, ``include_docs`` fetching the documents that rows emit ``{_id}`` for),
Mango's ``_find`` and ``PUT /{db}/{docid}`` with the current ``_rev``."""

from __future__ import annotations

import bisect
import json
import random
import re
from collections.abc import Callable
from typing import Any

from benchmarks.zoo.couchdb_docs import (
    CATEGORIES,
    FILE,
    MAPS,
    STATUSES,
    VIEWS,
    WAREHOUSES,
    collation,
    database,
    docs,
    revision,
    rows,
)
from benchmarks.zoo.kit import (
    Answer,
    Patch,
    Planned,
    State,
    Tool,
    ToolError,
    dig,
    note_tool,
    pointer,
    prop,
)
from benchmarks.zoo.shape import Shape

DB = "wholesale"
DATABASE = {"db": prop("string", "The database.")}
VIEW = DATABASE | {
    "ddoc": prop("string", "The design document's name (without _design/)."),
    "view": prop("string", "The view's name."),
    "key": prop("string", "Only rows of this key (JSON)."),
    "startkey": prop("string", "Rows from this key (JSON)."),
    "endkey": prop("string", "Rows to this key, inclusive (JSON)."),
    "reduce": prop("boolean", "Run the view's reduce (default true when it has one)."),
    "group_level": prop("integer", "Group reduced rows by this many key elements."),
    "group": prop("boolean", "Group reduced rows by the whole key."),
    "include_docs": prop("boolean", "Add each row's document (or the one its value's _id names)."),
    "limit": prop("integer", "At most this many rows."),
}
FIND = DATABASE | {
    "selector": prop(
        "object", "A Mango selector ($eq, $gt, $gte, $lt, $lte, $in, $regex, $elemMatch)."
    ),
    "fields": prop("array", "The fields to return.", items={"type": "string"}),
    "limit": prop("integer", "At most this many documents (default 25)."),
}
WARNING = "No matching index found, create an index to optimize query time."


def _by_id(state: State, ident: str) -> tuple[int, dict[str, Any]]:
    listed = rows(state)
    at = bisect.bisect_left([r["id"] for r in listed], ident)
    if at < len(listed) and listed[at]["id"] == ident:
        return at, listed[at]["doc"]
    raise ToolError('404 {"error":"not_found","reason":"missing"}')


def _get(state: State, args: dict[str, Any]) -> Answer:
    _, doc = _by_id(state, str(args["docid"]))
    if not args.get("conflicts"):
        doc = {k: v for k, v in doc.items() if k != "_conflicts"}
    return doc, []


def _all_docs(state: State, args: dict[str, Any]) -> Answer:
    """``POST /{db}/_all_docs`` with ``keys``: a row per key, in the keys' order."""
    listed = rows(state)
    found: list[dict[str, Any]] = []
    for key in args["keys"]:
        try:
            at, doc = _by_id(state, str(key))
        except ToolError:
            found.append({"key": key, "error": "not_found"})
            continue
        row = {k: v for k, v in listed[at].items() if k != "doc"}
        found.append(row | {"doc": doc} if args.get("include_docs") else row)
    return {"total_rows": state[FILE]["total_rows"], "offset": None, "rows": found}, []


def _json_arg(args: dict[str, Any], name: str) -> Any:
    value = args[name]
    return json.loads(value) if isinstance(value, str) else value


def _reduced(name: str, values: list[Any]) -> Any:
    if name == "_count":
        return len(values)
    if name == "_sum":
        total = sum(values)
        return round(total, 2) if isinstance(total, float) else total
    return {
        "sum": sum(values),
        "count": len(values),
        "min": min(values),
        "max": max(values),
        "sumsqr": sum(v * v for v in values),
    }


def _view(state: State, args: dict[str, Any]) -> Answer:
    name = str(args["view"])
    if args.get("ddoc") != "shop" or name not in MAPS:
        raise ToolError('404 {"error":"not_found","reason":"missing_named_view"}')
    emitted = [
        (collation(key), key, value, row["id"])
        for row in rows(state)
        for key, value in MAPS[name](row["doc"])
    ]
    emitted.sort(key=lambda e: (e[0], e[3]))
    total, whole = len(emitted), emitted
    if "key" in args:
        wanted = collation(_json_arg(args, "key"))
        emitted = [e for e in emitted if e[0] == wanted]
    if "startkey" in args:
        emitted = [e for e in emitted if e[0] >= collation(_json_arg(args, "startkey"))]
    # A map view's offset: how many of its rows sort before the first one answered.
    offset = next((n for n, e in enumerate(whole) if emitted and e is emitted[0]), total)
    if "endkey" in args:
        emitted = [e for e in emitted if e[0] <= collation(_json_arg(args, "endkey"))]
    reduce = VIEWS[name].get("reduce")
    if reduce and args.get("reduce", True):
        level = 999 if args.get("group") else args.get("group_level")
        if level is None:
            return {"rows": [{"key": None, "value": _reduced(reduce, [e[2] for e in emitted])}]}, []
        groups: dict[Any, list[Any]] = {}
        keys: dict[Any, Any] = {}
        for _, key, value, _ in emitted:
            short = key[:level] if isinstance(key, list) else key
            groups.setdefault(collation(short), []).append(value)
            keys[collation(short)] = short
        found = [{"key": keys[k], "value": _reduced(reduce, v)} for k, v in groups.items()]
        return {"rows": found[: args.get("limit", len(found))]}, []
    if args.get("group") or "group_level" in args:
        raise ToolError(
            '400 {"error":"query_parse_error","reason":"Invalid use of grouping on a map view."}'
        )
    found = []
    for _, key, value, ident in emitted[: args.get("limit", len(emitted))]:
        row: dict[str, Any] = {"id": ident, "key": key, "value": value}
        if args.get("include_docs"):
            linked = value.get("_id", ident) if isinstance(value, dict) else ident
            row["doc"] = _get(state, {"docid": linked})[0]
        found.append(row)
    return {"total_rows": total, "offset": offset, "rows": found}, []


def _meets(value: Any, condition: Any) -> bool:
    if not isinstance(condition, dict):
        return bool(value == condition)
    tests: dict[str, Callable[[Any, Any], bool]] = {
        "$eq": lambda v, c: bool(v == c),
        "$gt": lambda v, c: v is not None and collation(v) > collation(c),
        "$gte": lambda v, c: v is not None and collation(v) >= collation(c),
        "$lt": lambda v, c: v is not None and collation(v) < collation(c),
        "$lte": lambda v, c: v is not None and collation(v) <= collation(c),
        "$in": lambda v, c: v in c,
        "$regex": lambda v, c: isinstance(v, str) and re.search(c, v) is not None,
        "$elemMatch": lambda v, c: isinstance(v, list) and any(_selected(x, c) for x in v),
    }
    return all(tests[op](value, wanted) for op, wanted in condition.items())


def _selected(doc: dict[str, Any], selector: dict[str, Any]) -> bool:
    for field, condition in selector.items():
        if field == "$and":
            if not all(_selected(doc, s) for s in condition):
                return False
        elif not _meets(dig(doc, field), condition):
            return False
    return True


def _find(state: State, args: dict[str, Any]) -> Answer:
    selector = dict(args["selector"])
    fields = args.get("fields")
    found = [r["doc"] for r in rows(state) if _selected(r["doc"], selector)][
        : args.get("limit", 25)
    ]
    if fields:
        found = [{f: d[f] for f in fields if f in d} for d in found]
    bookmark = f"g1AAAA{len(found):04d}" if found else "nil"
    return {"docs": found, "bookmark": bookmark, "warning": WARNING}, []


def _put(state: State, args: dict[str, Any]) -> Answer:
    ident = str(args["docid"])
    body = dict(args["document"])
    listed = rows(state)
    ids = [r["id"] for r in listed]
    at = bisect.bisect_left(ids, ident)
    exists = at < len(listed) and listed[at]["id"] == ident
    held = listed[at]["doc"]["_rev"] if exists else None
    if body.get("_rev") != held:
        raise ToolError('409 {"error":"conflict","reason":"Document update conflict."}')
    number = int(held.split("-")[0]) + 1 if held else 1
    rev = revision(number, (ident, body))
    doc = {"_id": ident, "_rev": rev} | {k: v for k, v in body.items() if k not in ("_id", "_rev")}
    row = {"id": ident, "key": ident, "value": {"rev": rev}, "doc": doc}
    path = pointer(FILE, "rows", at)
    patch: Patch
    if exists:
        patch = [{"op": "replace", "path": path, "value": row}]
    else:
        patch = [
            {"op": "add", "path": path, "value": row},
            {"op": "replace", "path": pointer(FILE, "total_rows"), "value": len(listed) + 1},
        ]
    return {"ok": True, "id": ident, "rev": rev}, patch


def _q(kind: str, view: str, **query: Any) -> Planned:
    return Planned(kind, "query_view", {"db": DB, "ddoc": "shop", "view": view} | query)


class CouchDb(Shape):
    name = "couchdb"
    title = "Order desk assistant over a wholesaler's CouchDB"
    description = (
        "The 'wholesale' database in Apache CouchDB 3.3 (customers, products with stock per "
        "warehouse, orders with their lines, and the design document _design/shop), as "
        "_all_docs?include_docs=true&conflicts=true lists it. Tools are CouchDB's HTTP API, "
        "answered with its JSON bodies; errors are text starting with 'Error:' and the "
        "status and body."
    )
    note = ("desk_note", "text")

    def build(self, rng: random.Random, target_bytes: int) -> State:
        return database(rng, target_bytes)

    def tools(self) -> list[Tool]:
        doc_id = DATABASE | {"docid": prop("string", "The document's id.")}
        get = doc_id | {"conflicts": prop("boolean", "Include _conflicts.")}
        put = doc_id | {"document": prop("object", "The whole document, with the current _rev.")}
        return [
            Tool("get_document", "GET /{db}/{docid}.", get, _get, ("db", "docid")),
            Tool(
                "query_view",
                "GET /{db}/_design/{ddoc}/_view/{view}.",
                VIEW,
                _view,
                ("db", "ddoc", "view"),
            ),
            Tool(
                "all_docs",
                "POST /{db}/_all_docs with keys.",
                DATABASE
                | {
                    "keys": prop("array", "The document ids.", items={"type": "string"}),
                    "include_docs": prop("boolean", "Add each row's document."),
                },
                _all_docs,
                ("db", "keys"),
            ),
            Tool("find_documents", "POST /{db}/_find (Mango).", FIND, _find, ("db", "selector")),
            Tool(
                "put_document",
                "PUT /{db}/{docid}: answers ok, id and the new rev.",
                put,
                _put,
                ("db", "docid", "document"),
                effect="write",
            ),
            note_tool("desk_note", "text", "Note something for the order desk (answers nothing)."),
        ]

    def lookup(self, rng: random.Random, state: State) -> Planned:
        doc = rng.choice(docs(state, rng.choice(["customer", "product", "order"])))
        return Planned("lookup", "get_document", {"db": DB, "docid": doc["_id"]})

    def nested_lookup(self, rng: random.Random, state: State) -> Planned:
        if rng.random() < 0.3:
            doc = rng.choice([r["doc"] for r in rows(state) if "_conflicts" in r["doc"]])
            arguments = {"db": DB, "docid": doc["_id"], "conflicts": True}
            return Planned("nested_lookup", "get_document", arguments)
        order = rng.choice(docs(state, "order"))
        keys = [order["customer"], *(line["product"] for line in order["lines"])]
        arguments = {"db": DB, "keys": keys[: rng.randint(1, len(keys))], "include_docs": True}
        return Planned("nested_lookup", "all_docs", arguments)

    def search(self, rng: random.Random, state: State) -> Planned:
        choice = rng.random()
        if choice < 0.35:
            product = rng.choice(docs(state, "product"))
            low, high = (
                round(product["price"] - rng.uniform(0, 5), 2),
                round(product["price"] + rng.uniform(0, 5), 2),
            )
            start, end = f'["{product["category"]}", {low}]', f'["{product["category"]}", {high}]'
            return _q("search", "products_by_category", startkey=start, endkey=end, reduce=False)
        order = rng.choice(docs(state, "order"))
        if choice < 0.7:
            day = order["placed"][:10]
            selector = {
                "type": "order",
                "status": order["status"],
                "placed": {"$gte": day, "$lt": day + "T23:59:59Z"},
            }
            fields = ["_id", "customer", "placed", "status", "total"]
            return Planned(
                "search", "find_documents", {"db": DB, "selector": selector, "fields": fields}
            )
        line = rng.choice(order["lines"])
        match = {
            "product": line["product"],
            "qty": {"$gte": max(1, line["qty"] - rng.randint(0, 2))},
        }
        selector = {
            "type": "order",
            "lines": {"$elemMatch": match},
            "placed": {"$gte": order["placed"][:7]},
        }
        arguments = {
            "db": DB,
            "selector": selector,
            "fields": ["_id", "customer", "placed", "lines"],
            "limit": 10,
        }
        return Planned("search", "find_documents", arguments)

    def join(self, rng: random.Random, state: State) -> Planned:
        order = rng.choice(docs(state, "order"))
        start, end = f'["{order["_id"]}"]', f'["{order["_id"]}", {{}}]'
        return _q("join", "order_details", startkey=start, endkey=end, include_docs=True)

    def aggregate(self, rng: random.Random, state: State) -> Planned:
        choice = rng.random()
        if choice < 0.4:
            customer = rng.choice(docs(state, "order"))["customer"]
            return _q(
                "aggregate",
                "orders_by_customer",
                startkey=f'["{customer}"]',
                endkey=f'["{customer}", {{}}]',
            )
        if choice < 0.75:
            product = rng.choice(docs(state, "product"))["_id"]
            start, end = f'["{product}"]', f'["{product}", {{}}]'
            return _q(
                "aggregate", "units_by_product_month", startkey=start, endkey=end, group_level=2
            )
        if choice < 0.9:
            return _q("aggregate", "stock_by_warehouse", key=f'"{rng.choice(WAREHOUSES)}"')
        category = rng.choice(CATEGORIES)
        return _q(
            "aggregate",
            "products_by_category",
            startkey=f'["{category}"]',
            endkey=f'["{category}", {{}}]',
        )

    def write(self, rng: random.Random, state: State) -> tuple[Planned, Planned]:
        if rng.random() < 0.5:
            doc = dict(rng.choice(docs(state, "product")))
            stock = dict(doc["stock"])
            warehouse = rng.choice(WAREHOUSES)
            stock[warehouse] = stock.get(warehouse, 0) + rng.randint(10, 200)
            doc |= {"stock": stock, "price": round(doc["price"] * rng.uniform(0.9, 1.2), 2)}
        else:
            doc = dict(rng.choice(docs(state, "order")))
            doc["status"] = rng.choice([s for s in STATUSES if s != doc["status"]])
        doc.pop("_conflicts", None)
        ident = doc["_id"]
        write = Planned("write", "put_document", {"db": DB, "docid": ident, "document": doc})
        return write, Planned("read_after_write", "get_document", {"db": DB, "docid": ident})

    def no_match(self, rng: random.Random, state: State) -> Planned:
        word = rng.choice(["Zeppelin", "Quokka", "Marzipan"])
        selector = {"type": "product", "name": {"$regex": word}}
        return Planned(
            "empty", "find_documents", {"db": DB, "selector": selector, "fields": ["_id", "name"]}
        )
