"""``hubspot``: a B2B software vendor's HubSpot CRM as its v3 and v4 APIs export it:
companies, contacts and deals as objects of a numeric string id and a flat ``properties`` map
of strings or ``null`` (numbers, booleans and ISO datetimes as text, multiple checkboxes
joined by ``;``, enumerations by internal name: deal stages by pipeline stage ids, owners by
owner ids), with associations kept apart as v4 batch answers per pair of types (target ids as
numbers, typed primary or unlabeled), pipelines and owners beside them. Tools are the APIs':
an object by id or email with chosen properties and associations, a batch read, an object's
v4 associations, a pipeline, an owner, the CRM search (filter groups of string values, epoch
milliseconds for dates, ``associations.company`` filters; ``total`` and ``paging``), updates
and contact creation; and the deals board's per-stage count and amount."""

from __future__ import annotations

import random
from typing import Any

from benchmarks.zoo.hubspot_api import (
    batch_read,
    create_contact,
    deal_stage_totals,
    get_associations,
    get_object,
    get_owner,
    get_pipeline,
    update_object,
)
from benchmarks.zoo.hubspot_crm import (
    PIPELINES,
    objects,
    portal,
)
from benchmarks.zoo.hubspot_plans import OBJECT_OUT, write_plan
from benchmarks.zoo.hubspot_search import filters, matching, search
from benchmarks.zoo.kit import Planned, State, Tool, note_tool, prop
from benchmarks.zoo.shape import Shape

KIND = prop("string", "Object type.", enum=["contacts", "companies", "deals"])
NAMES = prop("array", "Properties to return.", items={"type": "string"})
SHOWN = {
    "contacts": ["firstname", "lastname", "email", "jobtitle", "lifecyclestage", "phone"],
    "companies": ["name", "domain", "industry", "city", "numberofemployees", "hubspot_owner_id"],
    "deals": ["dealname", "amount", "dealstage", "pipeline", "closedate", "hubspot_owner_id"],
}


