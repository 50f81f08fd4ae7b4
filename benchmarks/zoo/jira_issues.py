"""A Jira Cloud site's issues as its REST search answers them with ``expand=names,schema,changelog``
(the ``jira`` shape's state): ``issues[]`` of ``id``, ``key`` and ``fields``, where a company's own
fields are opaque ``customfield_NNNNN`` keys whose names (``Story point estimate``, ``Sprint``,
``Epic Link``) are only in the top-level ``names`` map; people as embedded user objects known by
``accountId``; select fields as ``{"value", "id"}`` options; the description as an Atlassian
Document Format tree; times as ``2025-03-14T10:22:33.512+0100``; and each issue's
``changelog.histories[].items[]`` of field changes with ``fromString``/``toString``."""

from __future__ import annotations

import itertools
import random
from datetime import UTC, datetime, timedelta
from typing import Any

from benchmarks.zoo.kit import FIRST, LAST, WORDS, State, fill, size_of

SITE = "https://acme.atlassian.net/rest/api/3"
POINTS, SPRINT, EPIC_LINK, EPIC_NAME = (
    "customfield_10016",
    "customfield_10020",
    "customfield_10014",
    "customfield_10011",
)
FLAGGED, REGION = "customfield_10021", "customfield_10042"
NAMES = {
    "summary": "Summary",
    "issuetype": "Issue Type",
    "project": "Project",
    "status": "Status",
    "priority": "Priority",
    "assignee": "Assignee",
    "reporter": "Reporter",
    "created": "Created",
    "updated": "Updated",
    "resolution": "Resolution",
    "resolutiondate": "Resolved",
    "labels": "Labels",
    "components": "Components",
    "description": "Description",
    POINTS: "Story point estimate",
    SPRINT: "Sprint",
    EPIC_LINK: "Epic Link",
    EPIC_NAME: "Epic Name",
    FLAGGED: "Flagged",
    REGION: "Customer region",
}
SCHEMA = {
    POINTS: {"type": "number", "custom": "com.pyxis.greenhopper.jira:jsw-story-points"},
    SPRINT: {"type": "array", "items": "json", "custom": "com.pyxis.greenhopper.jira:gh-sprint"},
    EPIC_LINK: {"type": "any", "custom": "com.pyxis.greenhopper.jira:gh-epic-link"},
    EPIC_NAME: {"type": "string", "custom": "com.pyxis.greenhopper.jira:gh-epic-label"},
    FLAGGED: {"type": "array", "items": "option", "custom": "multicheckboxes"},
    REGION: {"type": "option", "custom": "select"},
}
STATUSES = {
    "To Do": ("10000", {"id": 2, "key": "new", "colorName": "blue-gray", "name": "To Do"}),
    "In Progress": (
        "3",
        {"id": 4, "key": "indeterminate", "colorName": "yellow", "name": "In Progress"},
    ),
    "In Review": (
        "10002",
        {"id": 4, "key": "indeterminate", "colorName": "yellow", "name": "In Progress"},
    ),
    "Done": ("10001", {"id": 3, "key": "done", "colorName": "green", "name": "Done"}),
}
FLOW = list(STATUSES)
PROJECTS = [("10000", "PAY", "Payments"), ("10001", "SRCH", "Search"), ("10002", "MOB", "Mobile")]
TYPES = {"Story": "10001", "Bug": "10004", "Task": "10002", "Epic": "10000"}
PRIORITIES = [("1", "Highest"), ("2", "High"), ("3", "Medium"), ("3", "Medium"), ("4", "Low")]
REGIONS = [("10101", "EMEA"), ("10102", "NA"), ("10103", "APAC")]
LABELS = ["backend", "frontend", "tech-debt", "customer-reported", "security", "perf"]
COMPONENTS = ["Checkout", "Ledger", "Indexer", "Ranking", "iOS", "Android", "API"]
START = datetime(2025, 1, 6, 9, 0, tzinfo=UTC)
OFFSET = timedelta(hours=1)


def stamp(moment: datetime) -> str:
    """A Jira time: local (+0100) with milliseconds and a colon-less offset."""
    local = moment + OFFSET
    return local.strftime("%Y-%m-%dT%H:%M:%S.") + f"{local.microsecond // 1000:03d}+0100"


def status(name: str) -> dict[str, Any]:
    ident, category = STATUSES[name]
    return {"self": f"{SITE}/status/{ident}", "description": "", "name": name, "id": ident} | {
        "statusCategory": category
    }


