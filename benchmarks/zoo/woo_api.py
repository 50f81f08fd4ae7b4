"""The ``woo`` shape's REST answers: WooCommerce's ``/wp-json/wc/v3`` objects assembled from the
database's rows as the legacy post storage does (a product or order from its ``wp_posts`` row
and its ``wp_postmeta`` rows, an order's ``line_items`` from its order item rows and their meta,
categories through the term tables), and the legacy reports over the orders that count as sales
(completed, processing, on hold)."""

from __future__ import annotations

from collections import defaultdict
from datetime import date, timedelta
from typing import Any

from benchmarks.zoo.kit import State, ToolError
from benchmarks.zoo.woo_db import STATUSES, meta, posts, table

SALES = ("wc-completed", "wc-processing", "wc-on-hold")
"""The statuses WooCommerce's legacy reports count."""


def _iso(stamp: str) -> str:
    return stamp.replace(" ", "T")


def categories(state: State) -> dict[str, list[dict[str, Any]]]:
    """Each product's categories, as the API shows them: ``{id, name, slug}``."""
    terms = {row["term_id"]: row for row in table(state, "wp_terms")}
    taxonomies = {
        row["term_taxonomy_id"]: terms[row["term_id"]]
        for row in table(state, "wp_term_taxonomy")
        if row["taxonomy"] == "product_cat"
    }
    found: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for link in table(state, "wp_term_relationships"):
        term = taxonomies.get(link["term_taxonomy_id"])
        if term is not None:
            shown = {"id": int(term["term_id"]), "name": term["name"], "slug": term["slug"]}
            found[link["object_id"]].append(shown)
    return found


def products(state: State) -> list[dict[str, Any]]:
    """Every product as ``GET /products/<id>`` answers it, in post order."""
    values = meta(state, "wp_postmeta", "post_id")
    kinds = categories(state)
    found = []
    for post in posts(state, "product"):
        m = values[post["ID"]]
        found.append(
            {
                "id": int(post["ID"]),
                "name": post["post_title"],
                "slug": post["post_name"],
                "date_created": _iso(post["post_date"]),
                "type": "simple",
                "status": post["post_status"],
                "sku": m.get("_sku", ""),
                "price": m.get("_price", ""),
                "regular_price": m.get("_regular_price", ""),
                "sale_price": m.get("_sale_price", ""),
                "on_sale": bool(m.get("_sale_price")),
                "total_sales": int(m.get("total_sales", "0")),
                "manage_stock": m.get("_manage_stock") == "yes",
                "stock_quantity": int(m["_stock"]) if m.get("_stock") else None,
                "stock_status": m.get("_stock_status", "instock"),
                "weight": m.get("_weight", ""),
                "categories": kinds.get(post["ID"], []),
            }
        )
    return found


def _line_items(state: State) -> dict[str, list[dict[str, Any]]]:
    values = meta(state, "wp_woocommerce_order_itemmeta", "order_item_id")
    skus = {
        r["post_id"]: r["meta_value"]
        for r in table(state, "wp_postmeta")
        if r["meta_key"] == "_sku"
    }
    found: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for item in table(state, "wp_woocommerce_order_items"):
        if item["order_item_type"] != "line_item":
            continue
        m = values[item["order_item_id"]]
        found[item["order_id"]].append(
            {
                "id": int(item["order_item_id"]),
                "name": item["order_item_name"],
                "product_id": int(m["_product_id"]),
                "variation_id": int(m["_variation_id"]),
                "quantity": int(m["_qty"]),
                "subtotal": m["_line_subtotal"],
                "total": m["_line_total"],
                "total_tax": m["_line_tax"],
                "sku": skus.get(m["_product_id"], ""),
            }
        )
    return found


def orders(state: State) -> list[dict[str, Any]]:
    """Every order as ``GET /orders/<id>`` answers it, in post order."""
    values = meta(state, "wp_postmeta", "post_id")
    lines = _line_items(state)
    found = []
    for post in posts(state, "shop_order"):
        m = values[post["ID"]]
        billing = {
            key: m.get(f"_billing_{key}", "")
            for key in ("first_name", "last_name", "email", "city", "country")
        }
        found.append(
            {
                "id": int(post["ID"]),
                "status": post["post_status"].removeprefix("wc-"),
                "currency": m.get("_order_currency", "EUR"),
                "date_created": _iso(post["post_date"]),
                "date_paid": _iso(m["_paid_date"]) if "_paid_date" in m else None,
                "date_completed": _iso(m["_completed_date"]) if "_completed_date" in m else None,
                "total": m["_order_total"],
                "shipping_total": m.get("_order_shipping", "0.00"),
                "total_tax": m.get("_order_tax", "0.00"),
                "customer_id": int(m.get("_customer_user", "0")),
                "order_key": m.get("_order_key", ""),
                "billing": billing,
                "payment_method": m.get("_payment_method", ""),
                "payment_method_title": m.get("_payment_method_title", ""),
                "line_items": lines.get(post["ID"], []),
            }
        )
    return found


