"""``stripe``: a subscription business's Stripe account, as the API's list endpoints export it:
``list`` objects of customers, products, invoices, charges and refunds; prefixed ids
(``cus_``, ``in_``, ``ch_``); amounts in cents; times as Unix seconds; expandable references as
bare ids; ``metadata`` values as strings (an order id ``"100482"``); an invoice's lines a nested
list with each price expanded. Tools take an email, an invoice number (not its id), an order id
as an integer, amounts in major units and dates as ``YYYY-MM-DD``; a search answers a ``list``;
the products a customer was billed for is a join through invoices and their lines; a month's
revenue is a sum no object holds; a refund adds a ``refund`` and changes the charge."""

from __future__ import annotations

import random
from typing import Any

from benchmarks.zoo.kit import (
    Answer,
    Filter,
    Planned,
    Search,
    State,
    Tool,
    ToolError,
    note_tool,
    pointer,
    prop,
)
from benchmarks.zoo.shape import Shape
from benchmarks.zoo.stripe_objects import (
    BRANDS,
    CURRENCIES,
    EXPORTED,
    account,
    day_of,
    listed,
    month_of,
    stripe_id,
)

STATUSES = ["succeeded", "failed", "pending"]
LISTED = ("id", "amount", "amount_refunded", "currency", "status", "created", "customer")
"""The fields ``list_charges`` shows of a charge."""


