"""The ``woo`` shape's data: a WooCommerce shop's WordPress database as phpMyAdmin's JSON export
writes it (one array of a header, the database and a ``{"type": "table", "name", "data"}``
object per table, every value text), in WooCommerce's legacy post storage: products and orders
are rows of ``wp_posts`` told apart by ``post_type``, and their fields are rows of
``wp_postmeta`` (``post_id``, ``meta_key``, ``meta_value``: ``_sku``, ``_price``, ``_stock``,
``_customer_user``, ``_billing_city``...); an order's lines are rows of
``wp_woocommerce_order_items`` whose product, quantity and totals are rows of
``wp_woocommerce_order_itemmeta``; customers are ``wp_users`` with ``wp_usermeta``; categories
are terms linked through ``wp_term_taxonomy`` and ``wp_term_relationships``."""

from __future__ import annotations

import random
from collections import defaultdict
from datetime import datetime
from typing import Any

from benchmarks.zoo.kit import CITIES, FIRST, LAST, WORDS, State, fill, size_of

FILE = "wordpress.json"
TABLES = (
    "wp_users",
    "wp_usermeta",
    "wp_terms",
    "wp_term_taxonomy",
    "wp_term_relationships",
    "wp_posts",
    "wp_postmeta",
    "wp_woocommerce_order_items",
    "wp_woocommerce_order_itemmeta",
)
STATUSES = {
    "wc-pending": "Pending payment",
    "wc-processing": "Processing",
    "wc-on-hold": "On hold",
    "wc-completed": "Completed",
    "wc-cancelled": "Cancelled",
    "wc-refunded": "Refunded",
    "wc-failed": "Failed",
}
CATEGORIES = ["Teapots", "Loose Tea", "Mugs", "Kettles", "Gift Sets", "Accessories"]
KINDS = ["Teapot", "Sencha", "Oolong", "Rooibos", "Mug", "Kettle", "Strainer", "Caddy", "Whisk"]
COUNTRIES = ["DE", "AT", "NL", "BE", "FR", "IE", "SE"]
KEY_CHARS = "abcdefghkmnpqrstuvwxyz0123456789"
PAYMENTS = {"stripe": "Credit Card (Stripe)", "paypal": "PayPal", "bacs": "Direct bank transfer"}


def table(state: State, name: str) -> list[dict[str, Any]]:
    """The rows of a table of the export."""
    for item in state[FILE]:
        if item.get("type") == "table" and item["name"] == name:
            rows: list[dict[str, Any]] = item["data"]
            return rows
    raise KeyError(name)


def table_index(state: State, name: str) -> int:
    """Where a table's object sits in the export's array (for a patch's pointer)."""
    return next(i for i, item in enumerate(state[FILE]) if item.get("name") == name)


def meta(state: State, table_name: str, owner: str) -> dict[str, dict[str, str]]:
    """Each owner's meta rows by key: ``{owner id: {meta_key: meta_value}}``."""
    found: dict[str, dict[str, str]] = defaultdict(dict)
    for row in table(state, table_name):
        found[row[owner]][row["meta_key"]] = row["meta_value"]
    return found


def posts(state: State, post_type: str) -> list[dict[str, Any]]:
    return [row for row in table(state, "wp_posts") if row["post_type"] == post_type]


def _stamp(rng: random.Random, year: int = 2025) -> str:
    month, day = rng.randint(1, 6), rng.randint(1, 28)
    clock = f"{rng.randint(7, 22):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}"
    return f"{year}-{month:02d}-{day:02d} {clock}"


