"""``shop``: records referenced from nested lists: orders (keyed by reference) whose lines
name products by integer id; products in an array with a nested ``meta`` object; customers
keyed by id. Totals are computed over an order's lines."""

from __future__ import annotations

import random
from typing import Any

from benchmarks.zoo.kit import (
    CITIES,
    Answer,
    Filter,
    Planned,
    Search,
    State,
    Tool,
    ToolError,
    day,
    fill,
    note_tool,
    person,
    pointer,
    prop,
    size_of,
    summary,
    words,
)
from benchmarks.zoo.shape import Shape

BRANDS = ["Nordwell", "Kitely", "Brava", "Oakum", "Pellam", "Stroud", "Vinto"]
COLORS = ["black", "white", "red", "green", "blue", "sand", "grey"]


def _products(state: State) -> list[tuple[str, dict[str, Any]]]:
    return [(str(p["id"]), p) for p in state["products"]]


class Shop(Shape):
    name = "shop"
    title = "Web shop back office"
    description = (
        "The back office of a web shop: products, customers and orders whose lines refer to "
        "products by id. JSON answers; errors are text starting with 'Error:'."
    )

    def __init__(self) -> None:
        self.finder = Search(
            "searchProducts",
            "Products by brand, colour, price range or name words.",
            _products,
            [
                Filter("brand", "meta.brand", "eq", prop("string", "Brand.", enum=BRANDS)),
                Filter("colour", "meta.color", "eq", prop("string", "Colour.", enum=COLORS)),
                Filter("min_price", "price", "ge", prop("number", "Lowest price.")),
                Filter("max_price", "price", "le", prop("number", "Highest price.")),
                Filter("q", "name", "contains", prop("string", "Words of the name.")),
            ],
            lambda _, p: {
                "id": p["id"],
                "name": p["name"],
                "price": p["price"],
                "brand": p["meta"]["brand"],
            },
            limit=20,
            wrap="results",
        )

    def build(self, rng: random.Random, target_bytes: int) -> State:
        state: State = {"products": [], "customers": {}, "orders": {}}

        def product() -> None:
            state["products"].append(
                {
                    "id": 7001 + len(state["products"]) * 2,
                    "name": f"{words(rng, 1).title()} {rng.choice(['Lamp', 'Chair', 'Kettle', 'Jacket', 'Backpack', 'Mug'])}",
                    "price": round(rng.uniform(3, 600), 2),
                    "stock": rng.randint(0, 300),
                    "meta": {
                        "brand": rng.choice(BRANDS),
                        "color": rng.choice(COLORS),
                        "createdAt": day(rng, 2023),
                    },
                }
            )

        def customer() -> None:
            first, last = person(rng)
            cid = f"cus_{rng.randint(10**7, 10**8 - 1)}"
            state["customers"][cid] = {
                "id": cid,
                "displayName": f"{first} {last}",
                "email": f"{first[0].lower()}{last.lower()}@shop.example",
                "address": {
                    "street": f"{rng.randint(1, 200)} {words(rng, 1).title()} Road",
                    "city": rng.choice(CITIES),
                    "postcode": f"{rng.randint(1000, 9999)}",
                },
            }
            for _ in range(rng.randint(1, 4)):
                ref = f"SO-{rng.randint(2024, 2025)}-{len(state['orders']) + 100001}"
                lines = [
                    {"product": p["id"], "qty": rng.randint(1, 4), "unitPrice": p["price"]}
                    for p in rng.sample(state["products"], rng.randint(1, 5))
                ]
                state["orders"][ref] = {
                    "customer": cid,
                    "placedAt": f"{day(rng, 2025)}T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:00Z",
                    "status": rng.choice(["paid", "shipped", "delivered", "cancelled"]),
                    "lines": lines,
                }

        fill(product, lambda: size_of(state["products"]), int(target_bytes * 0.25))
        fill(customer, lambda: size_of(state), target_bytes)
        return state

    def tools(self) -> list[Tool]:
        ref = {"order_ref": prop("string", "Order reference, e.g. SO-2025-100017.")}
        return [
            Tool("fetchOrder", "An order.", ref, self._order, ("order_ref",)),
            Tool(
                "fetchCustomer",
                "A customer.",
                {"customerId": prop("string", "Id.")},
                self._customer,
                ("customerId",),
            ),
            Tool(
                "fetchOrderLine",
                "One line of an order (numbered from 1).",
                ref | {"line_no": prop("integer", "Line number, from 1.")},
                self._line,
                ("order_ref", "line_no"),
            ),
            self.finder.tool(),
            Tool(
                "orderProducts",
                "The products an order's lines refer to.",
                ref,
                self._order_products,
                ("order_ref",),
            ),
            Tool(
                "orderTotal",
                "An order's item count and total amount.",
                ref,
                self._total,
                ("order_ref",),
            ),
            Tool(
                "addOrderLine",
                "Add a product to an order.",
                ref
                | {
                    "productId": prop("integer", "Product id."),
                    "quantity": prop("integer", "How many."),
                },
                self._add_line,
                ("order_ref", "productId", "quantity"),
                effect="write",
            ),
            note_tool("think", "thought", "Think (answers nothing)."),
        ]

    def _order(self, state: State, args: dict[str, Any]) -> Answer:
        found = state["orders"].get(args["order_ref"])
        if found is None:
            raise ToolError("order not found")
        return {"order_ref": args["order_ref"], **found}, []

    def _customer(self, state: State, args: dict[str, Any]) -> Answer:
        found = state["customers"].get(args["customerId"])
        if found is None:
            raise ToolError("customer not found")
        return found, []

    def _line(self, state: State, args: dict[str, Any]) -> Answer:
        lines = self._order(state, args)[0]["lines"]
        if not 1 <= args["line_no"] <= len(lines):
            raise ToolError("no such line")
        return {
            "order_ref": args["order_ref"],
            "line_no": args["line_no"],
            **lines[args["line_no"] - 1],
        }, []

    def _product(self, state: State, pid: int) -> dict[str, Any]:
        index = (pid - 7001) // 2
        if pid % 2 == 0 or not 0 <= index < len(state["products"]):
            raise ToolError("product not found")
        product: dict[str, Any] = state["products"][index]
        return product

    def _order_products(self, state: State, args: dict[str, Any]) -> Answer:
        lines = self._order(state, args)[0]["lines"]
        return [self._product(state, line["product"]) for line in lines], []

    def _total(self, state: State, args: dict[str, Any]) -> Answer:
        lines = self._order(state, args)[0]["lines"]
        return {
            "items": summary("sum", [line["qty"] for line in lines]),
            "amount": round(sum(line["qty"] * line["unitPrice"] for line in lines), 2),
            "currency": "EUR",
        }, []

    def _add_line(self, state: State, args: dict[str, Any]) -> Answer:
        order = self._order(state, args)[0]
        product = self._product(state, args["productId"])
        line = {"product": product["id"], "qty": args["quantity"], "unitPrice": product["price"]}
        path = pointer("orders", args["order_ref"], "lines") + "/-"
        return {"order_ref": args["order_ref"], "line_no": len(order["lines"]) + 1, **line}, [
            {"op": "add", "path": path, "value": line}
        ]

    def _ref(self, rng: random.Random, state: State) -> str:
        ref: str = rng.choice(sorted(state["orders"]))
        return ref

    def lookup(self, rng: random.Random, state: State) -> Planned:
        if rng.random() < 0.7:
            return Planned("lookup", "fetchOrder", {"order_ref": self._ref(rng, state)})
        return Planned(
            "lookup", "fetchCustomer", {"customerId": rng.choice(sorted(state["customers"]))}
        )

    def nested_lookup(self, rng: random.Random, state: State) -> Planned:
        ref = self._ref(rng, state)
        line = rng.randint(1, len(state["orders"][ref]["lines"]))
        return Planned("nested_lookup", "fetchOrderLine", {"order_ref": ref, "line_no": line})

    def search(self, rng: random.Random, state: State) -> Planned:
        return Planned("search", "searchProducts", self.finder.plan(rng, state))

    def join(self, rng: random.Random, state: State) -> Planned:
        return Planned("join", "orderProducts", {"order_ref": self._ref(rng, state)})

    def aggregate(self, rng: random.Random, state: State) -> Planned:
        return Planned("aggregate", "orderTotal", {"order_ref": self._ref(rng, state)})

    def write(self, rng: random.Random, state: State) -> tuple[Planned, Planned]:
        ref = self._ref(rng, state)
        args = {
            "order_ref": ref,
            "productId": rng.choice(state["products"])["id"],
            "quantity": rng.randint(1, 3),
        }
        read = {"order_ref": ref, "line_no": len(state["orders"][ref]["lines"]) + 1}
        return Planned("write", "addOrderLine", args), Planned(
            "read_after_write", "fetchOrderLine", read
        )

    def no_match(self, rng: random.Random, state: State) -> Planned:
        return Planned(
            "empty", "searchProducts", {"brand": rng.choice(BRANDS), "min_price": 10_000}
        )
