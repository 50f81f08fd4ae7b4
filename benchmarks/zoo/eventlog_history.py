"""The history of the ``eventlog`` shape's bank: accounts open over time and events happen to
the open ones, in time order, as an append-only log of ``{"seq", "at", "type", "aggregate_id",
"data"}`` events; no account is overdrawn past its limit, a frozen one only thaws, and a closed
one has no more events."""

from __future__ import annotations

import datetime as dt
import random
from typing import Any

from benchmarks.zoo.kit import CITIES, person, words

CURRENCIES = ["EUR", "GBP", "NOK"]
PRODUCTS = ["current", "savings", "business", "student"]
CHANNELS = ["branch", "atm", "online", "sepa", "card"]
NETWORKS = ["visa", "mastercard", "maestro"]
START = dt.datetime(2023, 1, 2, 8, 0, 0)


class History:
    """The log as it grows, one :meth:`step` at a time, and what the open accounts hold."""

    def __init__(self, rng: random.Random) -> None:
        self.rng, self.clock = rng, START
        self.events: list[dict[str, Any]] = []
        self.open: dict[str, dict[str, Any]] = {}
        self.listed: list[str] = []
        """The open accounts' ids, to draw from (a list of the dict's keys per step is slow)."""
        self.ids: set[str] = set()

    def emit(self, aggregate: str, kind: str, data: dict[str, Any]) -> None:
        at = self.clock.strftime("%Y-%m-%dT%H:%M:%SZ")
        self.events.append(
            {"seq": len(self.events) + 1, "at": at, "type": kind, "aggregate_id": aggregate}
            | {"data": data}
        )

    def step(self) -> None:
        """The next event (or two, for a transfer), a little later than the last."""
        rng = self.rng
        self.clock += dt.timedelta(seconds=rng.randint(60, 7800))
        if len(self.open) < 30 or rng.random() < 0.06:
            self.open_account()
            return
        ident = rng.choice(self.listed)
        account = self.open[ident]
        roll = rng.random()
        if account["frozen"]:
            account["frozen"] = roll < 0.7
            if not account["frozen"]:
                self.emit(ident, "AccountUnfrozen", {})
        elif roll < 0.8:
            self.move_money(ident, account, roll)
        elif roll < 0.92:
            self.card_event(ident, account)
        else:
            self.account_event(ident, account, roll)

    def open_account(self) -> None:
        rng = self.rng
        ident = f"acct-{rng.getrandbits(28):07x}"
        if ident in self.ids:
            return
        first, last = person(rng)
        limit = rng.choice([0, 0, 250, 500, 1000, 2500])
        data = {
            "holder": f"{first} {last}",
            "email": f"{first.lower()}.{last.lower()}@post.example",
            "currency": rng.choice(CURRENCIES),
            "branch": rng.choice(CITIES),
            "product": rng.choice(PRODUCTS),
            "overdraftLimit": limit,
        }
        self.ids.add(ident)
        self.listed.append(ident)
        self.open[ident] = {"balance": 0.0, "limit": limit, "frozen": False, "cards": []}
        self.open[ident]["currency"] = data["currency"]
        self.emit(ident, "AccountOpened", data)

    def move_money(self, ident: str, account: dict[str, Any], roll: float) -> None:
        """A deposit, or a withdrawal or transfer the account can afford."""
        rng = self.rng
        amount = round(rng.uniform(5, 1500), 2)
        if roll < 0.4:
            account["balance"] = round(account["balance"] + amount, 2)
            data = {"amount": amount, "channel": rng.choice(CHANNELS)}
            self.emit(ident, "Deposited", data | {"reference": words(rng, 2)})
            return
        if amount > account["balance"] + account["limit"]:
            return
        other = rng.choice(self.listed)
        account["balance"] = round(account["balance"] - amount, 2)
        if roll < 0.6 or other == ident or self.open[other]["currency"] != account["currency"]:
            self.emit(ident, "Withdrawn", {"amount": amount, "channel": rng.choice(CHANNELS)})
            return
        self.open[other]["balance"] = round(self.open[other]["balance"] + amount, 2)
        shared = {"transferId": f"TRF-{len(self.events) + 700000}", "amount": amount}
        shared["memo"] = words(rng, 3)
        self.emit(ident, "TransferSent", {"to": other} | shared)
        self.emit(other, "TransferReceived", {"from": ident} | shared)

    def card_event(self, ident: str, account: dict[str, Any]) -> None:
        """A new card, or a changed limit or a block of one the account has."""
        rng = self.rng
        if rng.random() < 0.6 or not account["cards"]:
            card = f"CRD-{len(self.events) + 300000}"
            account["cards"].append(card)
            data = {
                "cardId": card,
                "last4": f"{rng.randint(0, 9999):04d}",
                "network": rng.choice(NETWORKS),
                "expires": f"{rng.randint(1, 12):02d}/{rng.randint(26, 30)}",
                "dailyLimit": rng.choice([300, 500, 1000]),
            }
            self.emit(ident, "CardIssued", data)
        elif rng.random() < 0.5:
            data = {"cardId": rng.choice(account["cards"])}
            self.emit(ident, "CardLimitChanged", data | {"dailyLimit": rng.choice([200, 800])})
        else:
            data = {"cardId": rng.choice(account["cards"])}
            self.emit(ident, "CardBlocked", data | {"reason": rng.choice(["lost", "stolen"])})

    def account_event(self, ident: str, account: dict[str, Any], roll: float) -> None:
        """A new e-mail address or overdraft limit, a freeze, or (paid out) a closure."""
        rng = self.rng
        if roll < 0.95:
            email = f"{words(rng, 1)}{rng.randint(1, 99)}@mail.example"
            self.emit(ident, "EmailChanged", {"email": email})
        elif roll < 0.97:
            account["limit"] = rng.choice([0, 500, 1500, 3000])
            self.emit(ident, "OverdraftLimitChanged", {"limit": account["limit"]})
        elif roll < 0.99:
            account["frozen"] = True
            reason = rng.choice(["kyc-review", "fraud-alert", "court-order"])
            self.emit(ident, "AccountFrozen", {"reason": reason})
        elif account["balance"] >= 0:
            if account["balance"] > 0:
                payout = {"amount": round(account["balance"], 2), "channel": "branch"}
                self.emit(ident, "Withdrawn", payout)
            del self.open[ident]
            self.listed.remove(ident)
            self.emit(ident, "AccountClosed", {"reason": "customer-request"})
