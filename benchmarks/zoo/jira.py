"""``jira``: three Scrum projects of a Jira Cloud site, as the REST search API answers them with
``expand=names,schema,changelog``: issues whose own fields sit under opaque keys
(``customfield_10016`` is the story point estimate, ``customfield_10020`` the sprints,
``customfield_10014`` the epic) named only in a separate top-level ``names`` map; people as
embedded user objects; select fields as ``{"value", "id"}`` options; times with a ``+0100``
offset; and every change an issue went through in ``changelog.histories[].items[]``. Tools take
an issue key, a sprint name, a person's display name and status names; a search answers as
``/rest/api/3/search`` does with a few fields; the epics a person works on is a join through
their issues' epic links to the epics; a sprint report sums story points no field holds;
a transition changes the status, the resolution and appends a changelog history."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from typing import Any

from benchmarks.zoo.jira_issues import (
    EPIC_LINK,
    FLOW,
    LABELS,
    POINTS,
    PROJECTS,
    SITE,
    SPRINT,
    change,
    history,
    site,
    stamp,
    status,
)
from benchmarks.zoo.kit import (
    Answer,
    Filter,
    Planned,
    Search,
    State,
    Tool,
    ToolError,
    note_tool,
    pointer,
    prop,
)
from benchmarks.zoo.shape import Shape

EXPORTED = datetime(2025, 12, 1, 8, 0, tzinfo=UTC)
"""When the search was run: a transition made now is stamped a minute per change later."""
RESOLVED = {"self": f"{SITE}/resolution/10000", "id": "10000", "name": "Done"}


def _issues(state: State) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = state["issues"]
    return found


def _view(issue: dict[str, Any]) -> dict[str, Any]:
    """An issue's fields as the search's arguments read them."""
    fields: dict[str, Any] = issue["fields"]
    assignee = fields["assignee"]
    return fields | {
        "project_key": fields["project"]["key"],
        "status_name": fields["status"]["name"],
        "assignee_name": None if assignee is None else assignee["displayName"],
        "sprints": [s["name"] for s in fields[SPRINT] or []],
        "created_day": fields["created"][:10],
        "type_name": fields["issuetype"]["name"],
    }


def _records(state: State) -> list[tuple[str, dict[str, Any]]]:
    return [(i["key"], _view(i) | {"issue": i}) for i in _issues(state)]


def _brief(key: str, view: dict[str, Any]) -> dict[str, Any]:
    """An issue as a search with ``fields=summary,status,assignee,customfield_10016`` answers."""
    issue = view["issue"]
    assignee = view["assignee"]
    fields = {"summary": view["summary"], "status": {"name": view["status_name"]}}
    fields |= {"assignee": None if assignee is None else {"displayName": assignee["displayName"]}}
    fields |= {POINTS: view[POINTS]}
    return {"id": issue["id"], "key": key, "fields": fields}


class Jira(Shape):
    name = "jira"
    title = "Scrum assistant over a Jira Cloud site"
    description = (
        "Three Scrum projects (PAY, SRCH, MOB) of a Jira Cloud site as its REST search answers "
        "them, with field names, schema and changelogs: stories, bugs and tasks planned in "
        "two-week sprints under epics. Errors are text starting with 'Error:'."
    )
    note = ("add_worklog_note", "note")

    def __init__(self) -> None:
        self.finder = Search(
            "search_issues",
            "Issues by project, type, status, assignee (display name), sprint name, label, "
            "story points range and creation day range (YYYY-MM-DD).",
            _records,
            [
                Filter(
                    "project",
                    "project_key",
                    "eq",
                    prop("string", "", enum=[p[1] for p in PROJECTS]),
                ),
                Filter(
                    "issue_type", "type_name", "eq", prop("string", "Story, Bug, Task or Epic.")
                ),
                Filter("status", "status_name", "eq", prop("string", "", enum=FLOW)),
                Filter("assignee", "assignee_name", "eq", prop("string", "Display name.")),
                Filter(
                    "sprint", "sprints", "has", prop("string", "Sprint name, e.g. PAY Sprint 3.")
                ),
                Filter("label", "labels", "has", prop("string", "", enum=LABELS)),
                Filter("min_points", POINTS, "ge", prop("number", "Least story points.")),
                Filter("max_points", POINTS, "le", prop("number", "Most story points.")),
                Filter("created_after", "created_day", "ge", prop("string", "YYYY-MM-DD.")),
                Filter("created_before", "created_day", "le", prop("string", "YYYY-MM-DD.")),
            ],
            _brief,
            limit=20,
        )

    def build(self, rng: random.Random, target_bytes: int) -> State:
        return site(rng, target_bytes)

    def tools(self) -> list[Tool]:
        key = {"issue_key": prop("string", "Issue key, e.g. PAY-42.")}
        return [
            Tool(
                "get_issue", "An issue's fields (no changelog).", key, self._issue, ("issue_key",)
            ),
            Tool(
                "get_changelog",
                "An issue's change history, oldest first (GET /issue/{key}/changelog).",
                key,
                self._changelog,
                ("issue_key",),
            ),
            Tool(
                "search_issues", self.finder.description, self.finder.tool().properties, self._find
            ),
            Tool(
                "assignee_epics",
                "The epics a person's assigned issues belong to, with those issues' keys.",
                {"assignee": prop("string", "Display name, e.g. Ana Berg.")},
                self._epics,
                ("assignee",),
            ),
            Tool(
                "sprint_report",
                "A sprint's issues: count, story points committed and completed, issues per "
                "status and the assignees.",
                {"sprint": prop("string", "Sprint name, e.g. PAY Sprint 3.")},
                self._report,
                ("sprint",),
            ),
            Tool(
                "transition_issue",
                "Move an issue to a status (Done resolves it; leaving Done reopens it).",
                key | {"status": prop("string", "Target status.", enum=FLOW)},
                self._transition,
                ("issue_key", "status"),
                effect="write",
            ),
            note_tool("add_worklog_note", "note", "Write a private note (answers nothing)."),
        ]

    def _at(self, state: State, key: str) -> tuple[int, dict[str, Any]]:
        for n, issue in enumerate(_issues(state)):
            if issue["key"] == key.upper():
                return n, issue
        raise ToolError(f"Issue does not exist or you do not have permission to see it: {key}")

    def _issue(self, state: State, args: dict[str, Any]) -> Answer:
        issue = self._at(state, args["issue_key"])[1]
        return {k: issue[k] for k in ("id", "self", "key", "fields")}, []

    def _changelog(self, state: State, args: dict[str, Any]) -> Answer:
        histories = self._at(state, args["issue_key"])[1]["changelog"]["histories"]
        total = len(histories)
        return {"startAt": 0, "maxResults": total, "total": total, "isLast": True} | {
            "values": histories
        }, []

    def _find(self, state: State, args: dict[str, Any]) -> Answer:
        found = self.finder.matches(state, args)
        page = {"startAt": 0, "maxResults": self.finder.limit, "total": len(found)}
        return page | {"issues": found[: self.finder.limit]}, []

    def _epics(self, state: State, args: dict[str, Any]) -> Answer:
        name = args["assignee"]
        by_key = {i["key"]: i for i in _issues(state)}
        mine = [i for i in _issues(state) if _view(i)["assignee_name"] == name]
        if not mine:
            raise ToolError(f"No issues assigned to '{name}'")
        epics: dict[str, list[str]] = {}
        for issue in mine:
            epic = issue["fields"].get(EPIC_LINK)
            if epic:
                epics.setdefault(epic, []).append(issue["key"])
        shown = []
        for epic, keys in sorted(epics.items()):
            fields = by_key[epic]["fields"]
            shown.append(
                {"key": epic, "summary": fields["summary"], "status": fields["status"]["name"]}
                | {"issues": keys}
            )
        return {"assignee": name, "issues": len(mine), "epics": shown}, []

    def _report(self, state: State, args: dict[str, Any]) -> Answer:
        sprint = args["sprint"]
        issues = [_view(i) for i in _issues(state) if sprint in _view(i)["sprints"]]
        if not issues:
            raise ToolError(f"Sprint '{sprint}' has no issues or does not exist")
        per_status = {name: sum(i["status_name"] == name for i in issues) for name in FLOW}
        return {
            "sprint": sprint,
            "issues": len(issues),
            "committed_points": sum(i[POINTS] or 0 for i in issues),
            "completed_points": sum(i[POINTS] or 0 for i in issues if i["status_name"] == "Done"),
            "by_status": {k: v for k, v in per_status.items() if v},
            "assignees": sorted({i["assignee_name"] for i in issues if i["assignee_name"]}),
        }, []

    def _transition(self, state: State, args: dict[str, Any]) -> Answer:
        n, issue = self._at(state, args["issue_key"])
        fields, target = issue["fields"], args["status"]
        old = fields["status"]["name"]
        if target == old:
            raise ToolError(f"Issue {issue['key']} is already in status '{old}'")
        histories = issue["changelog"]["histories"]
        count = len(histories) + 1
        moment = EXPORTED + timedelta(minutes=count)
        when = stamp(moment)
        ident = 90_000 + 37 * n + count
        items = [change("status", old, target, (status(old)["id"], status(target)["id"]))]
        actor = fields["assignee"] or fields["reporter"]
        here = ("issues", n, "fields")
        done = target == "Done"
        patch: list[dict[str, Any]] = [
            {"op": "replace", "path": pointer(*here, "status"), "value": status(target)},
            {"op": "replace", "path": pointer(*here, "updated"), "value": when},
            {
                "op": "replace",
                "path": pointer(*here, "resolution"),
                "value": RESOLVED if done else None,
            },
            {
                "op": "replace",
                "path": pointer(*here, "resolutiondate"),
                "value": when if done else None,
            },
            {
                "op": "add",
                "path": pointer("issues", n, "changelog", "histories", "-"),
                "value": history(ident, actor, moment, items),
            },
            {"op": "replace", "path": pointer("issues", n, "changelog", "total"), "value": count},
            {
                "op": "replace",
                "path": pointer("issues", n, "changelog", "maxResults"),
                "value": count,
            },
        ]
        return {"key": issue["key"], "from": old, "to": target, "updated": when}, patch

    def lookup(self, rng: random.Random, state: State) -> Planned:
        return Planned("lookup", "get_issue", {"issue_key": rng.choice(_issues(state))["key"]})

    def nested_lookup(self, rng: random.Random, state: State) -> Planned:
        moved = [i for i in _issues(state) if i["changelog"]["histories"]]
        return Planned("nested_lookup", "get_changelog", {"issue_key": rng.choice(moved)["key"]})

    def search(self, rng: random.Random, state: State) -> Planned:
        return Planned("search", "search_issues", self.finder.plan(rng, state))

    def join(self, rng: random.Random, state: State) -> Planned:
        assigned = [i for i in _issues(state) if i["fields"]["assignee"]]
        name = rng.choice(assigned)["fields"]["assignee"]["displayName"]
        return Planned("join", "assignee_epics", {"assignee": name})

    def aggregate(self, rng: random.Random, state: State) -> Planned:
        planned = [i for i in _issues(state) if i["fields"][SPRINT]]
        sprint = rng.choice(rng.choice(planned)["fields"][SPRINT])["name"]
        return Planned("aggregate", "sprint_report", {"sprint": sprint})

    def write(self, rng: random.Random, state: State) -> tuple[Planned, Planned]:
        issue = rng.choice(_issues(state))
        now = issue["fields"]["status"]["name"]
        later = FLOW[FLOW.index(now) + 1 :] or ["In Progress"]
        args = {"issue_key": issue["key"], "status": rng.choice(later)}
        return Planned("write", "transition_issue", args), Planned(
            "read_after_write", "get_issue", {"issue_key": issue["key"]}
        )

    def no_match(self, rng: random.Random, state: State) -> Planned:
        args = {"project": rng.choice(PROJECTS)[1], "min_points": 40}
        return Planned("empty", "search_issues", args)
