"""The workspace of the ``notion`` shape: a product team's Notion workspace as the public API
serves it, walked and saved call by call: the users list, two databases (Projects, Tasks) with
their property schemas, every page of them, and each page's or block's children as ``GET
/v1/blocks/{id}/children`` answered them. A page's properties are keyed by name, each a typed
value object with the property's short id (``{"id": "%3DbQq", "type": "number", "number":
12}``); text is a list of rich-text runs, a title split where its formatting changes; selects
are option objects; people are user objects; a relation lists page ids with ``has_more``; a
rollup holds what Notion computed over the related pages; dates are ``{"start", "end",
"time_zone"}``. Ids are UUIDs; times are ISO 8601 to the minute."""

from __future__ import annotations

import random
import string
from typing import Any

from benchmarks.zoo.kit import FIRST, LAST, WORDS, State

COLORS = ["default", "gray", "brown", "orange", "yellow", "green", "blue", "purple", "pink"]
PRIORITIES = ["P0", "P1", "P2", "P3"]
QUARTERS = ["Q1 2025", "Q2 2025", "Q3 2025", "Q4 2025", "Q1 2026"]
TAGS = ["Growth", "Platform", "Billing", "Mobile", "Infra", "Design", "Data", "Security"]
STATUSES = [("Not started", "default", "To-do"), ("In progress", "blue", "In progress")]
STATUSES += [("Blocked", "red", "In progress"), ("Done", "green", "Complete")]
VERBS = ["Migrate", "Draft", "Review", "Ship", "Audit", "Prototype", "Document", "Test"]
NOUNS = ["pricing page", "onboarding flow", "invoice export", "SSO settings", "search index"]
NOUNS += ["usage dashboard", "webhook retries", "dark mode", "audit log", "CSV import"]
CODE_WORDS = ["billing_v2", "user_events", "api/v3", "feature_flags", "cron.yaml"]
EMOJI = ["\u2b50", "\u26a1", "\u2615", "\u2699\ufe0f", "\u270f\ufe0f", "\u26f5", "\u2744\ufe0f"]
"""Icons of the Basic Multilingual Plane (a YAML loader refuses the surrogate pairs JSON writes
for others)."""
PLAIN: dict[str, Any] = {"bold": False, "italic": False, "strikethrough": False, "underline": False}
PLAIN |= {"code": False, "color": "default"}
ID_CHARS = string.ascii_letters + string.digits + ":;<=>?@[]^_`{|}~"


def uuid(rng: random.Random) -> str:
    h = f"{rng.getrandbits(128):032x}"
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{'89ab'[int(h[16], 16) % 4]}{h[17:20]}-{h[20:]}"


def property_id(rng: random.Random) -> str:
    raw = "".join(rng.choice(ID_CHARS) for _ in range(4))
    return "".join(c if c.isalnum() else f"%{ord(c):02X}" for c in raw)


def run(content: str, **annotations: Any) -> dict[str, Any]:
    """A rich-text run of plain text."""
    return {
        "type": "text",
        "text": {"content": content, "link": None},
        "annotations": PLAIN | annotations,
        "plain_text": content,
        "href": None,
    }


def plain(runs: list[dict[str, Any]]) -> str:
    return "".join(r["plain_text"] for r in runs)


def user_ref(ident: str) -> dict[str, str]:
    return {"object": "user", "id": ident}


def option(rng: random.Random, name: str, color: str | None = None) -> dict[str, Any]:
    return {"id": property_id(rng), "name": name, "color": color or rng.choice(COLORS)}


def stamp(minute: int) -> str:
    day, rest = divmod(minute, 24 * 60)
    month, day = divmod(day, 28)
    return f"2025-{month % 12 + 1:02d}-{day + 1:02d}T{rest // 60:02d}:{rest % 60:02d}:00.000Z"


def date_value(start: str | None) -> dict[str, Any] | None:
    return None if start is None else {"start": start, "end": None, "time_zone": None}


def children(results: list[dict[str, Any]]) -> dict[str, Any]:
    """A ``GET /v1/blocks/{id}/children`` answer."""
    return listed(results, "block")


def listed(results: list[dict[str, Any]], kind: str) -> dict[str, Any]:
    """A list answer of the API: its results, no further page."""
    page = {"object": "list", "results": results, "next_cursor": None, "has_more": False}
    return page | {"type": kind, kind: {}}


def pages(state: State) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = state["pages"]
    return found


def database(state: State, title: str) -> dict[str, Any]:
    return next(d for d in state["databases"] if plain(d["title"]) == title)


def in_database(state: State, title: str) -> list[dict[str, Any]]:
    ident = database(state, title)["id"]
    return [p for p in pages(state) if p["parent"].get("database_id") == ident]