class _Builder:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.rows: dict[str, list[dict[str, Any]]] = {name: [] for name in TABLES}
        self.next_id = {name: 1 for name in TABLES}
        self.post_id = 10
        self.customers: list[str] = []
        self.people: dict[str, dict[str, str]] = {}
        self.slugs: dict[str, int] = defaultdict(int)
        self.products: list[tuple[str, float, str]] = []

    def _row(self, name: str, key: str, row: dict[str, Any]) -> str:
        ident = str(self.next_id[name])
        self.next_id[name] += 1
        self.rows[name].append({key: ident} | row)
        return ident

    def _meta(self, name: str, owner_key: str, owner: str, values: dict[str, str]) -> None:
        key = "umeta_id" if name == "wp_usermeta" else "meta_id"
        for meta_key, value in values.items():
            self._row(name, key, {owner_key: owner, "meta_key": meta_key, "meta_value": value})

    def _post(self, post_type: str, title: str, status: str, date: str, slug: str) -> str:
        self.post_id += self.rng.randint(1, 3)
        ident = str(self.post_id)
        query = "post_type=shop_order&" if post_type == "shop_order" else "post_type=product&"
        self.rows["wp_posts"].append(
            {
                "ID": ident,
                "post_author": "1",
                "post_date": date,
                "post_content": "",
                "post_title": title,
                "post_excerpt": "",
                "post_status": status,
                "comment_status": "closed" if post_type == "shop_order" else "open",
                "post_name": slug,
                "post_modified": date,
                "post_parent": "0",
                "guid": f"https://teahaus.example/?{query}p={ident}",
                "menu_order": "0",
                "post_type": post_type,
            }
        )
        return ident

    def _slug(self, wanted: str) -> str:
        """A post's unique ``post_name``: WordPress suffixes ``-2``, ``-3`` to a taken one."""
        self.slugs[wanted] += 1
        return wanted if self.slugs[wanted] == 1 else f"{wanted}-{self.slugs[wanted]}"

    def categories(self) -> None:
        for name in CATEGORIES:
            term = self._row("wp_terms", "term_id", {"name": name, "slug": name.lower()})
            term_row = {"term_id": term, "taxonomy": "product_cat", "parent": "0", "count": "0"}
            self._row("wp_term_taxonomy", "term_taxonomy_id", term_row)

    def customer(self) -> None:
        rng = self.rng
        first, last = rng.choice(FIRST), rng.choice(LAST)
        login = f"{first}.{last}{rng.randint(1, 99)}".lower()
        email = f"{login}@mail.example"
        user = self._row(
            "wp_users",
            "ID",
            {
                "user_login": login,
                "user_email": email,
                "user_registered": _stamp(rng, 2024),
                "display_name": f"{first} {last}",
            },
        )
        city, country = rng.choice(CITIES), rng.choice(COUNTRIES)
        values = {"first_name": first, "last_name": last, "billing_city": city}
        values |= {"billing_country": country, "billing_email": email}
        values["wp_capabilities"] = 'a:1:{s:8:"customer";b:1;}'
        self._meta("wp_usermeta", "user_id", user, values)
        self.customers.append(user)
        self.people[user] = values

    def product(self) -> None:
        rng = self.rng
        name = f"{rng.choice(WORDS).title()} {rng.choice(KINDS)}"
        regular = round(rng.uniform(4, 160), 2)
        sale = round(regular * 0.8, 2) if rng.random() < 0.25 else None
        slug = self._slug(name.lower().replace(" ", "-"))
        ident = self._post("product", name, "publish", _stamp(rng, 2024), slug)
        sku = f"TH-{name.split()[-1][:3].upper()}-{int(ident):05d}"
        stock = rng.randint(0, 120)
        values = {
            "_sku": sku,
            "_regular_price": f"{regular:.2f}",
            "_sale_price": "" if sale is None else f"{sale:.2f}",
            "_price": f"{sale if sale is not None else regular:.2f}",
            "_manage_stock": "yes",
            "_stock": str(stock),
            "_stock_status": "instock" if stock else "outofstock",
            "_weight": f"{rng.uniform(0.1, 2.5):.2f}",
            "total_sales": "0",
        }
        self._meta("wp_postmeta", "post_id", ident, values)
        taxonomy = str(rng.randint(1, len(CATEGORIES)))
        link = {"object_id": ident, "term_taxonomy_id": taxonomy, "term_order": "0"}
        self.rows["wp_term_relationships"].append(link)
        counted = self.rows["wp_term_taxonomy"][int(taxonomy) - 1]
        counted["count"] = str(int(counted["count"]) + 1)
        self.products.append((ident, sale if sale is not None else regular, name))

    def order(self) -> None:
        rng = self.rng
        date = _stamp(rng)
        status = rng.choices(list(STATUSES), [1, 3, 1, 8, 1, 1, 1])[0]
        when = datetime.fromisoformat(date)
        title = f"Order &ndash; {when:%B} {when.day}, {when:%Y @ %I:%M %p}"
        slug = self._slug(f"order-{when:%b}-{when.day:02d}-{when:%Y-%H%M-%p}".lower())
        ident = self._post("shop_order", title, status, date, slug)
        user = rng.choice(self.customers)
        total = 0.0
        for product, price, name in rng.sample(self.products, rng.randint(1, 3)):
            qty = rng.randint(1, 4)
            line = round(price * qty, 2)
            total += line
            item_row = {"order_item_name": name, "order_item_type": "line_item"}
            item = self._row(
                "wp_woocommerce_order_items", "order_item_id", item_row | {"order_id": ident}
            )
            values = {"_product_id": product, "_variation_id": "0", "_qty": str(qty)}
            values |= {"_line_subtotal": f"{line:.2f}", "_line_total": f"{line:.2f}"}
            values |= {"_line_tax": "0", "_reduced_stock": str(qty)}
            self._meta("wp_woocommerce_order_itemmeta", "order_item_id", item, values)
        shipping = 0.0 if total >= 50 else 4.95
        ship_row = {"order_item_name": "DHL Paket", "order_item_type": "shipping"}
        ship_row["order_id"] = ident
        item = self._row("wp_woocommerce_order_items", "order_item_id", ship_row)
        cost = {"cost": f"{shipping:.2f}"}
        self._meta("wp_woocommerce_order_itemmeta", "order_item_id", item, cost)
        self._order_meta(ident, user, date, status, total + shipping, shipping)

    def _order_meta(
        self, ident: str, user: str, date: str, status: str, total: float, shipping: float
    ) -> None:
        rng = self.rng
        person = self.people[user]
        method = rng.choice(list(PAYMENTS))
        values = {
            "_order_key": "wc_order_" + "".join(rng.choice(KEY_CHARS) for _ in range(13)),
            "_customer_user": user,
            "_order_currency": "EUR",
            "_order_total": f"{total:.2f}",
            "_order_shipping": f"{shipping:.2f}",
            "_order_tax": "0.00",
            "_cart_discount": "0",
            "_billing_first_name": person["first_name"],
            "_billing_last_name": person["last_name"],
            "_billing_email": person["billing_email"],
            "_billing_city": person["billing_city"],
            "_billing_country": person["billing_country"],
            "_payment_method": method,
            "_payment_method_title": PAYMENTS[method],
        }
        if status in ("wc-processing", "wc-completed", "wc-refunded"):
            values["_paid_date"] = date
        if status == "wc-completed":
            values["_completed_date"] = date
        self._meta("wp_postmeta", "post_id", ident, values)

    def export(self) -> State:
        header = {"type": "header", "version": "5.2.1"}
        header["comment"] = "Export to JSON plugin for PHPMyAdmin"
        tables = [
            {"type": "table", "name": name, "database": "wordpress", "data": self.rows[name]}
            for name in TABLES
        ]
        return {FILE: [header, {"type": "database", "name": "wordpress"}, *tables]}


def database(rng: random.Random, target_bytes: int) -> State:
    builder = _Builder(rng)
    builder.categories()
    for _ in range(6):
        builder.customer()
    for _ in range(8):
        builder.product()
    state = builder.export()
    step = [0]

    def add() -> None:
        step[0] += 1
        if step[0] % 5 == 0:
            builder.customer()
        elif step[0] % 3 == 0:
            builder.product()
        else:
            builder.order()

    fill(add, lambda: size_of(state), target_bytes)
    sold: dict[str, int] = defaultdict(int)
    items = meta(state, "wp_woocommerce_order_itemmeta", "order_item_id")
    for values in items.values():
        if "_product_id" in values:
            sold[values["_product_id"]] += int(values["_qty"])
    for row in table(state, "wp_postmeta"):
        if row["meta_key"] == "total_sales":
            row["meta_value"] = str(sold[row["post_id"]])
    return state
