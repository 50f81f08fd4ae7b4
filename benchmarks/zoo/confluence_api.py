"""The ``confluence`` shape's tools: CQL content search, the Page Properties Report (the
``details`` rows of the pages with a label, rendered: users by display name, statuses by title),
a summary of one property over those pages, and the edits: a page saved with one properties row
changed (a ``PUT`` of the next version number) and labels added."""

from __future__ import annotations

import html
import random
import re
import statistics
from typing import Any

from benchmarks.zoo.confluence_space import (
    COLOURS,
    ROW,
    SITE,
    SPACE,
    by,
    find_page,
    has_label,
    names,
    page_link,
    pages,
    properties,
    status,
    time,
    user_link,
    users,
)
from benchmarks.zoo.kit import Answer, State, ToolError, pointer

CLAUSE = re.compile(r'(\w+)\s*(>=|<=|!=|=|~)\s*(?:"([^"]*)"|(\S+))')
PEOPLE = ("Owner", "Incident lead")
DATES = ("Date", "Last review")
EDITED = "2025-12-01T09:{:02d}:00.000Z"


def _clause(page: dict[str, Any], field: str, op: str, value: str) -> bool:
    field = field.lower()
    if field == "type":
        return value == "page"
    if field == "space":
        return value.upper() == SPACE
    if field == "label":
        return has_label(page, value) != (op == "!=")
    if field in ("ancestor", "parent"):
        chain = [a["id"] for a in page["ancestors"]]
        return value in (chain if field == "ancestor" else chain[-1:])
    if field == "title" and op == "~":
        return all(word in page["title"].lower() for word in value.lower().split())
    if field == "contributor":
        return bool(page["version"]["by"]["accountId"] == value)
    if field == "lastmodified":
        day = str(page["version"]["when"][:10])
        return day >= value if op == ">=" else day <= value if op == "<=" else day == value
    raise ToolError(f"Could not parse cql : {field} {op} {value}")


def meets(page: dict[str, Any], cql: str) -> bool:
    clauses = [CLAUSE.fullmatch(part.strip()) for part in re.split(r"\s+AND\s+", cql, flags=re.I)]
    if not all(clauses):
        raise ToolError(f"Could not parse cql : {cql}")
    return all(_clause(page, m[1], m[2], m[3] if m[3] is not None else m[4]) for m in clauses if m)


def _listed(page: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in page.items() if k != "body"}


def search(state: State, args: dict[str, Any]) -> Answer:
    limit = args.get("limit", 25)
    found = [_listed(p) for p in pages(state) if meets(p, args["cql"])]
    return {
        "results": found[:limit],
        "start": 0,
        "limit": limit,
        "size": min(limit, len(found)),
        "_links": {"base": SITE, "context": "/wiki"},
    }, []


def _labelled(state: State, args: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        p
        for p in pages(state)
        if has_label(p, args["label"])
        and ("ancestor" not in args or args["ancestor"] in [a["id"] for a in p["ancestors"]])
    ]


def report(state: State, args: dict[str, Any]) -> Answer:
    """The Page Properties Report macro's table, sorted by title."""
    known = names(state)
    rows, columns = [], ["Title"]
    for page in sorted(_labelled(state, args), key=lambda p: str(p["title"])):
        shown = properties(page, known)
        columns += [k for k in shown if k not in columns]
        rows.append({"id": page["id"], "Title": page["title"]} | shown)
    return {"label": args["label"], "columns": columns, "rows": rows, "totalPages": len(rows)}, []


def summary(state: State, args: dict[str, Any]) -> Answer:
    known = names(state)
    values = [properties(p, known).get(args["property"]) for p in _labelled(state, args)]
    present = [v for v in values if v is not None]
    counts: dict[str, int] = {}
    for value in present:
        counts[value] = counts.get(value, 0) + 1
    answer: dict[str, Any] = {"label": args["label"], "property": args["property"]}
    answer |= {"pages": len(values), "with_property": len(present)}
    numbers = [int(v) for v in present if v.isdigit()]
    if numbers and len(numbers) == len(present):
        answer |= {"sum": sum(numbers), "mean": round(statistics.fmean(numbers), 1)}
        return answer | {"min": min(numbers), "max": max(numbers)}, []
    return answer | {"counts": dict(sorted(counts.items()))}, []


def _cell(state: State, key: str, value: str) -> str:
    if key in PEOPLE:
        if value not in names(state):
            raise ToolError(f"Unknown user accountId: {value}")
        return user_link(value)
    if key in ("Status", "Severity"):
        if value not in COLOURS:
            raise ToolError(f"Unknown status: {value}")
        return status(value)
    if key == "Service":
        return page_link(value)
    return time(value) if key in DATES else html.escape(value)


def set_property(state: State, args: dict[str, Any]) -> Answer:
    n, page = find_page(state, args["page_id"])
    number = page["version"]["number"]
    if args["version"] != number + 1:
        raise ToolError(f"Version must be incremented on update. Current version is: {number}")
    body, key = page["body"]["storage"]["value"], args["property"]
    if key not in [k for k, _ in ROW.findall(body)]:
        raise ToolError(f"Page {page['id']} has no property '{key}'")
    cell = _cell(state, key, args["value"])
    row = re.compile(rf"<tr><th>{re.escape(key)}</th><td>.*?</td></tr>")
    changed = row.sub(lambda _: f"<tr><th>{key}</th><td>{cell}</td></tr>", body, count=1)
    editor = users(state)[-1]
    version = {"by": by(editor), "when": EDITED.format(number % 60), "number": number + 1}
    version["minorEdit"] = False
    saved = {k: page[k] for k in ("id", "type", "status", "title")} | {"version": version}
    at = ("content", "results", n)
    return saved, [
        {"op": "replace", "path": pointer(*at, "body", "storage", "value"), "value": changed},
        {"op": "replace", "path": pointer(*at, "version"), "value": version},
    ]


def add_labels(state: State, args: dict[str, Any]) -> Answer:
    n, page = find_page(state, args["page_id"])
    held = page["metadata"]["labels"]
    have = {lab["name"] for lab in held["results"]}
    new = [name.lower() for name in args["labels"] if name.lower() not in have]
    rng = random.Random(f"{page['id']}/{sorted(new)}")
    made = [
        {"prefix": "global", "name": name, "id": str(rng.randint(10**8, 10**9)), "label": name}
        for name in dict.fromkeys(new)
    ]
    at = ("content", "results", n, "metadata", "labels")
    size = len(held["results"]) + len(made)
    answer = {"results": held["results"] + made, "start": 0, "limit": 200, "size": size}
    patch = [{"op": "add", "path": pointer(*at, "results", "-"), "value": lab} for lab in made]
    return answer, [*patch, {"op": "replace", "path": pointer(*at, "size"), "value": size}]