class Hubspot(Shape):
    name = "hubspot"
    title = "Sales assistant over a HubSpot CRM"
    description = (
        "Brightloop's HubSpot portal: companies, contacts and deals, their associations, deal "
        "pipelines and owners, reached through HubSpot's CRM APIs with a private app token. "
        "Errors are text starting with 'Error:'."
    )
    note = ("log_activity_note", "note")

    def build(self, rng: random.Random, target_bytes: int) -> State:
        return portal(rng, target_bytes)

    def tools(self) -> list[Tool]:
        ident = {"objectType": KIND, "objectId": prop("string", "The object's id.")}
        kinds = prop("array", "Object types.", items={"type": "string"})
        return [
            Tool(
                "get_object",
                "GET /crm/v3/objects/{objectType}/{objectId} (idProperty=email reads a contact "
                "by email).",
                ident
                | {"properties": NAMES, "associations": kinds}
                | {"idProperty": prop("string", "A unique property to look up by.")},
                get_object,
                ("objectType", "objectId"),
                output=OBJECT_OUT,
            ),
            Tool(
                "batch_read",
                "POST /crm/v3/objects/{objectType}/batch/read",
                {"objectType": KIND, "inputs": prop("array", "[{id}]", items={"type": "object"})}
                | {"properties": NAMES},
                batch_read,
                ("objectType", "inputs"),
            ),
            Tool(
                "get_associations",
                "GET /crm/v4/objects/{fromObjectType}/{objectId}/associations/{toObjectType}",
                {"fromObjectType": KIND, "objectId": prop("string", "Id."), "toObjectType": KIND},
                get_associations,
                ("fromObjectType", "objectId", "toObjectType"),
            ),
            Tool(
                "get_pipeline",
                "GET /crm/v3/pipelines/deals/{pipelineId}: a pipeline and its stages.",
                {"pipelineId": prop("string", "Pipeline id.")},
                get_pipeline,
                ("pipelineId",),
            ),
            Tool(
                "get_owner",
                "GET /crm/v3/owners/{ownerId}",
                {"ownerId": prop("string", "Owner id.")},
                get_owner,
                ("ownerId",),
            ),
            Tool(
                "search",
                "POST /crm/v3/objects/{objectType}/search",
                {"objectType": KIND}
                | {"filterGroups": prop("array", "Filter groups.", items={"type": "object"})}
                | {"sorts": prop("array", "Sorts.", items={"type": "object"}), "properties": NAMES}
                | {
                    "limit": prop("integer", "Page size (default 10)."),
                    "after": prop("string", ""),
                },
                search,
                ("objectType",),
            ),
            Tool(
                "deal_stage_totals",
                "The deals board of a pipeline: per stage, the number of deals and their total "
                "amount (optionally of one owner).",
                {"pipelineId": prop("string", "Pipeline id."), "ownerId": prop("string", "")},
                deal_stage_totals,
                ("pipelineId",),
            ),
            Tool(
                "update_object",
                "PATCH /crm/v3/objects/{objectType}/{objectId}",
                ident | {"properties": prop("object", "Property values to set.")},
                update_object,
                ("objectType", "objectId", "properties"),
                effect="write",
            ),
            Tool(
                "create_contact",
                "POST /crm/v3/objects/contacts, with associations.",
                {"properties": prop("object", "Property values.")}
                | {
                    "associations": prop(
                        "array", "[{to: {id}, types: [...]}]", items={"type": "object"}
                    )
                },
                create_contact,
                ("properties",),
                effect="write",
            ),
            note_tool(
                "log_activity_note", "note", "Keep a private working note (answers nothing)."
            ),
        ]

    def lookup(self, rng: random.Random, state: State) -> Planned:
        roll = rng.random()
        if roll < 0.1:
            owner = rng.choice(objects(state, "deals"))["properties"]["hubspot_owner_id"]
            return Planned("lookup", "get_owner", {"ownerId": owner})
        if roll < 0.15:
            return Planned("lookup", "get_pipeline", {"pipelineId": rng.choice(sorted(PIPELINES))})
        kind = rng.choice(["contacts", "companies", "deals", "deals"])
        record = rng.choice(objects(state, kind))
        args: dict[str, Any] = {"objectType": kind, "objectId": record["id"]}
        if kind == "contacts" and rng.random() < 0.35:
            args = {"objectType": kind, "objectId": record["properties"]["email"]}
            args["idProperty"] = "email"
        if rng.random() < 0.6:
            args["properties"] = rng.sample(SHOWN[kind], rng.randint(2, 5))
        return Planned("lookup", "get_object", args)

    def nested_lookup(self, rng: random.Random, state: State) -> Planned:
        kind = rng.choice(["deals", "contacts", "companies"])
        record = rng.choice(objects(state, kind))
        others = [k for k in ("contacts", "companies", "deals") if k != kind]
        if rng.random() < 0.5:
            args = {
                "fromObjectType": kind,
                "objectId": record["id"],
                "toObjectType": rng.choice(others),
            }
            return Planned("nested_lookup", "get_associations", args)
        args2 = {"objectType": kind, "objectId": record["id"], "associations": others}
        return Planned("nested_lookup", "get_object", args2)

    def search(self, rng: random.Random, state: State) -> Planned:
        kind = rng.choice(["deals", "deals", "contacts", "companies"])
        record = rng.choice(objects(state, kind))
        chosen: list[dict[str, Any]] = []
        wanted = rng.randint(1, 4)
        for spec in filters(rng, kind, record):
            chosen.append(spec)
            groups = [{"filters": chosen}]
            if len(chosen) >= wanted and len(matching(state, kind, groups)) <= 10:
                break
        args: dict[str, Any] = {"objectType": kind, "filterGroups": [{"filters": chosen}]}
        args["properties"] = rng.sample(SHOWN[kind], rng.randint(2, 5))
        if rng.random() < 0.3:
            name = {"deals": "amount", "contacts": "createdate", "companies": "annualrevenue"}[kind]
            args["sorts"] = [
                {"propertyName": name, "direction": rng.choice(["ASCENDING", "DESCENDING"])}
            ]
        return Planned("search", "search", args | {"limit": 10})

    def join(self, rng: random.Random, state: State) -> Planned:
        company = rng.choice(objects(state, "companies"))["id"]
        kind = rng.choice(["deals", "contacts"])
        filters: list[dict[str, Any]] = [
            {"propertyName": "associations.company", "operator": "EQ", "value": company}
        ]
        if kind == "deals" and rng.random() < 0.4:
            filters.append({"propertyName": "hs_is_closed", "operator": "EQ", "value": "false"})
        args = {"objectType": kind, "filterGroups": [{"filters": filters}]}
        return Planned("join", "search", args | {"properties": SHOWN[kind][:4], "limit": 20})

    def aggregate(self, rng: random.Random, state: State) -> Planned:
        if rng.random() < 0.6:
            args = {"pipelineId": rng.choice(sorted(PIPELINES))}
            if rng.random() < 0.4:
                args["ownerId"] = rng.choice(objects(state, "deals"))["properties"][
                    "hubspot_owner_id"
                ]
            return Planned("aggregate", "deal_stage_totals", args)
        record = rng.choice(objects(state, "contacts"))["properties"]
        filters = [
            {"propertyName": "lifecyclestage", "operator": "EQ", "value": record["lifecyclestage"]}
        ]
        filters.append(
            {
                "propertyName": "hubspot_owner_id",
                "operator": "EQ",
                "value": record["hubspot_owner_id"],
            }
        )
        args2 = {"objectType": "contacts", "filterGroups": [{"filters": filters}], "limit": 1}
        return Planned("aggregate", "search", args2 | {"properties": ["email"]})

    def write(self, rng: random.Random, state: State) -> tuple[Planned, Planned]:
        return write_plan(rng, state)

    def no_match(self, rng: random.Random, state: State) -> Planned:
        filters = rng.choice(
            [
                [{"propertyName": "amount", "operator": "GTE", "value": "5000000"}],
                [{"propertyName": "email", "operator": "EQ", "value": "nobody@nowhere.example"}],
                [
                    {"propertyName": "dealstage", "operator": "EQ", "value": "closedwon"},
                    {"propertyName": "pipeline", "operator": "EQ", "value": "18734522"},
                ],
            ]
        )
        kind = "contacts" if filters[0]["propertyName"] == "email" else "deals"
        return Planned(
            "empty", "search", {"objectType": kind, "filterGroups": [{"filters": filters}]}
        )
