"""The org of the ``salesforce`` shape: a sales team's Salesforce data as a ``queryAll`` of each
object exports it (``{"totalSize", "done", "records"}`` per sObject), every record with its
``attributes`` (``type``, ``url``), 18-character ids whose first three characters name the
object (``001`` Account, ``003`` Contact, ``006`` Opportunity, ``005`` User) and whose last
three are a case checksum, lookups as ``AccountId``/``OwnerId`` ids only, picklists as text,
dates as ``YYYY-MM-DD``, datetimes as ``2025-03-14T10:15:00.000+0000`` and a billing address
both as its fields and as the compound ``BillingAddress``."""

from __future__ import annotations

import random
import string
from typing import Any

from benchmarks.zoo.kit import CITIES, FIRST, LAST, WORDS, State, fill, size_of

VERSION = "v59.0"
PREFIXES = {"Account": "001", "Contact": "003", "Opportunity": "006", "User": "005"}
BASE62 = string.digits + string.ascii_uppercase + string.ascii_lowercase
INDUSTRIES = ["Manufacturing", "Healthcare", "Retail", "Technology", "Energy", "Education"]
STAGES = ["Prospecting", "Qualification", "Needs Analysis", "Proposal/Price Quote"]
STAGES += ["Negotiation/Review", "Closed Won", "Closed Lost"]
PROBABILITY = dict(zip(STAGES, [10, 20, 25, 75, 90, 100, 0], strict=True))
TYPES = ["New Customer", "Existing Customer - Upgrade", "Existing Customer - Renewal"]
SOURCES = ["Web", "Phone Inquiry", "Partner Referral", "Trade Show", "Purchased List"]
TITLES = ["VP Operations", "CFO", "Procurement Manager", "IT Director", "Plant Manager"]


def salesforce_id(prefix: str, n: int) -> str:
    """An 18-character id: the 15-character id and its case-safe suffix."""
    body = ""
    while n or not body:
        n, digit = divmod(n, 62)
        body = BASE62[digit] + body
    short = f"{prefix}Dn0{body:0>9}"
    suffix = ""
    for chunk in (short[0:5], short[5:10], short[10:15]):
        bits = sum(1 << i for i, c in enumerate(chunk) if c.isupper())
        suffix += "ABCDEFGHIJKLMNOPQRSTUVWXYZ012345"[bits]
    return short + suffix


def url(kind: str, ident: str) -> str:
    return f"/services/data/{VERSION}/sobjects/{kind}/{ident}"


def records(state: State, kind: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = state[kind]["records"]
    return found


def _new(state: State, kind: str, fields: dict[str, Any], stamp: str) -> dict[str, Any]:
    ident = salesforce_id(PREFIXES[kind], 7919 * (len(records(state, kind)) + 1))
    record = {"attributes": {"type": kind, "url": url(kind, ident)}, "Id": ident} | fields
    record |= {"CreatedDate": stamp, "LastModifiedDate": stamp, "IsDeleted": False}
    records(state, kind).append(record)
    state[kind]["totalSize"] += 1
    return record


def _stamp(rng: random.Random, year: int = 2025) -> str:
    return (
        f"{year}-{rng.randint(1, 10):02d}-{rng.randint(1, 28):02d}T"
        f"{rng.randint(8, 18):02d}:{rng.randint(0, 59):02d}:00.000+0000"
    )


class Org:
    """Accounts added one at a time, each with contacts and opportunities."""

    def __init__(self, rng: random.Random, state: State) -> None:
        self.rng, self.state = rng, state
        self.users = [
            _new(
                state,
                "User",
                {"Name": f"{f} {s}", "Email": f"{f.lower()}.{s.lower()}@northwind.example.com"}
                | {"Title": "Account Executive", "IsActive": True},
                _stamp(rng, 2023),
            )["Id"]
            for f, s in zip(FIRST[:8], LAST[3:11], strict=True)
        ]

    def add(self) -> None:
        rng = self.rng
        name = f"{rng.choice(WORDS).capitalize()} {rng.choice(['Industries', 'Labs', 'Group'])}"
        city = rng.choice(CITIES)
        street = f"{rng.randint(1, 999)} {rng.choice(WORDS).capitalize()} Rd"
        postal = f"{rng.randint(10000, 99999)}"
        account: dict[str, Any] = {"Name": f"{name} {len(records(self.state, 'Account')) + 1}"}
        account |= {"Industry": rng.choice(INDUSTRIES), "Type": "Customer - Direct"}
        account |= {"AnnualRevenue": rng.randrange(1_000_000, 900_000_000, 250_000)}
        account |= {"NumberOfEmployees": rng.randint(20, 20000), "BillingStreet": street}
        account |= {"BillingCity": city, "BillingPostalCode": postal, "BillingCountry": "USA"}
        account["BillingAddress"] = {"city": city, "country": "USA", "geocodeAccuracy": None}
        account["BillingAddress"] |= {"postalCode": postal, "state": None, "street": street}
        account |= {"Phone": f"(555) {rng.randint(200, 999)}-{rng.randint(1000, 9999)}"}
        account["OwnerId"] = rng.choice(self.users)
        acct = _new(self.state, "Account", account, _stamp(rng, 2024))
        for _ in range(rng.randint(1, 4)):
            first, last = rng.choice(FIRST), rng.choice(LAST)
            contact: dict[str, Any] = {
                "AccountId": acct["Id"],
                "FirstName": first,
                "LastName": last,
            }
            contact |= {"Name": f"{first} {last}", "Title": rng.choice(TITLES)}
            contact["Email"] = f"{first.lower()}.{last.lower()}@{name.split()[0].lower()}.example"
            contact |= {"Phone": account["Phone"], "LeadSource": rng.choice(SOURCES)}
            contact["OwnerId"] = account["OwnerId"]
            _new(self.state, "Contact", contact, _stamp(rng))
        for _ in range(rng.randint(1, 5)):
            stage = rng.choice(STAGES)
            opp: dict[str, Any] = {
                "AccountId": acct["Id"],
                "Name": f"{account['Name']} - {rng.choice(WORDS)}",
            }
            opp |= {"StageName": stage, "Amount": float(rng.randrange(5_000, 750_000, 500))}
            opp |= {"Probability": float(PROBABILITY[stage]), "Type": rng.choice(TYPES)}
            opp |= {"CloseDate": f"2025-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"}
            opp |= {"IsClosed": stage.startswith("Closed"), "IsWon": stage == "Closed Won"}
            opp |= {"LeadSource": rng.choice(SOURCES), "OwnerId": rng.choice(self.users)}
            opp["ForecastCategoryName"] = (
                "Closed"
                if stage == "Closed Won"
                else "Omitted"
                if stage == "Closed Lost"
                else "Pipeline"
            )
            _new(self.state, "Opportunity", opp, _stamp(rng))


def org(rng: random.Random, target_bytes: int) -> State:
    state: State = {
        kind: {"totalSize": 0, "done": True, "records": []}
        for kind in ("User", "Account", "Contact", "Opportunity")
    }
    fill(Org(rng, state).add, lambda: size_of(state), target_bytes)
    return state
