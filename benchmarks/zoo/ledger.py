"""``ledger`` (held out): double-entry bookkeeping: a chart of accounts (an array), journal
entries keyed by number whose postings (a nested list) refer to accounts; balances are sums
no record holds; the accounts met on the other side of an account's entries are a two-hop join."""

from __future__ import annotations

import random
from typing import Any

from benchmarks.zoo.kit import (
    WORDS,
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
)
from benchmarks.zoo.shape import Shape

ACCOUNT_KINDS = {"1": "asset", "2": "liability", "3": "equity", "4": "income", "5": "expense"}


def _entries(state: State) -> list[tuple[str, dict[str, Any]]]:
    return list(state["journal"].items())


class Ledger(Shape):
    name = "ledger"
    title = "General ledger"
    description = (
        "A small company's general ledger: the chart of accounts and the journal of entries, "
        "each entry's postings debiting and crediting accounts. JSON answers; amounts in NOK; "
        "errors are text starting with 'Error:'."
    )
    note = ("remark", "text")

    def __init__(self) -> None:
        self.finder = Search(
            "search_journal",
            "Journal entries by date range, memo words, smallest total or approver.",
            _entries,
            [
                Filter("from", "date", "ge", prop("string", "First date, YYYY-MM-DD.")),
                Filter("to", "date", "le", prop("string", "Last date.")),
                Filter("q", "memo", "contains", prop("string", "Words of the memo.")),
                Filter("min_total", "total", "ge", prop("number", "Smallest total.")),
                Filter("approver", "approved_by", "eq", prop("string", "Approver's initials.")),
            ],
            lambda key, e: {
                "entry_no": key,
                "date": e["date"],
                "memo": e["memo"],
                "total": e["total"],
            },
            limit=20,
            wrap="entries",
        )

    def build(self, rng: random.Random, target_bytes: int) -> State:
        accounts = [
            {"number": f"{k}{n:03d}", "label": f"{rng.choice(WORDS).title()} {kind}", "kind": kind}
            for k, kind in ACCOUNT_KINDS.items()
            for n in range(0, 400, rng.randint(7, 13))
        ]
        approvers = ["".join(p[0] for p in person(rng)) for _ in range(8)]
        state: State = {"accounts": accounts, "journal": {}}

        def entry() -> None:
            number = f"JE{len(state['journal']) + 20001}"
            lines = rng.randint(2, 5)
            amounts = [round(rng.uniform(10, 90000), 2) for _ in range(lines - 1)]
            total = round(sum(amounts), 2)
            chosen = rng.sample(accounts, lines)
            postings = [
                {"account": a["number"], "debit": x} for a, x in zip(chosen, amounts, strict=False)
            ]
            postings.append({"account": chosen[-1]["number"], "credit": total})
            state["journal"][number] = {
                "date": day(rng, 2025),
                "memo": f"{rng.choice(['Invoice', 'Payroll', 'Refund', 'Accrual', 'Transfer'])} {rng.choice(WORDS)} {rng.randint(100, 999)}",
                "total": total,
                "approved_by": rng.choice(approvers),
                "postings": postings,
            }

        fill(entry, lambda: size_of(state), target_bytes)
        return state

    def tools(self) -> list[Tool]:
        acct = {"account": prop("string", "Account number, e.g. 1007.")}
        no = {"entry_no": prop("string", "Entry number, e.g. JE20001.")}
        return [
            Tool("get_entry", "A journal entry.", no, self._entry, ("entry_no",)),
            Tool(
                "get_posting",
                "The posting of an entry to an account.",
                no | acct,
                self._posting,
                ("entry_no", "account"),
            ),
            self.finder.tool(),
            Tool(
                "counter_accounts",
                "The accounts on the other side of an account's entries, with how often.",
                acct,
                self._counter,
                ("account",),
            ),
            Tool(
                "account_balance",
                "An account's debits, credits and balance up to a date.",
                acct | {"as_of": prop("string", "YYYY-MM-DD.")},
                self._balance,
                ("account", "as_of"),
            ),
            Tool(
                "post_entry",
                "Post an entry moving an amount from one account (credited) to another (debited).",
                {
                    "debit": prop("string", "Account debited."),
                    "credit": prop("string", "Account credited."),
                    "amount": prop("number", "NOK."),
                    "memo": prop("string", "Memo."),
                    "date": prop("string", "YYYY-MM-DD."),
                },
                self._post,
                ("debit", "credit", "amount", "memo", "date"),
                effect="write",
            ),
            note_tool("remark", "text", "Note a remark (answers nothing)."),
        ]

    def _entry(self, state: State, args: dict[str, Any]) -> Answer:
        found = state["journal"].get(args["entry_no"])
        if found is None:
            raise ToolError("no such entry")
        return found, []

    def _posting(self, state: State, args: dict[str, Any]) -> Answer:
        for posting in self._entry(state, args)[0]["postings"]:
            if posting["account"] == args["account"]:
                return posting, []
        raise ToolError("the entry does not post to that account")

    def _counter(self, state: State, args: dict[str, Any]) -> Answer:
        counts: dict[str, int] = {}
        for e in state["journal"].values():
            touched = [p["account"] for p in e["postings"]]
            if args["account"] in touched:
                for other in touched:
                    if other != args["account"]:
                        counts[other] = counts.get(other, 0) + 1
        labels = {a["number"]: a for a in state["accounts"]}
        return [{**labels[n], "entries": c} for n, c in sorted(counts.items())], []

    def _balance(self, state: State, args: dict[str, Any]) -> Answer:
        postings = [
            p
            for e in state["journal"].values()
            if e["date"] <= args["as_of"]
            for p in e["postings"]
            if p["account"] == args["account"]
        ]
        debit = summary("sum", [p.get("debit", 0.0) for p in postings]) or 0.0
        credit = summary("sum", [p.get("credit", 0.0) for p in postings]) or 0.0
        return {
            "account": args["account"],
            "as_of": args["as_of"],
            "debits": debit,
            "credits": credit,
            "balance": round(debit - credit, 2),
            "postings": len(postings),
        }, []

    def _post(self, state: State, args: dict[str, Any]) -> Answer:
        known = {a["number"] for a in state["accounts"]}
        if args["debit"] not in known or args["credit"] not in known:
            raise ToolError("unknown account")
        number = f"JE{len(state['journal']) + 20001}"
        record = {
            "date": args["date"],
            "memo": args["memo"],
            "total": args["amount"],
            "approved_by": "API",
            "postings": [
                {"account": args["debit"], "debit": args["amount"]},
                {"account": args["credit"], "credit": args["amount"]},
            ],
        }
        return {"entry_no": number, **record}, [
            {"op": "add", "path": pointer("journal", number), "value": record}
        ]

    def _any(self, rng: random.Random, state: State) -> tuple[str, dict[str, Any]]:
        number = rng.choice(sorted(state["journal"]))
        return number, state["journal"][number]

    def lookup(self, rng: random.Random, state: State) -> Planned:
        return Planned("lookup", "get_entry", {"entry_no": self._any(rng, state)[0]})

    def nested_lookup(self, rng: random.Random, state: State) -> Planned:
        number, e = self._any(rng, state)
        return Planned(
            "nested_lookup",
            "get_posting",
            {"entry_no": number, "account": rng.choice(e["postings"])["account"]},
        )

    def search(self, rng: random.Random, state: State) -> Planned:
        return Planned("search", "search_journal", self.finder.plan(rng, state))

    def join(self, rng: random.Random, state: State) -> Planned:
        return Planned(
            "join",
            "counter_accounts",
            {"account": rng.choice(self._any(rng, state)[1]["postings"])["account"]},
        )

    def aggregate(self, rng: random.Random, state: State) -> Planned:
        account = rng.choice(self._any(rng, state)[1]["postings"])["account"]
        return Planned(
            "aggregate", "account_balance", {"account": account, "as_of": day(rng, 2025)}
        )

    def write(self, rng: random.Random, state: State) -> tuple[Planned, Planned]:
        debit, credit = rng.sample([a["number"] for a in state["accounts"]], 2)
        args = {
            "debit": debit,
            "credit": credit,
            "amount": round(rng.uniform(10, 5000), 2),
            "memo": f"Adjustment {rng.choice(WORDS)}",
            "date": day(rng, 2026),
        }
        number = f"JE{len(state['journal']) + 20001}"
        return Planned("write", "post_entry", args), Planned(
            "read_after_write", "get_entry", {"entry_no": number}
        )

    def no_match(self, rng: random.Random, state: State) -> Planned:
        return Planned("empty", "search_journal", {"from": "2030-01-01", "q": rng.choice(WORDS)})