def rollup(state: State, project: dict[str, Any], name: str) -> dict[str, Any]:
    """A project's rollup as Notion computes it over the project's tasks."""
    schema = database(state, "Projects")["properties"][name]["rollup"]
    related = {r["id"] for r in project["properties"]["Tasks"]["relation"]}
    tasks = [p for p in pages(state) if p["id"] in related]
    values = [t["properties"][schema["rollup_property_name"]] for t in tasks]
    function = schema["function"]
    if function == "sum":
        total = sum(v["number"] or 0 for v in values)
        return {"type": "number", "number": total, "function": function}
    if function == "percent_checked":
        share = sum(v["checkbox"] for v in values) / len(values) if values else 0
        return {"type": "number", "number": round(share, 4), "function": function}
    dates = [v["date"]["start"] for v in values if v["date"]]
    return {"type": "date", "date": date_value(max(dates) if dates else None), "function": function}


def schemas(
    rng: random.Random, projects_id: str, tasks_id: str
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The Projects and Tasks databases' properties (name → schema)."""
    ids = {n: property_id(rng) for n in ["Status", "Owner", "Budget", "Quarter", "Tags", "Dates"]}
    ids |= {n: property_id(rng) for n in ["Tasks", "Estimate total", "Progress", "Latest due"]}
    ids |= {n: property_id(rng) for n in ["Project", "Assignee", "Done", "Estimate", "Priority"]}
    ids |= {n: property_id(rng) for n in ["Due", "Notes", "Code", "ID"]}
    groups: list[dict[str, Any]] = [
        {"id": property_id(rng), "name": g, "color": c}
        for g, c in [("To-do", "gray"), ("In progress", "blue"), ("Complete", "green")]
    ]
    status: list[dict[str, Any]] = [
        {"id": property_id(rng), "name": n, "color": c, "description": None} for n, c, _ in STATUSES
    ]
    for group in groups:
        group["option_ids"] = [
            o["id"] for o, s in zip(status, STATUSES, strict=True) if s[2] == group["name"]
        ]

    def prop(name: str, kind: str, config: Any = None) -> tuple[str, dict[str, Any]]:
        ident = "title" if kind == "title" else ids[name]
        return name, {"id": ident, "name": name, "type": kind, kind: config or {}}

    def roll(name: str, of: str, function: str) -> tuple[str, dict[str, Any]]:
        return prop(
            name,
            "rollup",
            {
                "rollup_property_name": of,
                "relation_property_name": "Tasks",
                "rollup_property_id": ids[of],
                "relation_property_id": ids["Tasks"],
                "function": function,
            },
        )

    projects = dict(
        [
            prop("Name", "title"),
            prop("Status", "status", {"options": status, "groups": groups}),
            prop("Owner", "people"),
            prop("Budget", "number", {"format": "dollar"}),
            prop("Quarter", "select", {"options": [option(rng, q) for q in QUARTERS]}),
            prop("Tags", "multi_select", {"options": [option(rng, t) for t in TAGS]}),
            prop("Dates", "date"),
            prop(
                "Tasks",
                "relation",
                {
                    "database_id": tasks_id,
                    "type": "dual_property",
                    "dual_property": {
                        "synced_property_name": "Project",
                        "synced_property_id": ids["Project"],
                    },
                },
            ),
            roll("Estimate total", "Estimate", "sum"),
            roll("Progress", "Done", "percent_checked"),
            roll("Latest due", "Due", "latest_date"),
            prop("Code", "unique_id", {"prefix": "PRJ"}),
        ]
    )
    priorities = [
        option(rng, p, c)
        for p, c in zip(PRIORITIES, ["red", "orange", "yellow", "gray"], strict=True)
    ]
    tasks = dict(
        [
            prop("Task", "title"),
            prop(
                "Project",
                "relation",
                {
                    "database_id": projects_id,
                    "type": "dual_property",
                    "dual_property": {
                        "synced_property_name": "Tasks",
                        "synced_property_id": ids["Tasks"],
                    },
                },
            ),
            prop("Assignee", "people"),
            prop("Done", "checkbox"),
            prop("Estimate", "number", {"format": "number"}),
            prop("Priority", "select", {"options": priorities}),
            prop("Due", "date"),
            prop("Notes", "rich_text"),
            prop("ID", "unique_id", {"prefix": "TSK"}),
        ]
    )
    return projects, tasks


def users(rng: random.Random) -> list[dict[str, Any]]:
    people: list[dict[str, Any]] = []
    for first, last in {(rng.choice(FIRST), rng.choice(LAST)) for _ in range(22)}:
        people.append(
            {
                "object": "user",
                "id": uuid(rng),
                "name": f"{first} {last}",
                "avatar_url": None,
                "type": "person",
                "person": {"email": f"{first}.{last}@northwind.example".lower()},
            }
        )
    people.sort(key=lambda u: str(u["name"]))
    bot = {"object": "user", "id": uuid(rng), "name": "Roadmap Assistant", "avatar_url": None}
    return [*people, bot | {"type": "bot", "bot": {}}]


def title_runs(rng: random.Random, text: str) -> list[dict[str, Any]]:
    """A title as the editor stores it: split into runs where formatting changes."""
    words = text.split(" ")
    if len(words) < 3 or rng.random() < 0.6:
        return [run(text)]
    cut = rng.randint(1, len(words) - 1)
    styled = rng.choice([{"bold": True}, {"code": True}, {"italic": True}])
    head, tail = " ".join(words[:cut]) + " ", " ".join(words[cut:])
    return [run(head), run(tail, **styled)]


def sentence(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 16))).capitalize() + "."