def _data(state: State, collection: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = state[collection]["data"]
    return found


def _charge_view(charge: dict[str, Any]) -> dict[str, Any]:
    """A charge with the figures the search takes: major units and the UTC day."""
    return charge | {
        "amount_major": charge["amount"] / 100,
        "created_day": day_of(charge["created"]),
    }


def _charges(state: State) -> list[tuple[str, dict[str, Any]]]:
    return [(c["id"], _charge_view(c)) for c in _data(state, "charges")]


def _shown(key: str, view: dict[str, Any]) -> dict[str, Any]:
    return {"object": "charge"} | {k: view[k] for k in LISTED}


def _revenue(state: State, args: dict[str, Any]) -> Answer:
    month, currency = args["month"], args["currency"].lower()
    charges = [
        c
        for c in _data(state, "charges")
        if c["status"] == "succeeded"
        and c["currency"] == currency
        and month_of(c["created"]) == month
    ]
    gross = sum(c["amount_captured"] for c in charges)
    refunded = sum(c["amount_refunded"] for c in charges)
    return {
        "month": month,
        "currency": currency,
        "charges": len(charges),
        "customers": len({c["customer"] for c in charges}),
        "gross": gross,
        "refunded": refunded,
        "net": gross - refunded,
    }, []


class Stripe(Shape):
    name = "stripe"
    title = "Billing assistant over a Stripe account"
    description = (
        "A SaaS company's billing data in Stripe: customers, subscription invoices, card "
        "charges (from invoices and one-off web or shop orders) and refunds. Amounts are in "
        "the smallest currency unit unless a tool says otherwise; times are Unix seconds; "
        "errors are text starting with 'Error:'."
    )
    note = ("add_note", "note")

    def __init__(self) -> None:
        self.finder = Search(
            "list_charges",
            "Charges by status, currency, card brand or last 4 digits, amount range (major "
            "units, e.g. 29.00), creation day range and whether fully refunded; newest last.",
            _charges,
            [
                Filter("status", "status", "eq", prop("string", "Status.", enum=STATUSES)),
                Filter("currency", "currency", "eq", prop("string", "ISO code.", enum=CURRENCIES)),
                Filter(
                    "card_brand",
                    "payment_method_details.card.brand",
                    "eq",
                    prop("string", "Card brand.", enum=sorted(set(BRANDS))),
                ),
                Filter("card_last4", "payment_method_details.card.last4", "eq", prop("string", "")),
                Filter("min_amount", "amount_major", "ge", prop("number", "Least amount.")),
                Filter("max_amount", "amount_major", "le", prop("number", "Most amount.")),
                Filter("created_from", "created_day", "ge", prop("string", "YYYY-MM-DD (UTC).")),
                Filter("created_to", "created_day", "le", prop("string", "YYYY-MM-DD (UTC).")),
                Filter("refunded", "refunded", "eq", prop("boolean", "Fully refunded.")),
            ],
            _shown,
            limit=10,
        )

    def build(self, rng: random.Random, target_bytes: int) -> State:
        return account(rng, target_bytes)

    def tools(self) -> list[Tool]:
        email = {"email": prop("string", "The customer's email address.")}
        charge = {"charge_id": prop("string", "Charge id, ch_...")}
        return [
            Tool("find_customer", "The customer with an email.", email, self._customer, ("email",)),
            Tool(
                "get_invoice",
                "An invoice with its line items, by invoice number (e.g. 7F3KQ2ZX-0002).",
                {"invoice_number": prop("string", "The number printed on the invoice.")},
                self._invoice,
                ("invoice_number",),
            ),
            Tool(
                "charge_for_order",
                "The charge of a web or shop order.",
                {"order_id": prop("integer", "The shop's order number.")},
                self._order,
                ("order_id",),
            ),
            Tool("get_charge", "A charge by id.", charge, self._charge, ("charge_id",)),
            Tool(
                "list_charges", self.finder.description, self.finder.tool().properties, self._find
            ),
            Tool(
                "customer_products",
                "The products a customer was invoiced for: invoices and amount per product.",
                email,
                self._products,
                ("email",),
            ),
            Tool(
                "revenue_report",
                "Succeeded charges of a month in a currency: count, customers, gross captured, "
                "refunded and net, in the smallest unit.",
                {
                    "month": prop("string", "YYYY-MM (UTC)."),
                    "currency": prop("string", "ISO code.", enum=CURRENCIES),
                },
                _revenue,
                ("month", "currency"),
                output={
                    "type": "object",
                    "properties": {k: {"type": "integer"} for k in ("gross", "refunded", "net")},
                },
            ),
            Tool(
                "refund_charge",
                "Refund a succeeded charge, fully or (with amount) partly.",
                charge | {"amount": prop("integer", "Amount in cents; the rest if left out.")},
                self._refund,
                ("charge_id",),
                effect="write",
            ),
            note_tool("add_note", "note", "Add a note to the support ticket (answers nothing)."),
        ]

    def _find_customer(self, state: State, email: str) -> dict[str, Any]:
        for customer in _data(state, "customers"):
            if customer["email"] == email.lower():
                return customer
        raise ToolError(f"No such customer: '{email}'")

    def _customer(self, state: State, args: dict[str, Any]) -> Answer:
        return self._find_customer(state, args["email"]), []

    def _invoice(self, state: State, args: dict[str, Any]) -> Answer:
        for invoice in _data(state, "invoices"):
            if invoice["number"] == args["invoice_number"]:
                return invoice, []
        raise ToolError(f"No such invoice: '{args['invoice_number']}'")

    def _order(self, state: State, args: dict[str, Any]) -> Answer:
        for charge in _data(state, "charges"):
            if charge["metadata"].get("order_id") == str(args["order_id"]):
                return charge, []
        raise ToolError(f"no charge for order {args['order_id']}")

    def _at(self, state: State, ident: str) -> tuple[int, dict[str, Any]]:
        for n, charge in enumerate(_data(state, "charges")):
            if charge["id"] == ident:
                return n, charge
        raise ToolError(f"No such charge: '{ident}'")

    def _charge(self, state: State, args: dict[str, Any]) -> Answer:
        return self._at(state, args["charge_id"])[1], []

    def _find(self, state: State, args: dict[str, Any]) -> Answer:
        found = self.finder.matches(state, args)
        page = found[: self.finder.limit]
        return listed("/v1/charges", page) | {"has_more": len(found) > len(page)}, []

    def _products(self, state: State, args: dict[str, Any]) -> Answer:
        customer = self._find_customer(state, args["email"])
        names = {p["id"]: p["name"] for p in _data(state, "products")}
        billed: dict[str, dict[str, Any]] = {}
        for invoice in _data(state, "invoices"):
            if invoice["customer"] != customer["id"] or invoice["status"] == "void":
                continue
            for line in invoice["lines"]["data"]:
                product = line["price"]["product"]
                row = billed.setdefault(
                    product,
                    {"product": product, "name": names[product], "invoices": [], "amount": 0},
                )
                row["invoices"].append(invoice["number"])
                row["amount"] += line["amount"]
        return {
            "customer": customer["id"],
            "currency": customer["currency"],
            "products": sorted(billed.values(), key=lambda row: str(row["name"])),
        }, []

    def _refund(self, state: State, args: dict[str, Any]) -> Answer:
        n, charge = self._at(state, args["charge_id"])
        left = charge["amount_captured"] - charge["amount_refunded"]
        amount = args.get("amount", left)
        if charge["status"] != "succeeded" or left <= 0:
            raise ToolError(f"Charge {charge['id']} has already been refunded or did not succeed.")
        if not 0 < amount <= left:
            raise ToolError(f"Refund amount ({amount}) is greater than unrefunded amount ({left}).")
        refunds = _data(state, "refunds")
        refund = {
            "id": stripe_id(random.Random(f"{charge['id']}/{len(refunds)}"), "re_3"),
            "object": "refund",
            "amount": amount,
            "charge": charge["id"],
            "created": EXPORTED + 60 * (len(refunds) + 1),
            "currency": charge["currency"],
            "reason": "requested_by_customer",
            "status": "succeeded",
        }
        refunded = charge["amount_refunded"] + amount
        return refund, [
            {"op": "add", "path": pointer("refunds", "data", "-"), "value": refund},
            {
                "op": "replace",
                "path": pointer("charges", "data", n, "amount_refunded"),
                "value": refunded,
            },
            {
                "op": "replace",
                "path": pointer("charges", "data", n, "refunded"),
                "value": refunded == charge["amount"],
            },
        ]

    def lookup(self, rng: random.Random, state: State) -> Planned:
        email = rng.choice(_data(state, "customers"))["email"]
        return Planned("lookup", "find_customer", {"email": email})

    def nested_lookup(self, rng: random.Random, state: State) -> Planned:
        orders = [c for c in _data(state, "charges") if "order_id" in c["metadata"]]
        if orders and rng.random() < 0.5:
            order = int(rng.choice(orders)["metadata"]["order_id"])
            return Planned("nested_lookup", "charge_for_order", {"order_id": order})
        number = rng.choice(_data(state, "invoices"))["number"]
        return Planned("nested_lookup", "get_invoice", {"invoice_number": number})

    def search(self, rng: random.Random, state: State) -> Planned:
        return Planned("search", "list_charges", self.finder.plan(rng, state))

    def join(self, rng: random.Random, state: State) -> Planned:
        invoice = rng.choice(_data(state, "invoices"))
        return Planned("join", "customer_products", {"email": invoice["customer_email"]})

    def aggregate(self, rng: random.Random, state: State) -> Planned:
        charge = rng.choice(_data(state, "charges"))
        args = {"month": month_of(charge["created"]), "currency": charge["currency"]}
        return Planned("aggregate", "revenue_report", args)

    def write(self, rng: random.Random, state: State) -> tuple[Planned, Planned]:
        open_ = [
            c
            for c in _data(state, "charges")
            if c["status"] == "succeeded" and c["amount_refunded"] < c["amount_captured"]
        ]
        charge = rng.choice(open_)
        args: dict[str, Any] = {"charge_id": charge["id"]}
        left = charge["amount_captured"] - charge["amount_refunded"]
        if rng.random() < 0.5 and left > 100:
            args["amount"] = rng.randint(1, left // 100) * 100
        return Planned("write", "refund_charge", args), Planned(
            "read_after_write", "get_charge", {"charge_id": charge["id"]}
        )

    def no_match(self, rng: random.Random, state: State) -> Planned:
        args = {"currency": rng.choice(CURRENCIES), "min_amount": 250000.0}
        return Planned("empty", "list_charges", args)
