"""The ``hubspot`` shape's writes as a sales assistant makes them (a contact created with its
primary company association; a deal's stage, amount, close date or priority; a contact's
lifecycle stage, job title or lead status) and the output schema of ``get_object``, whose v3
association type names (``contact_to_company``, ``..._unlabeled``) no state holds."""

from __future__ import annotations

import random
from typing import Any

from benchmarks.zoo.hubspot_crm import LIFECYCLE, TITLES, objects, stages
from benchmarks.zoo.kit import Planned, State

LINKS = sorted(
    f"{a}_to_{b}{end}"
    for a in ("contact", "company", "deal")
    for b in ("contact", "company", "deal")
    for end in ("", "_unlabeled")
    if a != b
)
OBJECT_OUT = {
    "type": "object",
    "properties": {
        "id": {"type": "string"},
        "properties": {"type": "object"},
        "associations": {
            "type": "object",
            "additionalProperties": {
                "type": "object",
                "properties": {
                    "results": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {"id": {"type": "string"}}
                            | {"type": {"type": "string", "enum": LINKS}},
                        },
                    }
                },
            },
        },
    },
    "required": ["id", "properties"],
}


def write_plan(rng: random.Random, state: State) -> tuple[Planned, Planned]:
    """A contact created with its company, or a deal's or contact's properties updated; and
    the read of what was written."""
    roll = rng.random()
    if roll < 0.25:
        company = rng.choice(objects(state, "companies"))
        domain = company["properties"]["domain"]
        first, last = rng.choice([("Marta", "Silva"), ("Tom", "Reyes"), ("Aiko", "Mori")])
        ident = str(max(int(r["id"]) for r in objects(state, "contacts")) + 50)
        properties = {"firstname": first, "lastname": last, "jobtitle": rng.choice(TITLES)}
        properties["email"] = f"{first[0]}.{last}.{ident}@{domain}".lower()
        link = {
            "to": {"id": company["id"]},
            "types": [
                {"associationCategory": "HUBSPOT_DEFINED", "associationTypeId": 1},
                {"associationCategory": "HUBSPOT_DEFINED", "associationTypeId": 279},
            ],
        }
        read = {"objectType": "contacts", "objectId": ident, "associations": ["companies"]}
        return Planned(
            "write", "create_contact", {"properties": properties, "associations": [link]}
        ), Planned("read_after_write", "get_object", read | {"properties": list(properties)})
    if roll < 0.7:
        deal = rng.choice(objects(state, "deals"))
        p = deal["properties"]
        later = [s["id"] for s in stages(state, p["pipeline"]) if s["id"] != p["dealstage"]]
        choices: dict[str, Any] = {
            "dealstage": rng.choice(later),
            "amount": str(rng.randrange(2_000, 180_000, 250)),
            "closedate": f"2026-0{rng.randint(1, 9)}-{rng.randint(10, 28)}T00:00:00.000Z",
            "hs_priority": rng.choice(["low", "medium", "high"]),
        }
        kind, record = "deals", deal
    else:
        kind, record = "contacts", rng.choice(objects(state, "contacts"))
        choices = {
            "lifecyclestage": rng.choice(LIFECYCLE),
            "jobtitle": rng.choice(TITLES),
            "hs_lead_status": rng.choice(["CONNECTED", "IN_PROGRESS", "OPEN"]),
        }
    picked = rng.sample(sorted(choices), rng.randint(1, 2))
    args = {
        "objectType": kind,
        "objectId": record["id"],
        "properties": {k: choices[k] for k in picked},
    }
    return Planned("write", "update_object", args), Planned(
        "read_after_write",
        "get_object",
        {"objectType": kind, "objectId": record["id"], "properties": picked},
    )
