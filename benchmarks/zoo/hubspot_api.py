"""The HubSpot APIs of the ``hubspot`` shape, as a portal answers them: an object by id or by
email (its default properties, or those asked for plus the ones always sent, ``null`` where
empty; v3 associations named ``contact_to_company`` and ``..._unlabeled``), a batch read, the
v4 associations of an object in either direction, a pipeline, an owner, the CRM search
(filter groups OR-ed, filters AND-ed, values as strings, datetimes as epoch milliseconds or
ISO, ``associations.company`` pseudo-properties; ``total`` beside the page of results), an
update that recomputes a deal's closed flags, a contact created with its association, and the
deals board's per-stage count and amount."""

from __future__ import annotations

from typing import Any

from benchmarks.zoo.hubspot_crm import (
    PAIRS,
    TYPE_IDS,
    millis,
    objects,
    stages,
    stamp,
    typed,
)
from benchmarks.zoo.kit import Answer, State, ToolError, pointer

DEFAULTS = {
    "contacts": [
        "createdate",
        "email",
        "firstname",
        "hs_object_id",
        "lastmodifieddate",
        "lastname",
    ],
    "companies": ["createdate", "domain", "hs_lastmodifieddate", "hs_object_id", "name"],
    "deals": [
        *("amount", "closedate", "createdate", "dealname", "dealstage"),
        *("hs_lastmodifieddate", "hs_object_id", "pipeline"),
    ],
}
ALWAYS = {"contacts": ["createdate", "hs_object_id", "lastmodifieddate"]}
ALWAYS |= {k: ["createdate", "hs_lastmodifieddate", "hs_object_id"] for k in ("companies", "deals")}
MULTI = {"hs_buying_role", "product_interest"}
SINGULAR = {"contacts": "contact", "companies": "company", "deals": "deal"}
BATCH_TIMES = {"startedAt": "2026-11-27T10:00:00.000Z", "completedAt": "2026-11-27T10:00:00.084Z"}


def checked_type(kind: str) -> str:
    if kind not in SINGULAR:
        raise ToolError(f"Unable to infer object type from: {kind}")
    return kind


def find(state: State, kind: str, ident: str, by: str | None = None) -> tuple[int, dict[str, Any]]:
    for n, record in enumerate(objects(state, checked_type(kind))):
        if (record["properties"].get(by) if by else record["id"]) == str(ident):
            return n, record
    raise ToolError("404 OBJECT_NOT_FOUND: Object not found.  objectId are usually numeric.")


def shown(record: dict[str, Any], kind: str, properties: list[str] | None) -> dict[str, Any]:
    names = DEFAULTS[kind] if not properties else [*properties, *ALWAYS[kind]]
    values = {p: record["properties"].get(p) for p in sorted(set(names))}
    return {"id": record["id"], "properties": values} | {
        k: record[k] for k in ("createdAt", "updatedAt", "archived")
    }


def associated(state: State, kind: str, ident: str, to: str) -> list[dict[str, Any]]:
    """The v4 associations of one object with objects of type ``to``."""
    if (kind, to) in PAIRS:
        rows = state["associations"][PAIRS[(kind, to)]]["results"]
        found: list[dict[str, Any]] = next(
            (r["to"] for r in rows if r["from"]["id"] == str(ident)), []
        )
        return sorted(found, key=lambda a: a["toObjectId"])
    if (to, kind) not in PAIRS:
        raise ToolError(f"No association type between {kind} and {to}")
    primary = TYPE_IDS[(to, kind)][0]
    back = []
    for row in state["associations"][PAIRS[(to, kind)]]["results"]:
        for target in row["to"]:
            if target["toObjectId"] == int(ident):
                first = any(t["typeId"] == primary for t in target["associationTypes"])
                types = typed((kind, to), first)
                back.append({"toObjectId": int(row["from"]["id"]), "associationTypes": types})
    return sorted(back, key=lambda a: a["toObjectId"])


def get_object(state: State, args: dict[str, Any]) -> Answer:
    kind = args["objectType"]
    _, record = find(state, kind, args["objectId"], args.get("idProperty"))
    answer = shown(record, kind, args.get("properties"))
    links = {}
    for to in args.get("associations", []):
        primary = TYPE_IDS[(kind, to)][0]
        base = f"{SINGULAR[kind]}_to_{SINGULAR[to]}"
        found = [
            {
                "id": str(a["toObjectId"]),
                "type": base if t["typeId"] == primary else f"{base}_unlabeled",
            }
            for a in associated(state, kind, record["id"], to)
            for t in a["associationTypes"]
        ]
        if found:
            links[to] = {"results": found}
    return answer | ({"associations": links} if links else {}), []


def batch_read(state: State, args: dict[str, Any]) -> Answer:
    kind = args["objectType"]
    results = [
        shown(find(state, kind, i["id"])[1], kind, args.get("properties")) for i in args["inputs"]
    ]
    return {"status": "COMPLETE", "results": results} | BATCH_TIMES, []


