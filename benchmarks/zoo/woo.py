"""``woo``: a tea shop on WooCommerce, its WordPress database as phpMyAdmin's JSON export
writes it (every value text): products and orders are ``wp_posts`` rows told apart by
``post_type``, their fields are ``wp_postmeta`` rows of ``meta_key``/``meta_value`` (an
entity-attribute-value table), an order's lines are order item rows with their own meta rows,
customers are ``wp_users`` with ``wp_usermeta``, categories are terms linked through two
tables (:mod:`.woo_db`). Tools are WooCommerce's REST API v3 (``/wp-json/wc/v3``), answered as
it assembles its objects (:mod:`.woo_api`): products, orders and customers by id with
``_fields``, lists filtered by ``search``, ``sku``, ``category``, prices, ``customer``,
``product`` and dates, the legacy sales, top-sellers and order-status reports, and ``PUT``
updates answering the updated object."""

from __future__ import annotations

import random
from typing import Any

from benchmarks.zoo.kit import (
    CITIES,
    Answer,
    Planned,
    State,
    Tool,
    ToolError,
    note_tool,
    pointer,
    prop,
)
from benchmarks.zoo.shape import Shape
from benchmarks.zoo.woo_api import (
    customers,
    fields,
    one,
    order_totals,
    orders,
    products,
    sales,
    top_sellers,
)
from benchmarks.zoo.woo_db import FILE, STATUSES, database, table, table_index

ID = {"id": prop("integer", "Unique identifier for the resource.")}
FIELDS = {"_fields": prop("string", "Limit the answer to these fields, comma-separated.")}
PAGE = {
    "per_page": prop("integer", "Items per page (default 10, at most 100)."),
    "page": prop("integer", "Page (default 1)."),
}
RANGE = {
    "date_min": prop("string", "Start date, YYYY-MM-DD."),
    "date_max": prop("string", "End date, YYYY-MM-DD."),
}

ORDER_STATUSES = [status.removeprefix("wc-") for status in STATUSES]


def _schema(**enums: list[str]) -> dict[str, Any]:
    """The part of a resource's JSON schema (the API's ``OPTIONS`` answer) that names its
    enumerated values."""
    properties = {name: {"type": "string", "enum": values} for name, values in enums.items()}
    return {"type": "object", "properties": properties}


def _page(found: list[Any], args: dict[str, Any]) -> list[Any]:
    size, page = args.get("per_page", 10), args.get("page", 1)
    if not 1 <= size <= 100:
        raise ToolError("rest_invalid_param: Invalid parameter(s): per_page (400)")
    return found[(page - 1) * size : page * size]


def _list_products(state: State, args: dict[str, Any]) -> Answer:
    found = products(state)
    if "search" in args:
        found = [p for p in found if args["search"].lower() in p["name"].lower()]
    if "sku" in args:
        found = [p for p in found if p["sku"] == args["sku"]]
    if "category" in args:
        found = [p for p in found if any(str(c["id"]) == args["category"] for c in p["categories"])]
    if "stock_status" in args:
        found = [p for p in found if p["stock_status"] == args["stock_status"]]
    if "on_sale" in args:
        found = [p for p in found if p["on_sale"] == args["on_sale"]]
    if "min_price" in args:
        found = [p for p in found if float(p["price"]) >= float(args["min_price"])]
    if "max_price" in args:
        found = [p for p in found if float(p["price"]) <= float(args["max_price"])]
    # The API lists newest first (orderby=date, order=desc).
    found.sort(key=lambda p: (p["date_created"], p["id"]), reverse=True)
    return _page(found, args), []


