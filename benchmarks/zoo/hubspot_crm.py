"""The portal of the ``hubspot`` shape: a B2B software vendor's HubSpot CRM exported through
the v3 and v4 APIs: companies, contacts and deals as ``GET /crm/v3/objects/{type}`` lists
them with every property asked for: an object is its numeric id as a string and a flat
``properties`` map in which every value is a string or ``null`` (amounts ``"45000"``,
booleans ``"true"``, datetimes ISO 8601 to the millisecond, multiple checkboxes joined by
``;``, enumerations by their internal names: ``dealstage`` a pipeline stage's id, some of them
numbers, whose label only the pipelines API holds; ``hubspot_owner_id`` an owner's id, named
only by the owners API). Associations are not in the objects: they are the v4 batch answers
per pair of types, ``{"from": {"id"}, "to": [{"toObjectId", "associationTypes"}]}`` with the
target id a number and HubSpot-defined type ids (primary or not)."""

from __future__ import annotations

import datetime as dt
import random
from typing import Any

from benchmarks.zoo.kit import CITIES, FIRST, LAST, WORDS, State, fill, size_of

INDUSTRIES = ["COMPUTER_SOFTWARE", "FINANCIAL_SERVICES", "HOSPITAL_HEALTH_CARE", "RETAIL"]
INDUSTRIES += ["LOGISTICS_AND_SUPPLY_CHAIN", "MARKETING_AND_ADVERTISING", "EDUCATION_MANAGEMENT"]
LIFECYCLE = ["lead", "marketingqualifiedlead", "salesqualifiedlead", "opportunity", "customer"]
LEAD_STATUS = ["NEW", "OPEN", "IN_PROGRESS", "CONNECTED", "UNQUALIFIED", None]
ROLES = ["DECISION_MAKER", "BUDGET_HOLDER", "CHAMPION", "INFLUENCER", "END_USER", "BLOCKER"]
INTERESTS = ["analytics", "api_access", "sso", "audit_logs", "sandbox", "premium_support"]
TITLES = ["CTO", "VP Engineering", "Head of IT", "Procurement Manager", "Data Analyst", "CFO"]
PRODUCTS = ["Platform", "Seats", "Renewal", "Pilot"]
COUNTRIES = ["United Kingdom", "Ireland", "Germany", "Netherlands", "United States"]
SALES = [
    ("appointmentscheduled", "Appointment Scheduled", "0.2", "false"),
    ("qualifiedtobuy", "Qualified To Buy", "0.4", "false"),
    ("presentationscheduled", "Presentation Scheduled", "0.6", "false"),
    ("decisionmakerboughtin", "Decision Maker Bought-In", "0.8", "false"),
    ("contractsent", "Contract Sent", "0.9", "false"),
    ("closedwon", "Closed Won", "1.0", "true"),
    ("closedlost", "Closed Lost", "0.0", "true"),
]
RENEWALS = [
    ("51230871", "Renewal due", "0.5", "false"),
    ("51230872", "Quote sent", "0.7", "false"),
    ("51230873", "Renewed", "1.0", "true"),
    ("51230874", "Churned", "0.0", "true"),
]
PIPELINES = {"default": ("Sales Pipeline", SALES), "18734522": ("Renewals", RENEWALS)}
TYPE_IDS = {
    ("contacts", "companies"): (1, 279),
    ("companies", "contacts"): (2, 280),
    ("deals", "contacts"): (3, 3),
    ("contacts", "deals"): (4, 4),
    ("deals", "companies"): (5, 341),
    ("companies", "deals"): (6, 342),
}
"""HubSpot-defined association type ids per direction: (primary, unlabeled)."""
PAIRS = {("contacts", "companies"): "contact_to_company"}
PAIRS |= {("deals", "companies"): "deal_to_company", ("deals", "contacts"): "deal_to_contact"}


