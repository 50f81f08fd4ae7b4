"""The ``couchdb`` shape's data and its views: a tea wholesaler's database in Apache CouchDB 3
as ``GET /wholesale/_all_docs?include_docs=true&conflicts=true`` answers it, rows sorted by
document id, each with its revision, documents of several types told apart by ``type`` and
linked by id, a few holding the ``_conflicts`` replication left.

The queries the service answers are held in the state as code: the design document
``_design/shop`` defines each view by a JavaScript map function (and a built-in reduce), and a
view's rows are what that function emits, sorted by key in CouchDB's collation (``null``,
booleans, numbers, strings, arrays, objects). :data:`MAPS` are those functions written again in
Python, as the view server runs them."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Iterator
from typing import Any

from benchmarks.zoo.kit import CITIES, FIRST, LAST, WORDS, State, fill, size_of

FILE = "_all_docs.json"
DESIGN = "_design/shop"
CATEGORIES = ["green", "black", "oolong", "white", "herbal", "puerh"]
WAREHOUSES = ["lisbon", "porto", "rotterdam"]
STATUSES = ["placed", "packed", "shipped", "delivered", "cancelled"]
TIERS = ["standard", "silver", "gold"]

VIEWS: dict[str, dict[str, str]] = {
    "orders_by_customer": {
        "map": "function (doc) {\n  if (doc.type === 'order') {\n"
        "    emit([doc.customer, doc.placed], doc.total);\n  }\n}",
        "reduce": "_sum",
    },
    "units_by_product_month": {
        "map": "function (doc) {\n  if (doc.type === 'order' && doc.status !== 'cancelled') {\n"
        "    doc.lines.forEach(function (line) {\n"
        "      emit([line.product, doc.placed.substr(0, 7)], line.qty);\n    });\n  }\n}",
        "reduce": "_sum",
    },
    "products_by_category": {
        "map": "function (doc) {\n  if (doc.type === 'product') {\n"
        "    emit([doc.category, doc.price], doc.name);\n  }\n}",
        "reduce": "_count",
    },
    "stock_by_warehouse": {
        "map": "function (doc) {\n  if (doc.type === 'product') {\n"
        "    for (var w in doc.stock) { emit(w, doc.stock[w]); }\n  }\n}",
        "reduce": "_stats",
    },
    "customers_by_email": {
        "map": "function (doc) {\n  if (doc.type === 'customer') { emit(doc.email, null); }\n}",
    },
    "order_details": {
        "map": "function (doc) {\n  if (doc.type === 'order') {\n    emit([doc._id, 0], null);\n"
        "    emit([doc._id, 1], {_id: doc.customer});\n"
        "    doc.lines.forEach(function (line, i) {\n"
        "      emit([doc._id, 2, i], {_id: line.product, qty: line.qty});\n    });\n  }\n}",
    },
}

Emitted = Iterator[tuple[Any, Any]]


def _orders_by_customer(doc: dict[str, Any]) -> Emitted:
    if doc.get("type") == "order":
        yield [doc["customer"], doc["placed"]], doc["total"]


def _units(doc: dict[str, Any]) -> Emitted:
    if doc.get("type") == "order" and doc["status"] != "cancelled":
        for line in doc["lines"]:
            yield [line["product"], doc["placed"][:7]], line["qty"]


def _products(doc: dict[str, Any]) -> Emitted:
    if doc.get("type") == "product":
        yield [doc["category"], doc["price"]], doc["name"]


def _stock(doc: dict[str, Any]) -> Emitted:
    if doc.get("type") == "product":
        yield from doc["stock"].items()


def _emails(doc: dict[str, Any]) -> Emitted:
    if doc.get("type") == "customer":
        yield doc["email"], None


def _details(doc: dict[str, Any]) -> Emitted:
    if doc.get("type") == "order":
        yield [doc["_id"], 0], None
        yield [doc["_id"], 1], {"_id": doc["customer"]}
        for n, line in enumerate(doc["lines"]):
            yield [doc["_id"], 2, n], {"_id": line["product"], "qty": line["qty"]}


MAPS: dict[str, Callable[[dict[str, Any]], Emitted]] = {
    "orders_by_customer": _orders_by_customer,
    "units_by_product_month": _units,
    "products_by_category": _products,
    "stock_by_warehouse": _stock,
    "customers_by_email": _emails,
    "order_details": _details,
}


def collation(value: Any) -> tuple[Any, ...]:
    """CouchDB's view collation: null, false, true, numbers, strings (case after letter),
    arrays element by element, objects."""
    if value is None:
        return (0,)
    if value is False or value is True:
        return (1, value)
    if isinstance(value, int | float):
        return (2, value)
    if isinstance(value, str):
        return (3, value.lower(), value.swapcase())
    if isinstance(value, list):
        return (4, tuple(collation(v) for v in value))
    return (5,)


def rows(state: State) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = state[FILE]["rows"]
    return found


def docs(state: State, type_: str) -> list[dict[str, Any]]:
    return [r["doc"] for r in rows(state) if r["doc"].get("type") == type_]


def revision(number: int, body: Any) -> str:
    return f"{number}-{hashlib.md5(repr(body).encode()).hexdigest()}"


class _Database:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.customers: list[dict[str, Any]] = []
        self.products: list[dict[str, Any]] = []
        self.orders: list[dict[str, Any]] = []

    def _doc(self, ident: str, body: dict[str, Any]) -> dict[str, Any]:
        edits = self.rng.randint(1, 6)
        doc = {"_id": ident, "_rev": revision(edits, (ident, body, self.rng.random()))} | body
        if self.rng.random() < 0.02:
            doc["_conflicts"] = [revision(edits, (ident, self.rng.random()))]
        return doc

    def product(self) -> None:
        rng = self.rng
        n = len(self.products) + 1
        category = rng.choice(CATEGORIES)
        body = {
            "type": "product",
            "sku": f"TEA-{n:04d}",
            "name": f"{rng.choice(WORDS).title()} {rng.choice(WORDS).title()} {category.title()}",
            "category": category,
            "price": round(rng.uniform(4, 60), 2),
            "stock": {w: rng.randint(0, 400) for w in rng.sample(WAREHOUSES, rng.randint(1, 3))},
        }
        self.products.append(self._doc(f"product:p{n:04d}", body))

    def customer(self) -> None:
        rng = self.rng
        n = len(self.customers) + 1
        first, last = rng.choice(FIRST), rng.choice(LAST)
        body = {
            "type": "customer",
            "name": f"{first} {last}",
            "email": f"{first}.{last}{n}@example.org".lower(),
            "city": rng.choice(CITIES),
            "tier": rng.choices(TIERS, (6, 3, 1))[0],
        }
        self.customers.append(self._doc(f"customer:c{n:05d}", body))

    def order(self) -> None:
        rng = self.rng
        if len(self.orders) % 6 == 0:
            self.customer()
        if len(self.orders) % 12 == 0:
            self.product()
        n = len(self.orders) + 1
        lines = []
        for product in rng.sample(self.products, min(len(self.products), rng.randint(1, 4))):
            lines.append(
                {"product": product["_id"], "qty": rng.randint(1, 20), "price": product["price"]}
            )
        placed = f"2025-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T{rng.randint(7, 19):02d}:{rng.randint(0, 59):02d}:00Z"
        body = {
            "type": "order",
            "customer": rng.choice(self.customers)["_id"],
            "placed": placed,
            "status": rng.choices(STATUSES, (1, 1, 2, 6, 1))[0],
            "lines": lines,
            "total": round(sum(line["qty"] * line["price"] for line in lines), 2),
        }
        self.orders.append(self._doc(f"order:o{n:06d}", body))

    def state(self) -> State:
        design = {
            "_id": DESIGN,
            "_rev": revision(3, VIEWS),
            "language": "javascript",
            "views": VIEWS,
        }
        found = [design, *self.customers, *self.orders, *self.products]
        found.sort(key=lambda d: d["_id"])
        listed = [
            {"id": d["_id"], "key": d["_id"], "value": {"rev": d["_rev"]}, "doc": d} for d in found
        ]
        return {FILE: {"total_rows": len(listed), "offset": 0, "rows": listed}}


def database(rng: random.Random, target_bytes: int) -> State:
    built = _Database(rng)
    for _ in range(8):
        built.product()
        built.customer()
    measure = [0]

    def size() -> int:
        measure[0] = size_of([built.customers, built.orders, built.products]) * 13 // 10 + 3000
        return measure[0]

    fill(built.order, size, target_bytes)
    return built.state()