def _list_orders(state: State, args: dict[str, Any]) -> Answer:
    found = orders(state)
    if "customer" in args:
        found = [o for o in found if o["customer_id"] == args["customer"]]
    if "product" in args:
        found = [
            o for o in found if any(i["product_id"] == args["product"] for i in o["line_items"])
        ]
    if "status" in args:
        found = [o for o in found if o["status"] in args["status"].split(",")]
    if "after" in args:
        found = [o for o in found if o["date_created"] > args["after"]]
    if "before" in args:
        found = [o for o in found if o["date_created"] < args["before"]]
    found.sort(key=lambda o: (o["date_created"], o["id"]), reverse=True)
    return [fields(o, args.get("_fields")) for o in _page(found, args)], []


def _meta_patch(state: State, post: str, values: dict[str, str]) -> list[dict[str, Any]]:
    at = table_index(state, "wp_postmeta")
    patch = []
    for n, row in enumerate(table(state, "wp_postmeta")):
        if row["post_id"] == post and row["meta_key"] in values:
            path = pointer(FILE, at, "data", n, "meta_value")
            patch.append({"op": "replace", "path": path, "value": values[row["meta_key"]]})
    return patch


def _update_product(state: State, args: dict[str, Any]) -> Answer:
    product = one(products(state), args["id"], "product")
    values: dict[str, str] = {}
    if "regular_price" in args:
        values["_regular_price"] = args["regular_price"]
    if "sale_price" in args:
        values["_sale_price"] = args["sale_price"]
    if values:
        regular = values.get("_regular_price", product["regular_price"])
        sale = values.get("_sale_price", product["sale_price"])
        values["_price"] = sale or regular
    if "stock_quantity" in args:
        values["_stock"] = str(args["stock_quantity"])
        values["_stock_status"] = "instock" if args["stock_quantity"] > 0 else "outofstock"
    if not values:
        raise ToolError("rest_invalid_param: nothing to update (400)")
    patch = _meta_patch(state, str(args["id"]), values)
    updated = dict(product)
    for key, field in (("_price", "price"), ("_regular_price", "regular_price")):
        updated[field] = values.get(key, updated[field])
    updated["sale_price"] = values.get("_sale_price", updated["sale_price"])
    updated["on_sale"] = bool(updated["sale_price"])
    if "_stock" in values:
        updated["stock_quantity"] = args["stock_quantity"]
        updated["stock_status"] = values["_stock_status"]
    return updated, patch


def _update_order(state: State, args: dict[str, Any]) -> Answer:
    order = one(orders(state), args["id"], "shop_order")
    updated = dict(order)
    patch = []
    if "status" in args:
        status = f"wc-{args['status']}"
        if status not in STATUSES:
            raise ToolError("rest_invalid_param: Invalid parameter(s): status (400)")
        at = table_index(state, "wp_posts")
        rows = enumerate(table(state, "wp_posts"))
        n = next(i for i, r in rows if r["ID"] == str(args["id"]))
        path = pointer(FILE, at, "data", n, "post_status")
        patch.append({"op": "replace", "path": path, "value": status})
        updated["status"] = args["status"]
    billing = args.get("billing", {})
    if billing:
        values = {f"_billing_{key}": value for key, value in billing.items()}
        patch += _meta_patch(state, str(args["id"]), values)
        updated["billing"] = order["billing"] | billing
    if not patch:
        raise ToolError("rest_invalid_param: nothing to update (400)")
    return updated, patch