def customers(state: State) -> list[dict[str, Any]]:
    """Every customer as ``GET /customers/<id>`` answers it."""
    values = meta(state, "wp_usermeta", "user_id")
    found = []
    for user in table(state, "wp_users"):
        m = values[user["ID"]]
        found.append(
            {
                "id": int(user["ID"]),
                "date_created": _iso(user["user_registered"]),
                "email": user["user_email"],
                "first_name": m.get("first_name", ""),
                "last_name": m.get("last_name", ""),
                "role": "customer",
                "username": user["user_login"],
                "billing": {
                    "first_name": m.get("first_name", ""),
                    "last_name": m.get("last_name", ""),
                    "email": m.get("billing_email", ""),
                    "city": m.get("billing_city", ""),
                    "country": m.get("billing_country", ""),
                },
            }
        )
    return found


def one(found: list[dict[str, Any]], ident: int, what: str) -> dict[str, Any]:
    for item in found:
        if item["id"] == ident:
            return item
    raise ToolError(f"woocommerce_rest_{what}_invalid_id: Invalid ID. (404)")


def fields(item: dict[str, Any], wanted: str | None) -> dict[str, Any]:
    """``_fields=a,b``: only those top-level fields, as WordPress' REST API trims."""
    if not wanted:
        return item
    keep = wanted.split(",")
    return {key: value for key, value in item.items() if key in keep}


def _counted(state: State, date_min: str, date_max: str) -> list[dict[str, Any]]:
    return [
        order
        for order in orders(state)
        if "wc-" + order["status"] in SALES and date_min <= order["date_created"][:10] <= date_max
    ]


def sales(state: State, date_min: str, date_max: str) -> list[dict[str, Any]]:
    """``GET /reports/sales?date_min=&date_max=``: totals of the counted orders, and per day."""
    start, end = date.fromisoformat(date_min), date.fromisoformat(date_max)
    if end < start:
        raise ToolError("woocommerce_rest_invalid_date: date_max is before date_min. (400)")
    days = {
        (start + timedelta(days=n)).isoformat(): {
            "sales": 0.0,
            "orders": 0,
            "items": 0,
            "shipping": 0.0,
        }
        for n in range((end - start).days + 1)
    }
    for order in _counted(state, date_min, date_max):
        day = days[order["date_created"][:10]]
        day["sales"] += float(order["total"])
        day["orders"] += 1
        day["items"] += sum(line["quantity"] for line in order["line_items"])
        day["shipping"] += float(order["shipping_total"])
    total = sum(float(d["sales"]) for d in days.values())
    shipping = sum(float(d["shipping"]) for d in days.values())
    net = total - shipping
    totals = {
        key: {
            "sales": f"{d['sales']:.2f}",
            "orders": d["orders"],
            "items": d["items"],
            "tax": "0.00",
            "shipping": f"{d['shipping']:.2f}",
            "discount": "0.00",
            "customers": 0,
        }
        for key, d in days.items()
    }
    return [
        {
            "total_sales": f"{total:.2f}",
            "net_sales": f"{net:.2f}",
            "average_sales": f"{net / len(days):.2f}",
            "total_orders": sum(int(d["orders"]) for d in days.values()),
            "total_items": sum(int(d["items"]) for d in days.values()),
            "total_tax": "0.00",
            "total_shipping": f"{shipping:.2f}",
            "total_refunds": 0,
            "total_discount": "0.00",
            "totals_grouped_by": "day",
            "totals": totals,
            "total_customers": 0,
        }
    ]


def top_sellers(state: State, date_min: str, date_max: str) -> list[dict[str, Any]]:
    """``GET /reports/top_sellers``: quantity sold per product over the counted orders, most
    first (ties by product id)."""
    sold: dict[int, int] = defaultdict(int)
    named: dict[int, str] = {}
    for order in _counted(state, date_min, date_max):
        for line in order["line_items"]:
            sold[line["product_id"]] += line["quantity"]
            named[line["product_id"]] = line["name"]
    ranked = sorted(sold, key=lambda p: (-sold[p], p))
    return [{"name": named[p], "product_id": p, "quantity": sold[p]} for p in ranked]


def order_totals(state: State) -> list[dict[str, Any]]:
    """``GET /reports/orders/totals``: how many orders have each status."""
    counts: dict[str, int] = defaultdict(int)
    for post in posts(state, "shop_order"):
        counts[post["post_status"]] += 1
    return [
        {"slug": status.removeprefix("wc-"), "name": name, "total": counts[status]}
        for status, name in STATUSES.items()
    ]