def stamp(millis: int) -> str:
    moment = dt.datetime.fromtimestamp(millis / 1000, dt.UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{millis % 1000:03d}Z"


def millis(text: str) -> int:
    """Milliseconds since the epoch of an ISO datetime or date (as HubSpot filters take)."""
    if text.isdigit():
        return int(text)
    moment = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    moment = moment if moment.tzinfo else moment.replace(tzinfo=dt.UTC)
    return int(moment.timestamp() * 1000)


def objects(state: State, kind: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = state["objects"][kind]["results"]
    return found


def stages(state: State, pipeline: str) -> list[dict[str, Any]]:
    found = next(p for p in state["pipelines"]["deals"]["results"] if p["id"] == pipeline)
    listed: list[dict[str, Any]] = found["stages"]
    return listed


def typed(pair: tuple[str, str], primary: bool) -> list[dict[str, Any]]:
    ids = TYPE_IDS[pair]
    found = [{"category": "HUBSPOT_DEFINED", "typeId": ids[1], "label": None}]
    if primary and ids[0] != ids[1]:
        found.insert(0, {"category": "HUBSPOT_DEFINED", "typeId": ids[0], "label": "Primary"})
    return found


def _pipelines() -> dict[str, Any]:
    made = "2023-02-01T09:00:00.000Z"
    results = []
    for order, (ident, (label, listed)) in enumerate(PIPELINES.items()):
        shown: list[dict[str, Any]] = [
            {"label": name, "displayOrder": n, "metadata": {"isClosed": closed}}
            | {"id": stage, "createdAt": made, "updatedAt": made, "archived": False}
            | {"writePermissions": "CRUD_ALL"}
            for n, (stage, name, _, closed) in enumerate(listed)
        ]
        for stage, (_, _, chance, _) in zip(shown, listed, strict=True):
            stage["metadata"]["probability"] = chance
        results.append(
            {"label": label, "displayOrder": order, "id": ident, "stages": shown}
            | {"createdAt": made, "updatedAt": made, "archived": False}
        )
    return {"deals": {"results": results}}


def _owners(rng: random.Random) -> dict[str, Any]:
    results = []
    for n in range(12):
        first, last = rng.choice(FIRST), rng.choice(LAST)
        team = rng.choice([("3349211", "UK & Ireland"), ("3349212", "DACH"), ("3349213", "US")])
        results.append(
            {
                "id": str(48_213_377 + n * rng.randint(7, 3_000)),
                "email": f"{first}.{last}@brightloop.example".lower(),
                "type": "PERSON",
                "firstName": first,
                "lastName": last,
                "userId": 9_182_734 + n * 13,
                "userIdIncludingInactive": 9_182_734 + n * 13,
                "createdAt": "2023-02-01T09:12:44.512Z",
                "updatedAt": "2025-06-30T11:02:17.004Z",
                "archived": False,
                "teams": [{"id": team[0], "name": team[1], "primary": True}],
            }
        )
    return {"results": results}


class Portal:
    """Companies, each with its contacts and deals, added one at a time."""

    def __init__(self, rng: random.Random, state: State) -> None:
        self.rng, self.state = rng, state
        self.time = 1_704_067_200_000  # 2024-01-01
        self.ids = {"companies": 18_830_022_911, "contacts": 61_200, "deals": 16_902_837_465}
        self.owners = [o["id"] for o in state["owners"]["results"]]

    def make(self, kind: str, properties: dict[str, Any]) -> dict[str, Any]:
        self.time += self.rng.randint(60_000, 30_000_000)
        self.ids[kind] += self.rng.randint(1, 400) if kind != "contacts" else 50
        ident, made = str(self.ids[kind]), stamp(self.time)
        changed = stamp(self.time + self.rng.randint(0, 9_000_000_000))
        modified = "lastmodifieddate" if kind == "contacts" else "hs_lastmodifieddate"
        properties |= {"createdate": made, modified: changed, "hs_object_id": ident}
        record: dict[str, Any] = {"id": ident, "properties": dict(sorted(properties.items()))}
        record |= {"createdAt": made, "updatedAt": changed, "archived": False}
        objects(self.state, kind).append(record)
        return record

    def link(self, pair: tuple[str, str], source: str, targets: list[str]) -> None:
        to = [
            {"toObjectId": int(t), "associationTypes": typed(pair, n == 0)}
            for n, t in enumerate(targets)
        ]
        self.state["associations"][PAIRS[pair]]["results"].append(
            {"from": {"id": source}, "to": to}
        )

    def add_company(self) -> None:
        rng = self.rng
        word = rng.choice(WORDS).title()
        name = f"{word}{rng.choice(['soft', 'works', 'labs', ' Logistics', ' Health', ' Bank'])}"
        name += f" {rng.choice(['Ltd', 'GmbH', 'BV', 'Inc'])}" if rng.random() < 0.5 else ""
        domain = f"{name.split()[0].lower()}{rng.randint(2, 99)}.example"
        company = self.make(
            "companies",
            {
                "name": name,
                "domain": domain,
                "industry": rng.choice(INDUSTRIES),
                "city": rng.choice(CITIES),
                "country": rng.choice(COUNTRIES),
                "numberofemployees": str(rng.choice([12, 40, 85, 250, 600, 1400, 5200])),
                "annualrevenue": str(rng.randrange(500_000, 90_000_000, 50_000)),
                "hubspot_owner_id": rng.choice(self.owners),
                "lifecyclestage": rng.choice(["lead", "opportunity", "customer", "customer"]),
            },
        )
        contacts = [self.add_contact(company, domain) for _ in range(rng.randint(1, 5))]
        for _ in range(rng.randint(0, 3)):
            self.add_deal(company, contacts)

    def add_contact(self, company: dict[str, Any], domain: str) -> str:
        rng = self.rng
        first, last = rng.choice(FIRST), rng.choice(LAST)
        roles = sorted(rng.sample(ROLES, rng.randint(0, 2)))
        contact = self.make(
            "contacts",
            {
                "firstname": first,
                "lastname": last,
                "email": f"{first[0]}.{last}{rng.randint(1, 99)}@{domain}".lower(),
                "phone": f"+44 20 7946 {rng.randint(1000, 9999)}" if rng.random() < 0.6 else None,
                "jobtitle": rng.choice(TITLES) if rng.random() < 0.8 else None,
                "lifecyclestage": rng.choice(LIFECYCLE),
                "hs_lead_status": rng.choice(LEAD_STATUS),
                "hs_buying_role": ";".join(roles) or None,
                "hubspot_owner_id": company["properties"]["hubspot_owner_id"],
                "associatedcompanyid": company["id"],
            },
        )
        self.link(("contacts", "companies"), contact["id"], [company["id"]])
        return str(contact["id"])

    def add_deal(self, company: dict[str, Any], contacts: list[str]) -> None:
        rng = self.rng
        pipeline = "default" if rng.random() < 0.75 else "18734522"
        stage = rng.choice(stages(self.state, pipeline))
        closed, won = stage["metadata"]["isClosed"], stage["metadata"]["probability"] == "1.0"
        close = stamp(self.time + rng.randint(-60, 200) * 86_400_000)
        interests = sorted(rng.sample(INTERESTS, rng.randint(1, 3)))
        deal = self.make(
            "deals",
            {
                "dealname": f"{company['properties']['name']} - {rng.choice(PRODUCTS)}",
                "amount": str(rng.randrange(2_000, 180_000, 250)),
                "deal_currency_code": "GBP",
                "dealstage": stage["id"],
                "pipeline": pipeline,
                "closedate": close,
                "dealtype": "existingbusiness" if pipeline != "default" else "newbusiness",
                "hs_priority": rng.choice(["low", "medium", "high"]),
                "hubspot_owner_id": rng.choice(self.owners),
                "hs_is_closed": closed,
                "hs_is_closed_won": "true" if won else "false",
                "product_interest": ";".join(interests),
            },
        )
        self.link(("deals", "companies"), deal["id"], [company["id"]])
        chosen = rng.sample(contacts, rng.randint(1, len(contacts)))
        self.link(("deals", "contacts"), deal["id"], chosen)


def portal(rng: random.Random, target_bytes: int) -> State:
    """The portal, companies added until it is about ``target_bytes``."""
    state: State = {"owners": _owners(rng), "pipelines": _pipelines()}
    state["objects"] = {kind: {"results": []} for kind in ("companies", "contacts", "deals")}
    state["associations"] = {name: {"status": "COMPLETE", "results": []} for name in PAIRS.values()}
    maker = Portal(rng, state)
    for _ in range(3):
        maker.add_company()
    fill(maker.add_company, lambda: size_of(state), target_bytes)
    return state
