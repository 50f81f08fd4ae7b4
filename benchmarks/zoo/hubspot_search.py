"""The CRM search of the ``hubspot`` shape, as ``POST /crm/v3/objects/{type}/search``
answers: filter groups OR-ed, the filters of a group AND-ed; values are strings, compared as
numbers where they read as numbers and as epoch milliseconds for datetimes (a filter may give
milliseconds or ISO text); ``IN`` matches any of a multiple checkbox's ``;``-joined values;
``CONTAINS_TOKEN`` takes ``*`` wildcards; ``associations.company`` matches the objects
associated with a company; the answer is ``total`` and a page of ``results`` (the properties
asked for, or the defaults), with ``paging.next.after`` while more remain. And the filters the
planners draw from a record."""

from __future__ import annotations

import random
import re
from typing import Any

from benchmarks.zoo.hubspot_api import MULTI, SINGULAR, associated, checked_type, shown
from benchmarks.zoo.hubspot_crm import millis, objects
from benchmarks.zoo.kit import Answer, State

DATES = {"createdate", "closedate", "lastmodifieddate", "hs_lastmodifieddate"}


def _order(name: str, text: str | None) -> Any:
    if text is None:
        return None
    if name in DATES:
        return millis(text)
    try:
        return float(text)
    except ValueError:
        return text.lower()


def _passes(state: State, kind: str, record: dict[str, Any], spec: dict[str, Any]) -> bool:
    name, op = str(spec["propertyName"]), str(spec["operator"])
    if name.startswith("associations."):
        to = {v: k for k, v in SINGULAR.items()}[name.split(".", 1)[1]]
        linked = {a["toObjectId"] for a in associated(state, kind, record["id"], to)}
        return bool((int(spec["value"]) in linked) == (op == "EQ"))
    actual: str | None = record["properties"].get(name)
    if op in ("HAS_PROPERTY", "NOT_HAS_PROPERTY"):
        return (actual not in (None, "")) == (op == "HAS_PROPERTY")
    if actual is None or actual == "":
        return op in ("NEQ", "NOT_IN", "NOT_CONTAINS_TOKEN")
    if op in ("IN", "NOT_IN"):
        values = set(actual.lower().split(";")) if name in MULTI else {actual.lower()}
        return bool(values & {str(v).lower() for v in spec["values"]}) == (op == "IN")
    if op in ("CONTAINS_TOKEN", "NOT_CONTAINS_TOKEN"):
        pattern = re.escape(str(spec["value"]).lower()).replace(r"\*", ".*")
        tokens = [actual.lower(), *re.split(r"[^\w@.]+", actual.lower())]
        return any(re.fullmatch(pattern, t) for t in tokens) == (op == "CONTAINS_TOKEN")
    have: Any = _order(name, actual)
    value: Any = _order(name, str(spec.get("value")))
    if isinstance(have, str) != isinstance(value, str):
        have, value = str(have), str(value)
    compare = {
        "EQ": lambda: have == value,
        "NEQ": lambda: have != value,
        "LT": lambda: have < value,
        "LTE": lambda: have <= value,
        "GT": lambda: have > value,
        "GTE": lambda: have >= value,
        "BETWEEN": lambda: value <= have <= _order(name, str(spec["highValue"])),
    }
    return bool(compare[op]())


def matching(state: State, kind: str, groups: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        r
        for r in objects(state, checked_type(kind))
        if not groups or any(all(_passes(state, kind, r, f) for f in g["filters"]) for g in groups)
    ]


def search(state: State, args: dict[str, Any]) -> Answer:
    kind = args["objectType"]
    found = matching(state, kind, args.get("filterGroups", []))
    for sort in reversed(args.get("sorts", [])):
        name = sort["propertyName"]
        keyed = [(_order(name, r["properties"].get(name)), r) for r in found]
        present = sorted(
            (k for k in keyed if k[0] is not None),
            key=lambda k: k[0],
            reverse=sort.get("direction") == "DESCENDING",
        )
        found = [r for _, r in present] + [r for k, r in keyed if k is None]
    start, limit = int(args.get("after", 0)), min(int(args.get("limit", 10)), 200)
    page = [shown(r, kind, args.get("properties")) for r in found[start : start + limit]]
    answer: dict[str, Any] = {"total": len(found), "results": page}
    if start + limit < len(found):
        after = str(start + limit)
        answer["paging"] = {"next": {"after": after, "link": f"?after={after}"}}
    return answer, []


def filters(rng: random.Random, kind: str, record: dict[str, Any]) -> list[dict[str, Any]]:
    """Search filters that ``record`` meets, shuffled."""
    p = record["properties"]
    found: list[dict[str, Any]] = []
    for name in ("dealstage", "pipeline", "hs_priority", "lifecyclestage", "hs_lead_status"):
        if p.get(name):
            found.append({"propertyName": name, "operator": "EQ", "value": p[name]})
    for name in ("industry", "country", "city", "jobtitle", "hubspot_owner_id"):
        if p.get(name):
            found.append({"propertyName": name, "operator": "EQ", "value": p[name]})
    for name in ("amount", "numberofemployees", "annualrevenue"):
        if p.get(name):
            op = rng.choice(["GTE", "LTE"])
            found.append({"propertyName": name, "operator": op, "value": p[name]})
    for name in ("hs_buying_role", "product_interest"):
        if p.get(name):
            found.append(
                {"propertyName": name, "operator": "IN", "values": [rng.choice(p[name].split(";"))]}
            )
    for name in ("closedate", "createdate"):
        if name in p and rng.random() < 0.7:
            day = 86_400_000
            low = millis(p[name]) // day * day - rng.randint(0, 20) * day
            found.append(
                {"propertyName": name, "operator": "BETWEEN", "value": str(low)}
                | {"highValue": str(low + rng.randint(21, 60) * day)}
            )
    if kind == "contacts":
        domain = p["email"].split("@")[1]
        found.append(
            {"propertyName": "email", "operator": "CONTAINS_TOKEN", "value": f"*@{domain}"}
        )
        if p["phone"]:
            found.append({"propertyName": "phone", "operator": "HAS_PROPERTY"})
    rng.shuffle(found)
    return found