PRODUCT_FILTERS = {
    "search": prop("string", "Limit results to those matching a string."),
    "sku": prop("string", "Limit result set to products with a specific SKU."),
    "category": prop("string", "Limit result set to a category ID."),
    "stock_status": prop("string", "", enum=["instock", "outofstock", "onbackorder"]),
    "on_sale": prop("boolean", "Limit result set to products on sale."),
    "min_price": prop("string", "Minimum price."),
    "max_price": prop("string", "Maximum price."),
}
ORDER_FILTERS = {
    "customer": prop("integer", "Orders of this customer ID."),
    "product": prop("integer", "Orders holding this product ID."),
    "status": prop("string", "Statuses, comma-separated (processing, completed...)."),
    "after": prop("string", "Created after this ISO8601 date."),
    "before": prop("string", "Created before this ISO8601 date."),
}
PRODUCT_WRITES = {
    "regular_price": prop("string", "Product regular price."),
    "sale_price": prop("string", "Product sale price ('' for none)."),
    "stock_quantity": prop("integer", "Stock quantity."),
}
REPORTS = [
    Tool(
        "sales_report",
        "GET /reports/sales: sales totals, per day.",
        RANGE,
        lambda s, a: (sales(s, a["date_min"], a["date_max"]), []),
        ("date_min", "date_max"),
    ),
    Tool(
        "top_sellers_report",
        "GET /reports/top_sellers: quantity sold per product.",
        RANGE,
        lambda s, a: (top_sellers(s, a["date_min"], a["date_max"]), []),
        ("date_min", "date_max"),
    ),
    Tool(
        "orders_totals_report",
        "GET /reports/orders/totals: orders per status.",
        {},
        lambda s, a: (order_totals(s), []),
    ),
]


