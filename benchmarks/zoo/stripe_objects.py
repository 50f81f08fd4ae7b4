"""A Stripe account's objects as the API lists them (the ``stripe`` shape's state): each
collection a ``list`` object (``{"object": "list", "url", "has_more", "data"}``); ids with a
type prefix (``cus_``, ``in_``, ``ch_``, ``prod_``, ``price_``, ``re_``); amounts as integers in
the currency's smallest unit (cents); times as Unix seconds; expandable references left as bare
ids (an invoice's ``customer`` and ``charge``); ``metadata`` values always strings; an invoice's
line items a nested ``list`` with the ``price`` expanded."""

from __future__ import annotations

import random
import string
from datetime import UTC, datetime
from typing import Any

from benchmarks.zoo.kit import CITIES, WORDS, State, fill, person, size_of

ALPHABET = string.ascii_letters + string.digits
START = 1_735_689_600
"""2025-01-01T00:00:00Z: the account's first object."""
EXPORTED = 1_764_547_200
"""2025-12-01T00:00:00Z: when the export was taken."""
CURRENCIES = ["eur", "eur", "eur", "gbp", "usd"]
BRANDS = ["visa", "visa", "mastercard", "amex"]
FAILURES = ["card_declined", "expired_card", "insufficient_funds", "incorrect_cvc"]
PLANS = [("Starter", 900), ("Team", 2900), ("Business", 7900), ("Scale", 19900)]
ADDONS = [("Extra seats", 500), ("Priority support", 4900), ("Audit log", 1500)]


def stripe_id(rng: random.Random, prefix: str, length: int = 24) -> str:
    return prefix + "".join(rng.choice(ALPHABET) for _ in range(length))


def listed(url: str, data: list[dict[str, Any]]) -> dict[str, Any]:
    return {"object": "list", "url": url, "has_more": False, "data": data}


def day_of(epoch: int) -> str:
    """The UTC day of a Unix time (``2025-03-14``)."""
    return datetime.fromtimestamp(epoch, UTC).date().isoformat()


def month_of(epoch: int) -> str:
    return day_of(epoch)[:7]


def _product(rng: random.Random, name: str, unit_amount: int) -> dict[str, Any]:
    ident = stripe_id(rng, "prod_", 14)
    price = {
        "id": stripe_id(rng, "price_1"),
        "object": "price",
        "active": True,
        "currency": "eur",
        "product": ident,
        "recurring": {"interval": "month", "interval_count": 1},
        "type": "recurring",
        "unit_amount": unit_amount,
        "unit_amount_decimal": str(unit_amount),
    }
    # A multi-currency price: its amount in each other currency it is sold in.
    price["currency_options"] = {
        currency: {"unit_amount": round(unit_amount * rate / 100) * 100}
        for currency, rate in (("gbp", 0.86), ("usd", 1.08))
    } | {"eur": {"unit_amount": unit_amount}}
    return {
        "id": ident,
        "object": "product",
        "active": True,
        "name": name,
        "created": START - rng.randint(86_400, 90 * 86_400),
        "default_price": price,
        "metadata": {"sku": f"{name[:3].upper()}-{rng.randint(100, 999)}"},
    }


def _customer(rng: random.Random, created: int, serial: int) -> dict[str, Any]:
    first, last = person(rng)
    return {
        "id": stripe_id(rng, "cus_", 14),
        "object": "customer",
        "address": {
            "city": rng.choice(CITIES),
            "country": rng.choice(["DE", "FR", "GB", "IE", "NL", "US"]),
            "line1": f"{rng.randint(1, 240)} {rng.choice(WORDS).title()} Road",
            "postal_code": str(rng.randint(10000, 99999)),
        },
        "balance": rng.choice([0, 0, 0, -500, 1200]),
        "created": created,
        "currency": rng.choice(CURRENCIES),
        "delinquent": False,
        "email": f"{first.lower()}.{last.lower()}{serial}@example.com",
        "invoice_prefix": "".join(
            rng.choice(string.ascii_uppercase + string.digits) for _ in "12345678"
        ),
        "livemode": True,
        "metadata": {"crm_id": str(rng.randint(10000, 99999)), "segment": rng.choice(WORDS)},
        "name": f"{first} {last}",
        "tax_exempt": rng.choice(["none", "none", "reverse"]),
    }


