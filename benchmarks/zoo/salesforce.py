"""``salesforce``: a sales team's Salesforce org, each object (``User``, ``Account``,
``Contact``, ``Opportunity``) exported as a ``queryAll`` answer of records carrying
``attributes`` and 18-character ids, related only by ``AccountId`` and ``OwnerId``. Tools are
those of a Salesforce MCP server answering with the REST API's JSON: a record by id (GET
``sobjects``, all fields or ``fields``), SOQL queries built from an object, fields (parent
paths such as ``Account.Name`` answered as nested records; child subqueries such as ``(SELECT
Name FROM Opportunities)`` answered as their own ``{"totalSize", "done", "records"}``, or
``null``), a ``WHERE`` clause, order and limit; aggregate queries answered as
``AggregateResult`` records (``expr0`` for an unaliased aggregate); a PATCH that answers
nothing (204) and a create answering ``{"id", "success", "errors"}``."""

from __future__ import annotations

import random
from typing import Any

from benchmarks.zoo.kit import Planned, State, Tool
from benchmarks.zoo.salesforce_api import tools
from benchmarks.zoo.salesforce_org import (
    PREFIXES,
    SOURCES,
    STAGES,
    TITLES,
    TYPES,
    org,
    records,
    salesforce_id,
)
from benchmarks.zoo.salesforce_soql import where
from benchmarks.zoo.shape import Shape


def _clauses(rng: random.Random, opp: dict[str, Any]) -> list[str]:
    amount = opp["Amount"]
    found = [
        f"StageName = '{opp['StageName']}'",
        f"Type = '{opp['Type']}'",
        f"LeadSource = '{opp['LeadSource']}'",
        f"Amount >= {int(amount - amount % 10000)}",
        f"Amount <= {int(amount + 20000)}",
        f"CloseDate >= {opp['CloseDate'][:8]}01",
        f"CloseDate <= {opp['CloseDate']}",
        f"OwnerId = '{opp['OwnerId']}'",
        f"IsClosed = {str(opp['IsClosed']).lower()}",
    ]
    rng.shuffle(found)
    return found