class Woo(Shape):
    name = "woo"
    title = "Shop assistant over a WooCommerce tea shop"
    description = (
        "Teahaus, a WooCommerce 7 shop (legacy post storage). The state is the WordPress "
        "database as phpMyAdmin's JSON export. Tools are the WooCommerce REST API v3 "
        "(/wp-json/wc/v3); errors are text starting with 'Error:'."
    )
    note = ("order_note_draft", "text")

    def build(self, rng: random.Random, target_bytes: int) -> State:
        return database(rng, target_bytes)

    def tools(self) -> list[Tool]:
        return [
            Tool(
                "get_product",
                "GET /products/<id>.",
                ID | FIELDS,
                lambda s, a: (fields(one(products(s), a["id"], "product"), a.get("_fields")), []),
                ("id",),
                output=_schema(type=["simple", "grouped", "external", "variable"]),
            ),
            Tool("list_products", "GET /products.", PRODUCT_FILTERS | PAGE, _list_products),
            Tool(
                "get_order",
                "GET /orders/<id>.",
                ID | FIELDS,
                lambda s, a: (fields(one(orders(s), a["id"], "shop_order"), a.get("_fields")), []),
                ("id",),
                output=_schema(status=ORDER_STATUSES),
            ),
            Tool("list_orders", "GET /orders.", ORDER_FILTERS | FIELDS | PAGE, _list_orders),
            Tool(
                "get_customer",
                "GET /customers/<id>.",
                ID,
                lambda s, a: (one(customers(s), a["id"], "user"), []),
                ("id",),
                output=_schema(role=["customer", "subscriber", "shop_manager"]),
            ),
            *REPORTS,
            Tool(
                "update_product",
                "PUT /products/<id>.",
                ID | PRODUCT_WRITES,
                _update_product,
                ("id",),
                effect="write",
            ),
            Tool(
                "update_order",
                "PUT /orders/<id>.",
                ID
                | {
                    "status": prop("string", "Order status (without wc-)."),
                    "billing": prop("object", "Billing address fields to change."),
                },
                _update_order,
                ("id",),
                output=_schema(status=ORDER_STATUSES),
                effect="write",
            ),
            note_tool("order_note_draft", "text", "Draft a private order note (answers nothing)."),
        ]

    def lookup(self, rng: random.Random, state: State) -> Planned:
        choice = rng.random()
        if choice < 0.4:
            return Planned("lookup", "get_product", {"id": rng.choice(products(state))["id"]})
        if choice < 0.75:
            return Planned("lookup", "get_order", {"id": rng.choice(orders(state))["id"]})
        return Planned("lookup", "get_customer", {"id": rng.choice(customers(state))["id"]})

    def nested_lookup(self, rng: random.Random, state: State) -> Planned:
        if rng.random() < 0.6:
            order = rng.choice(orders(state))
            wanted = rng.choice(["line_items", "billing,total", "line_items,status"])
            return Planned("nested_lookup", "get_order", {"id": order["id"], "_fields": wanted})
        product = rng.choice(products(state))
        wanted = rng.choice(["categories,sku", "stock_quantity,price,categories"])
        return Planned("nested_lookup", "get_product", {"id": product["id"], "_fields": wanted})

    def search(self, rng: random.Random, state: State) -> Planned:
        if rng.random() < 0.3:
            order = rng.choice(orders(state))
            args: dict[str, Any] = {
                "status": order["status"],
                "after": order["date_created"][:8] + "01T00:00:00",
            }
            args["before"] = order["date_created"][:10] + "T23:59:59"
            return Planned("search", "list_orders", args | {"per_page": 10})
        product = rng.choice(products(state))
        args = {}
        options = ["search", "category", "price", "stock"]
        for option in rng.sample(options, rng.randint(1, 3)):
            if option == "search":
                args["search"] = product["name"].split()[rng.randint(0, 1)]
            elif option == "category" and product["categories"]:
                args["category"] = str(product["categories"][0]["id"])
            elif option == "price":
                price = float(product["price"])
                args["min_price"] = str(int(price * 0.8))
                args["max_price"] = str(int(price * 1.2) + 1)
            elif option == "stock":
                args["stock_status"] = product["stock_status"]
        return Planned(
            "search", "list_products", (args or {"sku": product["sku"]}) | {"per_page": 20}
        )

    def join(self, rng: random.Random, state: State) -> Planned:
        order = rng.choice(orders(state))
        if rng.random() < 0.5:
            args = {"customer": order["customer_id"], "_fields": "id,status,total,line_items"}
            return Planned("join", "list_orders", args)
        product = rng.choice(order["line_items"])["product_id"]
        args = {"product": product, "_fields": "id,date_created,billing,line_items"}
        return Planned("join", "list_orders", args | {"per_page": 10})

    def aggregate(self, rng: random.Random, state: State) -> Planned:
        choice = rng.random()
        if choice < 0.2:
            return Planned("aggregate", "orders_totals_report", {})
        start = rng.choice(orders(state))["date_created"][:10]
        end = start[:8] + f"{min(28, int(start[8:]) + rng.randint(0, 6)):02d}"
        tool = "sales_report" if choice < 0.6 else "top_sellers_report"
        return Planned("aggregate", tool, {"date_min": start, "date_max": end})

    def write(self, rng: random.Random, state: State) -> tuple[Planned, Planned]:
        if rng.random() < 0.6:
            product = rng.choice(products(state))
            args: dict[str, Any] = {"id": product["id"]}
            if rng.random() < 0.5:
                args["stock_quantity"] = rng.randint(0, 80)
            else:
                regular = float(product["regular_price"])
                args["regular_price"] = f"{regular * rng.choice([0.9, 1.1, 1.25]):.2f}"
                args["sale_price"] = rng.choice(["", f"{regular * 0.75:.2f}"])
            read = Planned("read_after_write", "get_product", {"id": product["id"]})
            return Planned("write", "update_product", args), read
        order = rng.choice(orders(state))
        args = {"id": order["id"], "billing": {"city": rng.choice(CITIES)}}
        if rng.random() < 0.5:
            args["billing"]["email"] = f"{order['billing']['first_name'].lower()}@post.example"
        if rng.random() < 0.5:
            statuses = ("completed", "on-hold", "cancelled", "refunded")
            args["status"] = rng.choice([s for s in statuses if s != order["status"]])
        read = Planned("read_after_write", "get_order", {"id": order["id"]})
        return Planned("write", "update_order", args), read

    def no_match(self, rng: random.Random, state: State) -> Planned:
        word = rng.choice(["Samovar", "Matcha Bowl", "Zeppelin"])
        return Planned("empty", "list_products", {"search": word, "per_page": 20})