def charge(
    rng: random.Random, customer: dict[str, Any], amount: int, created: int, invoice: str | None
) -> dict[str, Any]:
    failed = rng.random() < 0.12
    refunded = 0 if failed or rng.random() < 0.9 else rng.choice([amount, amount // 2])
    brand = rng.choice(BRANDS)
    return {
        "id": stripe_id(rng, "ch_3"),
        "object": "charge",
        "amount": amount,
        "amount_captured": 0 if failed else amount,
        "amount_refunded": refunded,
        "billing_details": {"email": customer["email"], "name": customer["name"]},
        "captured": not failed,
        "created": created,
        "currency": customer["currency"],
        "customer": customer["id"],
        "description": None,
        "failure_code": rng.choice(FAILURES) if failed else None,
        "invoice": invoice,
        "livemode": True,
        "metadata": {},
        "paid": not failed,
        "payment_method_details": {
            "type": "card",
            "card": {
                "brand": brand,
                "country": customer["address"]["country"],
                "exp_month": rng.randint(1, 12),
                "exp_year": rng.randint(2026, 2031),
                "funding": rng.choice(["credit", "debit"]),
                "last4": f"{rng.randint(0, 9999):04d}",
            },
        },
        "refunded": refunded == amount,
        "status": "failed" if failed else "succeeded",
    }


def _line(rng: random.Random, product: dict[str, Any], start: int, currency: str) -> dict[str, Any]:
    quantity = rng.choice([1, 1, 1, 2, 3, 5])
    price = product["default_price"]
    return {
        "id": stripe_id(rng, "il_1"),
        "object": "line_item",
        "amount": price["currency_options"][currency]["unit_amount"] * quantity,
        "currency": currency,
        "description": f"{quantity} × {product['name']}",
        "period": {"start": start, "end": start + 30 * 86_400},
        "price": price,
        "quantity": quantity,
    }


def _invoice(
    rng: random.Random, customer: dict[str, Any], number: int, created: int, bought: list[Any]
) -> dict[str, Any]:
    lines = [_line(rng, product, created, customer["currency"]) for product in bought]
    total = sum(line["amount"] for line in lines)
    status = rng.choice(["paid"] * 8 + ["open", "void", "uncollectible"])
    ident = stripe_id(rng, "in_1")
    return {
        "id": ident,
        "object": "invoice",
        "amount_due": total,
        "amount_paid": total if status == "paid" else 0,
        "amount_remaining": 0 if status in ("paid", "void") else total,
        "charge": None,
        "collection_method": "charge_automatically",
        "created": created,
        "currency": customer["currency"],
        "customer": customer["id"],
        "customer_email": customer["email"],
        "due_date": None,
        "lines": {**listed(f"/v1/invoices/{ident}/lines", lines), "total_count": len(lines)},
        "number": f"{customer['invoice_prefix']}-{number:04d}",
        "period_end": created,
        "period_start": created - 30 * 86_400,
        "status": status,
        "status_transitions": {
            "finalized_at": created + 3600,
            "paid_at": created + 3700 if status == "paid" else None,
        },
        "subtotal": total,
        "total": total,
    }


def account(rng: random.Random, target_bytes: int) -> State:
    """The account's export, of about ``target_bytes``: products, customers, invoices,
    charges (an invoice's and one-off orders') and refunds, each in creation order."""
    products = [_product(rng, f"{name} plan", amount) for name, amount in PLANS]
    products += [_product(rng, name, amount) for name, amount in ADDONS]
    state: State = {
        "products": listed("/v1/products", products),
        "customers": listed("/v1/customers", []),
        "invoices": listed("/v1/invoices", []),
        "charges": listed("/v1/charges", []),
        "refunds": listed("/v1/refunds", []),
    }
    orders = [100_000]

    def add() -> None:
        created = rng.randint(START, EXPORTED - 120 * 86_400)
        customer = _customer(rng, created, len(state["customers"]["data"]) + 7)
        state["customers"]["data"].append(customer)
        plan = rng.choice(products[: len(PLANS)])
        for number in range(1, rng.randint(2, 5)):
            when = created + number * 30 * 86_400 + rng.randint(0, 3600)
            bought = [plan, *rng.sample(products[len(PLANS) :], rng.randint(0, 2))]
            invoice = _invoice(rng, customer, number, when, bought)
            state["invoices"]["data"].append(invoice)
            if invoice["status"] in ("paid", "uncollectible"):
                paid = charge(rng, customer, invoice["total"], when + 3700, invoice["id"])
                invoice["charge"] = paid["id"]
                state["charges"]["data"].append(paid)
        for _ in range(rng.choice([0, 0, 1, 2])):
            orders[0] += rng.randint(1, 40)
            when = rng.randint(created, EXPORTED - 86_400)
            order = charge(rng, customer, rng.randint(5, 400) * 100 - 1, when, None)
            order["metadata"] = {"order_id": str(orders[0]), "channel": rng.choice(["web", "pos"])}
            order["description"] = f"Order #{orders[0]}"
            state["charges"]["data"].append(order)

    fill(add, lambda: size_of(state), target_bytes)
    for collection in ("invoices", "charges"):
        state[collection]["data"].sort(key=lambda item: item["created"])
    return state