def people(rng: random.Random, count: int) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    names: set[str] = set()
    while len(found) < count:
        first, last = rng.choice(FIRST), rng.choice(LAST)
        if f"{first} {last}" in names:
            continue
        names.add(f"{first} {last}")
        account = "712020:" + "-".join(
            "".join(rng.choice("0123456789abcdef") for _ in range(n)) for n in (8, 4, 4, 4, 12)
        )
        user: dict[str, Any] = {"self": f"{SITE}/user?accountId={account}", "accountId": account}
        user |= {"avatarUrls": {"48x48": f"https://avatar-management.atl-paas.net/{account}/48"}}
        user |= {"displayName": f"{first} {last}", "active": True}
        user |= {"timeZone": rng.choice(["Europe/Berlin", "Europe/London", "America/New_York"])}
        if rng.random() < 0.6:  # Cloud shows an email only where the user's profile allows.
            user["emailAddress"] = f"{first.lower()}.{last.lower()}@acme.io"
        user["accountType"] = "atlassian"
        found.append(user)
    return found


def sprints(project: str, board: int, first_id: int) -> list[dict[str, Any]]:
    """A board's two-week sprints through the year: closed, one active, then future ones."""
    found = []
    for n in range(26):
        begin = START + timedelta(days=14 * n)
        state = "closed" if n < 22 else "active" if n == 22 else "future"
        sprint: dict[str, Any] = {"id": first_id + n, "name": f"{project} Sprint {n + 1}"}
        sprint |= {"state": state, "boardId": board, "goal": ""}
        if state != "future":
            sprint |= {"startDate": begin.strftime("%Y-%m-%dT%H:%M:%S.000Z")}
            sprint |= {"endDate": (begin + timedelta(days=14)).strftime("%Y-%m-%dT%H:%M:%S.000Z")}
        if state == "closed":
            sprint["completeDate"] = (begin + timedelta(days=14, hours=2)).strftime(
                "%Y-%m-%dT%H:%M:%S.000Z"
            )
        found.append(sprint)
    return found


def adf(text: str) -> dict[str, Any]:
    paragraph = {"type": "paragraph", "content": [{"type": "text", "text": text}]}
    return {"type": "doc", "version": 1, "content": [paragraph]}


def short(user: dict[str, Any]) -> dict[str, Any]:
    """A user as a changelog's author: no email, no time zone."""
    return {k: user[k] for k in ("self", "accountId", "displayName", "active", "accountType")}


def history(
    ident: int, author: dict[str, Any], when: datetime, items: list[dict[str, Any]]
) -> dict[str, Any]:
    return {"id": str(ident), "author": short(author), "created": stamp(when), "items": items}


def change(field: str, old: str | None, new: str | None, ids: tuple[Any, Any]) -> dict[str, Any]:
    return {"field": field, "fieldtype": "jira" if field != "Sprint" else "custom"} | {
        "fieldId": {"Sprint": SPRINT}.get(field, field.lower()),
        "from": ids[0],
        "fromString": old,
        "to": ids[1],
        "toString": new,
    }