class Salesforce(Shape):
    name = "salesforce"
    title = "Sales assistant over a Salesforce org"
    description = (
        "Northwind Components' Salesforce org (API v59.0): users, accounts, contacts and "
        "opportunities. Errors are text starting with 'Error:' and Salesforce's error code."
    )
    note = ("log_activity_note", "text")

    def build(self, rng: random.Random, target_bytes: int) -> State:
        return org(rng, target_bytes)

    def tools(self) -> list[Tool]:
        return tools()

    def lookup(self, rng: random.Random, state: State) -> Planned:
        kind = rng.choice(["Account", "Contact", "Opportunity", "Opportunity"])
        return Planned(
            "lookup", "get_record", {"sObject": kind, "id": rng.choice(records(state, kind))["Id"]}
        )

    def nested_lookup(self, rng: random.Random, state: State) -> Planned:
        account = rng.choice(records(state, "Account"))
        fields = rng.choice(
            [
                ["Name", "BillingAddress"],
                ["BillingAddress", "Phone"],
                ["Name", "BillingAddress", "AnnualRevenue"],
            ]
        )
        args = {"sObject": "Account", "id": account["Id"], "fields": fields}
        return Planned("nested_lookup", "get_record", args)

    def search(self, rng: random.Random, state: State) -> Planned:
        opps = records(state, "Opportunity")
        opp = rng.choice(opps)
        wanted, chosen = rng.randint(1, 4), []
        for clause in _clauses(rng, opp):
            chosen.append(clause)
            if len(chosen) >= wanted and len(where(state, opps, " AND ".join(chosen))) <= 20:
                break
        args: dict[str, Any] = {
            "objectName": "Opportunity",
            "fields": ["Id", "Name", "StageName", "Amount", "CloseDate"],
            "whereClause": " AND ".join(chosen),
            "limit": 20,
        }
        if rng.random() < 0.4:
            args["orderBy"] = rng.choice(["Amount DESC", "CloseDate ASC"])
        return Planned("search", "query_records", args)

    def join(self, rng: random.Random, state: State) -> Planned:
        if rng.random() < 0.25:
            contact = rng.choice(records(state, "Contact"))
            args = {
                "objectName": "Contact",
                "fields": ["Name", "Title", "Account.Name", "Account.Industry", "Owner.Name"],
                "whereClause": f"Email = '{contact['Email']}'",
            }
            return Planned("join", "query_records", args)
        if rng.random() < 0.5:
            account = rng.choice(records(state, "Account"))
            sub = rng.choice(
                [
                    "(SELECT Name, StageName, Amount FROM Opportunities)",
                    "(SELECT Name, Email FROM Contacts)",
                ]
            )
            args = {
                "objectName": "Account",
                "fields": ["Name", "Industry", sub],
                "whereClause": f"Id = '{account['Id']}'",
            }
            return Planned("join", "query_records", args)
        opp = rng.choice(records(state, "Opportunity"))
        industry = next(
            a["Industry"] for a in records(state, "Account") if a["Id"] == opp["AccountId"]
        )
        clause = f"Account.Industry = '{industry}' AND StageName = '{opp['StageName']}' AND CloseDate >= {opp['CloseDate'][:8]}01"
        clause += f" AND CloseDate <= {opp['CloseDate'][:8]}28"
        query: dict[str, Any] = {
            "objectName": "Opportunity",
            "fields": ["Name", "Amount", "Account.Name", "Owner.Name"],
            "whereClause": clause,
            "orderBy": "Amount DESC",
            "limit": 20,
        }
        return Planned("join", "query_records", query)

    def aggregate(self, rng: random.Random, state: State) -> Planned:
        group = rng.choice(["StageName", "LeadSource", "Type", "OwnerId"])
        select = [
            group,
            "COUNT(Id)",
            rng.choice(["SUM(Amount)", "SUM(Amount) total", "AVG(Amount) average"]),
        ]
        args: dict[str, Any] = {
            "objectName": "Opportunity",
            "selectFields": select,
            "groupByFields": [group],
        }
        if rng.random() < 0.6:
            month = rng.randint(1, 11)
            args["whereClause"] = (
                f"CloseDate >= 2025-{month:02d}-01 AND CloseDate <= 2025-{month + 1:02d}-28"
            )
        return Planned("aggregate", "aggregate_query", args)

    def write(self, rng: random.Random, state: State) -> tuple[Planned, Planned]:
        if rng.random() < 0.6:
            opp = rng.choice(records(state, "Opportunity"))
            fields: dict[str, Any] = rng.choice(
                [
                    {"StageName": rng.choice([s for s in STAGES if s != opp["StageName"]])},
                    {"Amount": opp["Amount"] + rng.randint(1, 20) * 1000.0},
                    {"CloseDate": f"2026-{rng.randint(1, 6):02d}-{rng.randint(1, 28):02d}"},
                ]
            )
            ident = {"sObject": "Opportunity", "id": opp["Id"]}
            return Planned("write", "update_record", ident | {"fields": fields}), Planned(
                "read_after_write", "get_record", ident
            )
        account = rng.choice(records(state, "Account"))
        first, last = (
            rng.choice(["Ada", "Bo", "Cyra", "Dev"]),
            rng.choice(["Lindqvist", "Mbeki", "Ortega"]),
        )
        email = f"{first.lower()}.{last.lower()}{len(records(state, 'Contact'))}@{account['Name'].split()[0].lower()}.example"
        fields = {
            "AccountId": account["Id"],
            "FirstName": first,
            "LastName": last,
            "Email": email,
            "Title": rng.choice(TITLES),
            "LeadSource": rng.choice(SOURCES),
        }
        # The id the create will answer with: the read asks for the record by it.
        made = salesforce_id(PREFIXES["Contact"], 7919 * (len(records(state, "Contact")) + 1))
        read = {"sObject": "Contact", "id": made}
        write = Planned("write", "create_record", {"sObject": "Contact", "fields": fields})
        return write, Planned("read_after_write", "get_record", read)

    def no_match(self, rng: random.Random, state: State) -> Planned:
        clause = rng.choice(
            [
                f"Name LIKE '%{rng.choice(['Zeppelin', 'Quasar'])}%'",
                "Amount > 5000000",
                f"Account.Industry = 'Aerospace' AND Type = '{rng.choice(TYPES)}'",
            ]
        )
        args = {
            "objectName": "Opportunity",
            "fields": ["Id", "Name", "Amount"],
            "whereClause": clause,
        }
        return Planned("empty", "query_records", args)
