"""The Salesforce MCP server of the ``salesforce`` shape: its tools, answering with the REST
API's JSON (a record with ``attributes``; a query's ``{"totalSize", "done", "records"}``; a
PATCH's empty 204; a create's ``{"id", "success", "errors"}``), and its writes."""

from __future__ import annotations

from typing import Any

from benchmarks.zoo.kit import Answer, State, Tool, ToolError, note_tool, pointer, prop
from benchmarks.zoo.salesforce_org import PREFIXES, PROBABILITY, records, salesforce_id, url
from benchmarks.zoo.salesforce_soql import aggregate, query, shape_record

OBJECT = prop("string", "sObject API name.", enum=["Account", "Contact", "Opportunity", "User"])
FIELDS = prop("array", "Fields, relationship paths or subqueries.", items={"type": "string"})
WHERE = prop("string", "SOQL WHERE clause without the keyword, e.g. StageName = 'Closed Won'.")
LIST = {
    "type": "object",
    "properties": {
        "totalSize": {"type": "integer"},
        "done": {"type": "boolean"},
        "records": {"type": "array"},
    },
    "required": ["totalSize", "done", "records"],
}
NOW = "2026-11-27T10:00:00.000+0000"


def _at(state: State, kind: str, ident: str) -> tuple[int, dict[str, Any]]:
    if kind not in PREFIXES:
        raise ToolError(f"NOT_FOUND: The requested resource does not exist ({kind})")
    for n, record in enumerate(records(state, kind)):
        if record["Id"] == ident:
            return n, record
    raise ToolError(
        f"NOT_FOUND: Provided external ID field does not exist or is not accessible: {ident}"
    )


def get_record(state: State, args: dict[str, Any]) -> Answer:
    kind = args["sObject"]
    _, record = _at(state, kind, args["id"])
    if not args.get("fields"):
        return record, []
    fields = [f for f in args["fields"] if f != "Id"] + ["Id"]
    return shape_record(state, kind, record, fields), []


def query_records(state: State, args: dict[str, Any]) -> Answer:
    return query(state, args), []


def aggregate_query(state: State, args: dict[str, Any]) -> Answer:
    return aggregate(state, args), []


def update_record(state: State, args: dict[str, Any]) -> Answer:
    kind = args["sObject"]
    n, record = _at(state, kind, args["id"])
    changes = dict(args["fields"])
    if kind == "Opportunity" and "StageName" in changes:
        stage = changes["StageName"]
        if stage not in PROBABILITY:
            raise ToolError(
                f"INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST: Stage: bad value for restricted picklist field: {stage}"
            )
        changes.setdefault("Probability", float(PROBABILITY[stage]))
        changes |= {"IsClosed": stage.startswith("Closed"), "IsWon": stage == "Closed Won"}
    bad = [f for f in changes if f not in record]
    if bad:
        raise ToolError(f"INVALID_FIELD: No such column '{bad[0]}' on sobject of type {kind}")
    changes["LastModifiedDate"] = NOW
    patch = [
        {"op": "replace", "path": pointer(kind, "records", n, f), "value": v}
        for f, v in changes.items()
    ]
    return "", patch


def create_record(state: State, args: dict[str, Any]) -> Answer:
    kind = args["sObject"]
    if kind != "Contact":
        raise ToolError(f"INSUFFICIENT_ACCESS: cannot create {kind}")
    fields = dict(args["fields"])
    account = _at(state, "Account", fields.get("AccountId", ""))[1]
    ident = salesforce_id(PREFIXES[kind], 7919 * (len(records(state, kind)) + 1))
    record: dict[str, Any] = {"attributes": {"type": kind, "url": url(kind, ident)}, "Id": ident}
    record |= {
        "AccountId": account["Id"],
        "FirstName": fields.get("FirstName"),
        "LastName": fields["LastName"],
    }
    record["Name"] = f"{fields.get('FirstName', '')} {fields['LastName']}".strip()
    record |= {k: fields.get(k) for k in ("Title", "Email", "Phone", "LeadSource")}
    record |= {
        "OwnerId": account["OwnerId"],
        "CreatedDate": NOW,
        "LastModifiedDate": NOW,
        "IsDeleted": False,
    }
    patch = [
        {"op": "add", "path": pointer(kind, "records", "-"), "value": record},
        {
            "op": "replace",
            "path": pointer(kind, "totalSize"),
            "value": state[kind]["totalSize"] + 1,
        },
    ]
    return {"id": ident, "success": True, "errors": []}, patch


def tools() -> list[Tool]:
    """The MCP server's tools: records by id, SOQL queries and aggregates, writes."""
    ident = {"sObject": OBJECT, "id": prop("string", "Record id (15 or 18 characters).")}
    return [
        Tool(
            "get_record",
            "GET /sobjects/{sObject}/{id}: a record, all fields unless fields says.",
            ident | {"fields": prop("array", "Field API names.", items={"type": "string"})},
            get_record,
            ("sObject", "id"),
            output={"type": "object"},
        ),
        Tool(
            "query_records",
            "Run a SOQL query: SELECT fields FROM objectName WHERE ... ORDER BY ... LIMIT ...",
            {
                "objectName": OBJECT,
                "fields": FIELDS,
                "whereClause": WHERE,
                "orderBy": prop("string", "Field and ASC or DESC."),
                "limit": prop("integer", "Most records."),
            },
            query_records,
            ("objectName", "fields"),
            output=LIST,
        ),
        Tool(
            "aggregate_query",
            "Run a SOQL aggregate query (COUNT, SUM, AVG, MIN, MAX) with GROUP BY.",
            {
                "objectName": OBJECT,
                "selectFields": prop(
                    "array",
                    "Grouped fields and aggregates, e.g. SUM(Amount) total.",
                    items={"type": "string"},
                ),
                "groupByFields": prop("array", "GROUP BY fields.", items={"type": "string"}),
                "whereClause": WHERE,
            },
            aggregate_query,
            ("objectName", "selectFields"),
            output=LIST,
        ),
        *_write_tools(),
        note_tool(
            "log_activity_note",
            "text",
            "Log a note on the activity timeline (answers nothing).",
        ),
    ]


def _write_tools() -> list[Tool]:
    ident = {"sObject": OBJECT, "id": prop("string", "Record id (15 or 18 characters).")}
    return [
        Tool(
            "update_record",
            "PATCH /sobjects/{sObject}/{id}: set fields (answers 204, no content).",
            ident | {"fields": prop("object", "Field API names and values.")},
            update_record,
            ("sObject", "id", "fields"),
            effect="write",
        ),
        Tool(
            "create_record",
            "POST /sobjects/{sObject}: create a record.",
            {"sObject": OBJECT, "fields": prop("object", "Field API names and values.")},
            create_record,
            ("sObject", "fields"),
            effect="write",
        ),
    ]