class IssueMaker:
    """Makes issues one at a time: an epic now and then, else a story, bug or task of a
    project's epic, planned into the sprint of its creation (carried over when unfinished)."""

    def __init__(self, rng: random.Random, users: list[dict[str, Any]], issues: list[Any]):
        self.rng, self.users, self.issues = rng, users, issues
        self.boards = {
            key: sprints(key, 1 + n, 100 + 40 * n) for n, (_, key, _) in enumerate(PROJECTS)
        }
        self.epics: dict[str, list[str]] = {key: [] for _, key, _ in PROJECTS}
        self.numbers = {key: 0 for _, key, _ in PROJECTS}
        self.histories = 40_000

    def add(self) -> None:
        rng = self.rng
        project = rng.choice(PROJECTS)
        epics = self.epics[project[1]]
        kind = (
            "Epic"
            if not epics or rng.random() < 0.08
            else rng.choice(["Story"] * 3 + ["Bug", "Task"])
        )
        created = START + timedelta(days=rng.randint(0, 320), minutes=rng.randint(0, 600))
        created += timedelta(milliseconds=rng.randint(0, 59_999))
        self.numbers[project[1]] += 1
        key = f"{project[1]}-{self.numbers[project[1]]}"
        fields = self._fields(project, kind, created)
        if kind == "Epic":
            epics.append(key)
            fields[EPIC_NAME] = fields["summary"].split(":")[0]
        else:
            fields[EPIC_LINK] = rng.choice(epics) if rng.random() < 0.85 else None
        histories = self._plan(project[1], kind, created, fields)
        ident = str(10_000 + len(self.issues))
        issue = {"expand": "operations,versionedRepresentations,editmeta,changelog,renderedFields"}
        issue |= {"id": ident, "self": f"{SITE}/issue/{ident}", "key": key}
        total = len(histories)
        changelog = {"startAt": 0, "maxResults": total, "total": total, "histories": histories}
        self.issues.append(issue | {"changelog": changelog, "fields": fields})

    def _fields(
        self, project: tuple[str, str, str], kind: str, created: datetime
    ) -> dict[str, Any]:
        rng = self.rng
        words = " ".join(rng.choice(WORDS) for _ in range(3))
        summary = {
            "Epic": f"{words.title()}: {rng.choice(COMPONENTS)} overhaul",
            "Bug": f"{rng.choice(COMPONENTS)} fails when {words} is empty",
            "Story": f"As a user I can manage {words}",
            "Task": f"Upgrade {words} dependencies",
        }[kind]
        priority = rng.choice(PRIORITIES)
        region = rng.choice(REGIONS) if kind == "Bug" else None
        fields = {
            "summary": summary,
            "issuetype": {"self": f"{SITE}/issuetype/{TYPES[kind]}", "id": TYPES[kind]}
            | {"name": kind, "subtask": False, "hierarchyLevel": 1 if kind == "Epic" else 0},
            "project": {"self": f"{SITE}/project/{project[0]}", "id": project[0], "key": project[1]}
            | {"name": project[2], "projectTypeKey": "software"},
            "priority": {
                "self": f"{SITE}/priority/{priority[0]}",
                "name": priority[1],
                "id": priority[0],
            },
            "reporter": rng.choice(self.users),
            "assignee": None,
            "created": stamp(created),
            "labels": sorted(set(rng.sample(LABELS, rng.choice([0, 1, 1, 2])))),
            "components": [
                {"self": f"{SITE}/component/{10_020 + n}", "id": str(10_020 + n), "name": name}
                for n, name in enumerate(COMPONENTS)
                if rng.random() < 0.18
            ],
            "description": adf(f"{summary}. Steps: {words}; see the {rng.choice(WORDS)} runbook."),
            POINTS: None
            if kind == "Epic"
            else rng.choice([1.0, 2.0, 3.0, 3.0, 5.0, 5.0, 8.0, 13.0]),
            SPRINT: None,
            FLAGGED: [
                {"self": f"{SITE}/customFieldOption/10019", "value": "Impediment", "id": "10019"}
            ]
            if rng.random() < 0.06
            else None,
            REGION: None
            if region is None
            else {
                "self": f"{SITE}/customFieldOption/{region[0]}",
                "value": region[1],
                "id": region[0],
            },
        }
        return fields

    def _plan(
        self, project: str, kind: str, created: datetime, fields: dict[str, Any]
    ) -> list[Any]:
        """The issue's sprints, assignee and status walk; its changelog, oldest first."""
        rng = self.rng
        board = self.boards[project]
        first = min(int((created - START).days // 14) + 1, len(board) - 1)
        planned = [board[first]] if kind != "Epic" else []
        if planned and planned[0]["state"] == "closed" and rng.random() < 0.2:
            planned.append(board[first + 1])
        fields[SPRINT] = planned or None
        last = planned[-1]["state"] if planned else rng.choice(["closed", "active"])
        target = {"closed": "Done", "active": rng.choice(FLOW), "future": "To Do"}[last]
        if target == "Done" and rng.random() < 0.05:
            target = "In Review"
        steps = FLOW[: FLOW.index(target) + 1]
        histories, when, assignee = [], created, rng.choice(self.users)
        for n, (old, new) in enumerate(itertools.pairwise(steps)):
            when += timedelta(hours=rng.randint(2, 90), seconds=rng.randint(0, 3599))
            when += timedelta(milliseconds=rng.randint(0, 999))
            items = [change("status", old, new, (STATUSES[old][0], STATUSES[new][0]))]
            if n == 0:
                fields["assignee"] = assignee
                items.append(
                    change("assignee", None, assignee["displayName"], (None, assignee["accountId"]))
                )
            self.histories += rng.randint(1, 30)
            histories.append(history(self.histories, assignee, when, items))
        if len(planned) == 2:
            moved = change(
                "Sprint",
                planned[0]["name"],
                planned[1]["name"],
                (str(planned[0]["id"]), str(planned[1]["id"])),
            )
            self.histories += 1
            histories.append(
                history(self.histories, fields["reporter"], when + timedelta(minutes=5), [moved])
            )
            histories.sort(key=lambda h: h["created"])
        fields["status"] = status(target)
        fields["updated"] = stamp(when)
        done = target == "Done"
        fields["resolution"] = (
            {"self": f"{SITE}/resolution/10000", "id": "10000", "name": "Done"} if done else None
        )
        fields["resolutiondate"] = stamp(when) if done else None
        return histories


def site(rng: random.Random, target_bytes: int) -> State:
    """The search answer of about ``target_bytes``: every issue of three projects."""
    state: State = {"expand": "names,schema", "startAt": 0, "maxResults": 0, "total": 0}
    state |= {"issues": [], "names": NAMES, "schema": SCHEMA}
    maker = IssueMaker(rng, people(rng, 36), state["issues"])
    fill(maker.add, lambda: size_of(state), target_bytes)
    state["maxResults"] = state["total"] = len(state["issues"])
    return state
