"""``eventlog``: an event-sourced store of bank accounts: the state is one
append-only list of events (``{"seq", "at", "type", "aggregate_id", "data"}``: ``AccountOpened``,
``Deposited``, ``Withdrawn``, ``TransferSent`` and ``TransferReceived`` pairs, ``CardIssued``,
``CardLimitChanged``, ``AccountFrozen`` ...) and a head position; no record holds an account as
the tools show it: each answer is a projection folded from the account's events (the latest
e-mail or limit wins, a balance is a sum), and writes append events. An account's transfer
partners is a join through the transfer events; its balance as of a date is a summary."""

from __future__ import annotations

import datetime as dt
import random
from typing import Any

from benchmarks.zoo.eventlog_history import CURRENCIES, PRODUCTS, History
from benchmarks.zoo.kit import (
    Answer,
    Filter,
    Planned,
    Search,
    State,
    Tool,
    ToolError,
    fill,
    note_tool,
    pointer,
    prop,
    size_of,
    words,
)
from benchmarks.zoo.shape import Shape

INFLOWS = {"Deposited": 1, "TransferReceived": 1, "Withdrawn": -1, "TransferSent": -1}


def fold(events: list[dict[str, Any]]) -> dict[str, Any]:
    """An account as its events leave it (the events of one aggregate, in order)."""
    account: dict[str, Any] = {"balance": 0.0, "cards": {}, "frozen": False, "closed": False}
    for event in events:
        kind, data = event["type"], event["data"]
        if kind == "AccountOpened":
            account |= {"account_id": event["aggregate_id"], "openedAt": event["at"], **data}
        elif kind in INFLOWS:
            account["balance"] = round(account["balance"] + INFLOWS[kind] * data["amount"], 2)
        elif kind == "EmailChanged":
            account["email"] = data["email"]
        elif kind == "OverdraftLimitChanged":
            account["overdraftLimit"] = data["limit"]
        elif kind == "CardIssued":
            account["cards"][data["cardId"]] = {**data, "issuedAt": event["at"], "blocked": False}
        elif kind == "CardLimitChanged":
            account["cards"][data["cardId"]]["dailyLimit"] = data["dailyLimit"]
        elif kind == "CardBlocked":
            account["cards"][data["cardId"]]["blocked"] = True
        elif kind in ("AccountFrozen", "AccountUnfrozen"):
            account["frozen"] = kind == "AccountFrozen"
        elif kind == "AccountClosed":
            account["closed"] = True
    return account


def streams(state: State) -> dict[str, list[dict[str, Any]]]:
    """Each account's events, in the order of the log."""
    grouped: dict[str, list[dict[str, Any]]] = {}
    for event in state["events"]:
        grouped.setdefault(event["aggregate_id"], []).append(event)
    return grouped


def _accounts(state: State) -> list[tuple[str, dict[str, Any]]]:
    return [(key, fold(events)) for key, events in streams(state).items()]


def _profile(account: dict[str, Any]) -> dict[str, Any]:
    keys = ("account_id", "holder", "email", "currency", "branch", "product", "overdraftLimit")
    return {k: account[k] for k in keys} | {
        "openedAt": account["openedAt"],
        "frozen": account["frozen"],
        "closed": account["closed"],
    }


def _show(_: str, account: dict[str, Any]) -> dict[str, Any]:
    keys = ("account_id", "holder", "branch", "currency", "product", "openedAt")
    return {k: account[k] for k in keys}


def events_of(state: State, account_id: str) -> list[dict[str, Any]]:
    """An account's events, in the order of the log."""
    events = [e for e in state["events"] if e["aggregate_id"] == account_id]
    if not events:
        raise ToolError(f"account {account_id} not found")
    return events


def appended(state: State, new: list[tuple[str, str, dict[str, Any]]], day: str) -> Answer:
    """The events ``(aggregate, type, data)`` appended after the head, and the answer."""
    head = state["head"]
    events = [
        {"seq": head + n, "at": f"{day}T09:00:00Z", "type": kind, "aggregate_id": aggregate}
        | {"data": data}
        for n, (aggregate, kind, data) in enumerate(new, start=1)
    ]
    patch = [{"op": "add", "path": pointer("events", "-"), "value": e} for e in events]
    patch.append({"op": "replace", "path": "/head", "value": head + len(events)})
    return {"accepted": [{k: e[k] for k in ("seq", "type", "at")} for e in events]}, patch


def usable(state: State, account_id: str) -> dict[str, Any]:
    """An account that can take a payment: neither closed nor frozen."""
    account = fold(events_of(state, account_id))
    if account["closed"] or account["frozen"]:
        raise ToolError(f"account {account_id} is closed or frozen")
    return account


def of_type(state: State, kind: str) -> list[dict[str, Any]]:
    return [e for e in state["events"] if e["type"] == kind]