def get_associations(state: State, args: dict[str, Any]) -> Answer:
    kind, to = args["fromObjectType"], checked_type(args["toObjectType"])
    _, record = find(state, kind, args["objectId"])
    return {"results": associated(state, kind, record["id"], to)}, []


def get_pipeline(state: State, args: dict[str, Any]) -> Answer:
    for pipeline in state["pipelines"][args.get("objectType", "deals")]["results"]:
        if pipeline["id"] == args["pipelineId"]:
            return pipeline, []
    raise ToolError(f"404 Unable to find pipeline {args['pipelineId']}")


def get_owner(state: State, args: dict[str, Any]) -> Answer:
    for owner in state["owners"]["results"]:
        if owner["id"] == str(args["ownerId"]):
            return owner, []
    raise ToolError(f"404 Owner {args['ownerId']} does not exist")


def _now(state: State) -> str:
    latest = max(r["updatedAt"] for kind in SINGULAR for r in objects(state, kind))
    return stamp(millis(latest) + 1_000)


def update_object(state: State, args: dict[str, Any]) -> Answer:
    kind = args["objectType"]
    n, record = find(state, kind, args["objectId"])
    given = {k: None if v is None else str(v) for k, v in args["properties"].items()}
    if "dealstage" in given:
        listed = stages(state, record["properties"]["pipeline"])
        stage = next((s for s in listed if s["id"] == given["dealstage"]), None)
        if stage is None:
            raise ToolError(
                f"400 VALIDATION_ERROR: Property values were not valid: {given['dealstage']} was "
                "not one of the allowed options for the deal's pipeline"
            )
        given["hs_is_closed"] = stage["metadata"]["isClosed"]
        given["hs_is_closed_won"] = "true" if stage["metadata"]["probability"] == "1.0" else "false"
    now = _now(state)
    given["lastmodifieddate" if kind == "contacts" else "hs_lastmodifieddate"] = now
    at = pointer("objects", kind, "results", n)
    patch = [
        {
            "op": "replace" if k in record["properties"] else "add",
            "path": f"{at}/properties/{pointer(k)[1:]}",
            "value": v,
        }
        for k, v in given.items()
    ]
    patch.append({"op": "replace", "path": f"{at}/updatedAt", "value": now})
    new = record | {"properties": record["properties"] | given, "updatedAt": now}
    return shown(new, kind, [*DEFAULTS[kind], *args["properties"]]), patch


def create_contact(state: State, args: dict[str, Any]) -> Answer:
    given = {k: str(v) for k, v in args["properties"].items()}
    email = given.get("email", "").lower()
    clash = [r for r in objects(state, "contacts") if r["properties"]["email"] == email]
    if clash:
        raise ToolError(f"409 CONFLICT: Contact already exists. Existing ID: {clash[0]['id']}")
    ident = str(max(int(r["id"]) for r in objects(state, "contacts")) + 50)
    now = _now(state)
    blank = dict.fromkeys(objects(state, "contacts")[0]["properties"])
    values = blank | given | {"email": email, "createdate": now, "lastmodifieddate": now}
    values["hs_object_id"] = ident
    record: dict[str, Any] = {"id": ident, "properties": dict(sorted(values.items()))}
    record |= {"createdAt": now, "updatedAt": now, "archived": False}
    patch = [{"op": "add", "path": "/objects/contacts/results/-", "value": record}]
    for link in args.get("associations", []):
        to = [t["associationTypeId"] for t in link["types"]]
        kinds = [
            {"category": "HUBSPOT_DEFINED", "typeId": t, "label": "Primary" if t == 1 else None}
            for t in sorted(to)
        ]
        row = {
            "from": {"id": ident},
            "to": [{"toObjectId": int(link["to"]["id"])} | {"associationTypes": kinds}],
        }
        patch.append(
            {"op": "add", "path": "/associations/contact_to_company/results/-", "value": row}
        )
    return shown(record, "contacts", list(given)), patch


def deal_stage_totals(state: State, args: dict[str, Any]) -> Answer:
    pipeline = args["pipelineId"]
    deals = [
        d
        for d in objects(state, "deals")
        if d["properties"]["pipeline"] == pipeline
        and args.get("ownerId") in (None, d["properties"]["hubspot_owner_id"])
    ]
    columns = []
    for stage in stages(state, pipeline):
        inside = [d for d in deals if d["properties"]["dealstage"] == stage["id"]]
        amount = sum(float(d["properties"]["amount"] or 0) for d in inside)
        columns.append(
            {
                "stageId": stage["id"],
                "label": stage["label"],
                "count": len(inside),
                "totalAmount": f"{amount:.2f}",
                "currency": "GBP",
            }
        )
    return {"pipelineId": pipeline, "stages": columns}, []