class EventLog(Shape):
    name = "eventlog"
    title = "Retail bank accounts, event-sourced"
    description = (
        "A small bank's account service, event-sourced: every change to an account is an "
        "event in one append-only log, and the service answers from projections of it. "
        "Answers are JSON; times are UTC; amounts in the account's currency; errors are text "
        "starting with 'Error:'."
    )
    note = ("annotate", "note")

    def __init__(self) -> None:
        self.finder = Search(
            "find_accounts",
            "Accounts by branch, currency, product, holder name start, opening date range and "
            "overdraft limit.",
            _accounts,
            [
                Filter("branch", "branch", "eq", prop("string", "Branch town.")),
                Filter("currency", "currency", "eq", prop("string", "ISO 4217.", enum=CURRENCIES)),
                Filter("product", "product", "eq", prop("string", "Product.", enum=PRODUCTS)),
                Filter("holder_name", "holder", "prefix", prop("string", "Start of the name.")),
                Filter("opened_from", "openedAt", "ge", prop("string", "ISO time, UTC.")),
                Filter("opened_to", "openedAt", "le", prop("string", "ISO time, UTC.")),
                Filter("min_overdraft", "overdraftLimit", "ge", prop("integer", "Lowest limit.")),
            ],
            _show,
            limit=20,
            wrap="accounts",
        )

    def build(self, rng: random.Random, target_bytes: int) -> State:
        history = History(rng)
        fill(history.step, lambda: size_of(history.events), target_bytes - 100)
        return {
            "store": {"name": "accounts-es", "schemaVersion": 3},
            "head": len(history.events),
            "events": history.events,
        }

    def tools(self) -> list[Tool]:
        account = {"account_id": prop("string", "Account id, e.g. acct-04f2a91.")}
        day = prop("string", "YYYY-MM-DD.")
        posting = {"amount": prop("number", "In the account's currency."), "booking_date": day}
        return [
            Tool("get_account", "An account's details.", account, self._account, ("account_id",)),
            Tool(
                "get_card",
                "A card of an account.",
                account | {"card_id": prop("string", "Card id, e.g. CRD-301234.")},
                self._card,
                ("account_id", "card_id"),
            ),
            Tool(
                "account_history",
                "An account's events between two dates (inclusive), oldest first, at most 50.",
                account | {"from_date": day, "to_date": day},
                self._history,
                ("account_id", "from_date", "to_date"),
            ),
            self.finder.tool(),
            Tool(
                "transfer_partners",
                "The accounts an account sent money to or received it from, with the totals.",
                account,
                self._partners,
                ("account_id",),
            ),
            Tool(
                "account_balance",
                "An account's balance and flows as of a date (end of day; today if left out).",
                account | {"as_of": day},
                self._balance,
                ("account_id",),
            ),
            Tool(
                "deposit",
                "Pay money into an account.",
                account | posting | {"reference": prop("string", "Payment reference.")},
                self._deposit,
                ("account_id", "amount", "booking_date", "reference"),
                effect="write",
            ),
            Tool(
                "transfer",
                "Move money between two accounts of one currency.",
                {
                    "from_account": prop("string", "Paying account id."),
                    "to_account": prop("string", "Receiving account id."),
                    "memo": prop("string", "Memo."),
                }
                | posting,
                self._transfer,
                ("from_account", "to_account", "amount", "booking_date", "memo"),
                effect="write",
            ),
            note_tool("annotate", "note", "Attach a note to the conversation (answers nothing)."),
        ]

    def _account(self, state: State, args: dict[str, Any]) -> Answer:
        return _profile(fold(events_of(state, args["account_id"]))), []

    def _card(self, state: State, args: dict[str, Any]) -> Answer:
        cards = fold(events_of(state, args["account_id"]))["cards"]
        if args["card_id"] not in cards:
            raise ToolError(f"no card {args['card_id']} on account {args['account_id']}")
        card = cards[args["card_id"]]
        keys = ("last4", "network", "expires", "dailyLimit", "blocked", "issuedAt")
        return {"card_id": args["card_id"], **{k: card[k] for k in keys}}, []

    def _history(self, state: State, args: dict[str, Any]) -> Answer:
        events = [
            {"seq": e["seq"], "at": e["at"], "type": e["type"], **e["data"]}
            for e in events_of(state, args["account_id"])
            if args["from_date"] <= e["at"][:10] <= args["to_date"]
        ]
        return {"account_id": args["account_id"], "events": events[:50]}, []

    def _partners(self, state: State, args: dict[str, Any]) -> Answer:
        totals: dict[str, dict[str, float]] = {}
        for event in events_of(state, args["account_id"]):
            data = event["data"]
            if event["type"] in ("TransferSent", "TransferReceived"):
                other = data.get("to", data.get("from"))
                flows = totals.setdefault(other, {"sent": 0.0, "received": 0.0})
                side = "sent" if event["type"] == "TransferSent" else "received"
                flows[side] = round(flows[side] + data["amount"], 2)
        holders = {
            e["aggregate_id"]: e["data"]["holder"]
            for e in state["events"]
            if e["type"] == "AccountOpened" and e["aggregate_id"] in totals
        }
        partners = [
            {"account_id": k, "holder": holders[k], **flows} for k, flows in sorted(totals.items())
        ]
        return {"account_id": args["account_id"], "partners": partners}, []

    def _balance(self, state: State, args: dict[str, Any]) -> Answer:
        events = events_of(state, args["account_id"])
        until = args.get("as_of", events[-1]["at"][:10])
        events = [e for e in events if e["at"][:10] <= until]
        flows = {kind: 0.0 for kind in INFLOWS}
        for event in events:
            if event["type"] in INFLOWS:
                flows[event["type"]] = round(flows[event["type"]] + event["data"]["amount"], 2)
        account = fold(events)
        status = "closed" if account["closed"] else "frozen" if account["frozen"] else "active"
        return {
            "account_id": args["account_id"],
            "as_of": until,
            "currency": account.get("currency"),
            "balance": account["balance"],
            "status": status,
            "deposits": flows["Deposited"],
            "withdrawals": flows["Withdrawn"],
            "transfers_in": flows["TransferReceived"],
            "transfers_out": flows["TransferSent"],
            "events": len(events),
        }, []

    def _deposit(self, state: State, args: dict[str, Any]) -> Answer:
        usable(state, args["account_id"])
        if not args["amount"] > 0:
            raise ToolError("amount must be positive")
        data = {"amount": args["amount"], "channel": "online", "reference": args["reference"]}
        return appended(state, [(args["account_id"], "Deposited", data)], args["booking_date"])

    def _transfer(self, state: State, args: dict[str, Any]) -> Answer:
        paying, receiving = args["from_account"], args["to_account"]
        payer, payee = usable(state, paying), usable(state, receiving)
        if payer["currency"] != payee["currency"] or paying == receiving:
            raise ToolError("a transfer needs two accounts of one currency")
        if not 0 < args["amount"] <= payer["balance"] + payer["overdraftLimit"]:
            raise ToolError("insufficient funds")
        ident = f"TRF-{state['head'] + 700001}"
        shared = {"transferId": ident, "amount": args["amount"], "memo": args["memo"]}
        return appended(
            state,
            [
                (paying, "TransferSent", {"to": receiving} | shared),
                (receiving, "TransferReceived", {"from": paying} | shared),
            ],
            args["booking_date"],
        )

    def lookup(self, rng: random.Random, state: State) -> Planned:
        opened = rng.choice(of_type(state, "AccountOpened"))
        return Planned("lookup", "get_account", {"account_id": opened["aggregate_id"]})

    def nested_lookup(self, rng: random.Random, state: State) -> Planned:
        if rng.random() < 0.5:
            issued = rng.choice(of_type(state, "CardIssued"))
            args = {"account_id": issued["aggregate_id"], "card_id": issued["data"]["cardId"]}
            return Planned("nested_lookup", "get_card", args)
        event = rng.choice(state["events"])
        start = dt.date.fromisoformat(event["at"][:10])
        end = start + dt.timedelta(days=rng.randint(0, 20))
        args = {"account_id": event["aggregate_id"], "from_date": str(start), "to_date": str(end)}
        return Planned("nested_lookup", "account_history", args)

    def search(self, rng: random.Random, state: State) -> Planned:
        return Planned("search", "find_accounts", self.finder.plan(rng, state))

    def join(self, rng: random.Random, state: State) -> Planned:
        sent = rng.choice(of_type(state, "TransferSent"))
        return Planned("join", "transfer_partners", {"account_id": sent["aggregate_id"]})

    def aggregate(self, rng: random.Random, state: State) -> Planned:
        event = rng.choice(state["events"])
        args = {"account_id": event["aggregate_id"]}
        if rng.random() < 0.5:
            args["as_of"] = event["at"][:10]
        return Planned("aggregate", "account_balance", args)

    def write(self, rng: random.Random, state: State) -> tuple[Planned, Planned]:
        usable = [a for _, a in _accounts(state) if not (a["closed"] or a["frozen"])]
        last = dt.date.fromisoformat(state["events"][-1]["at"][:10])
        when = str(last + dt.timedelta(days=rng.randint(1, 3)))
        payer = rng.choice([a for a in usable if a["balance"] + a["overdraftLimit"] > 10])
        payees = [a for a in usable if a["currency"] == payer["currency"] and a is not payer]
        amount = round(rng.uniform(5, min(800, payer["balance"] + payer["overdraftLimit"])), 2)
        if rng.random() < 0.5 or not payees:
            args = {"account_id": payer["account_id"], "amount": amount, "booking_date": when}
            planned = Planned("write", "deposit", args | {"reference": words(rng, 2)})
        else:
            args = {
                "from_account": payer["account_id"],
                "to_account": rng.choice(payees)["account_id"],
                "amount": amount,
                "booking_date": when,
                "memo": words(rng, 3),
            }
            planned = Planned("write", "transfer", args)
        account = rng.choice([payer["account_id"], args.get("to_account", payer["account_id"])])
        history = {"account_id": account, "from_date": when, "to_date": when}
        return planned, Planned("read_after_write", "account_history", history)

    def no_match(self, rng: random.Random, state: State) -> Planned:
        args = {"currency": rng.choice(CURRENCIES), "min_overdraft": 1_000_000}
        return Planned("empty", "find_accounts", args)
