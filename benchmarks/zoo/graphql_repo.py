"""A GitHub GraphQL API answer (the ``graphql`` shape's state): one repository as a large
query returned it, under ``data.repository``. Every list is a Relay connection
(``totalCount``, and ``nodes`` or ``edges`` of ``{"cursor", "node"}`` with ``pageInfo``), every
object says its ``__typename``, and objects are known by legacy global node ids: base64 of
``05:Issue`` and the database id (``MDU6SXNzdWUxMjM0NQ==``), the database id held nowhere
else. People are bare ``{"login"}`` objects (a ``Bot`` or a ``User``); issues and pull requests
share one sequence of numbers; an issue names its milestone by title, a pull request the issues
it closes by number; timelines mix event types told apart by ``__typename``."""

from __future__ import annotations

import base64
import random
import struct
from datetime import UTC, datetime, timedelta
from typing import Any

from benchmarks.zoo.kit import FIRST, LAST, WORDS, State, fill, size_of

OWNER, NAME = "northwind-labs", "ledgerline"
VIEWER = "octo-helper"
"""The account the assistant acts as."""
LABELS = [
    ("bug", "d73a4a", "Something isn't working"),
    ("enhancement", "a2eeef", "New feature or request"),
    ("documentation", "0075ca", "Improvements or additions to documentation"),
    ("good first issue", "7057ff", "Good for newcomers"),
    ("performance", "fbca04", "Slow paths and memory use"),
    ("area/ledger", "c5def5", "Ledger core"),
    ("area/api", "c5def5", "Public HTTP API"),
    ("area/cli", "c5def5", "Command-line client"),
    ("needs-triage", "ededed", "Not looked at yet"),
    ("dependencies", "0366d6", "Pull requests that update a dependency file"),
]
MILESTONES = [("v2.3", "CLOSED", "2025-03-31"), ("v2.4", "CLOSED", "2025-06-30")]
MILESTONES += [("v2.5", "OPEN", "2025-09-30"), ("v3.0", "OPEN", "2026-01-31")]
START = datetime(2025, 1, 3, 9, 0, tzinfo=UTC)
ISSUE_TITLES = [
    "Balance drifts after {w} import",
    "Add {w} export to the CLI",
    "Docs: explain {w} reconciliation",
    "Timeout when listing {w} accounts",
    "Crash on empty {w} journal",
    "Support {w} currencies in reports",
]
COMMENTS = [
    "I can reproduce this on main with the {w} fixture.",
    "Could you share the exact command and the version you ran?",
    "This looks like a duplicate of an older report, but the stack trace differs.",
    "Fixed by the linked pull request, please reopen if you still see it.",
    "We'd welcome a PR for this. The {w} module is the place to start.",
]


def node_id(typename: str, database_id: int) -> str:
    """GitHub's legacy global id: base64 of the type's name length, name and database id."""
    return base64.b64encode(f"{len(typename):02d}:{typename}{database_id}".encode()).decode()


def cursor(database_id: int) -> str:
    """A connection cursor as GitHub writes it: ``cursor:v2:`` and a packed id."""
    return base64.b64encode(b"cursor:v2:\x91\xce" + struct.pack(">I", database_id)).decode()


def stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def person(login: str) -> dict[str, Any]:
    typename = "Bot" if login in ("dependabot", "github-actions") else "User"
    return {"__typename": typename, "login": login}


def connection(items: list[dict[str, Any]], ids: list[int]) -> dict[str, Any]:
    end = cursor(ids[-1]) if ids else None
    page = {"hasNextPage": False, "hasPreviousPage": False, "endCursor": end}
    edges = [{"cursor": cursor(i), "node": item} for i, item in zip(ids, items, strict=True)]
    return {"totalCount": len(items), "pageInfo": page, "edges": edges}


def names(items: list[str]) -> dict[str, Any]:
    return {"totalCount": len(items), "nodes": [{"name": n} for n in items]}


class Repository:
    """Writes issues and pull requests into the repository, one at a time, each later than
    the one before, with comments, reviews and timeline events."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.logins = sorted({f"{rng.choice(FIRST)}-{rng.choice(LAST)}".lower() for _ in range(30)})
        self.maintainers = self.logins[:6]
        self.next_db = 2_740_000_000
        self.clock = START
        self.number = 0
        labels = [
            {"__typename": "Label", "id": node_id("Label", 6_100_000_000 + n), "name": name}
            | {"color": color, "description": description}
            for n, (name, color, description) in enumerate(LABELS)
        ]
        milestones = [
            {"__typename": "Milestone", "id": node_id("Milestone", 11_200_000 + n)}
            | {"number": n + 1, "title": title, "state": state, "dueOn": f"{due}T07:00:00Z"}
            for n, (title, state, due) in enumerate(MILESTONES)
        ]
        repository: dict[str, Any] = {
            "__typename": "Repository",
            "id": node_id("Repository", 781_223_904),
        }
        repository |= {"nameWithOwner": f"{OWNER}/{NAME}", "name": NAME}
        repository["owner"] = {"__typename": "Organization", "login": OWNER}
        repository["labels"] = {"totalCount": len(labels), "nodes": labels}
        repository["milestones"] = {"totalCount": len(milestones), "nodes": milestones}
        repository["issues"] = connection([], [])
        repository["pullRequests"] = connection([], [])
        self.repository = repository
        self.state: State = {"data": {"repository": repository}}

    def _db(self) -> int:
        self.next_db += self.rng.randint(1_000, 90_000)
        return self.next_db

    def _comments(self, opened: datetime, count: int, kind: str = "IssueComment") -> dict[str, Any]:
        rng, items, ids = self.rng, [], []
        when = opened
        for _ in range(count):
            when += timedelta(minutes=rng.randint(10, 4000))
            db = self._db()
            login = rng.choice(self.logins)
            association = "MEMBER" if login in self.maintainers else "CONTRIBUTOR"
            items.append(
                {"__typename": kind, "id": node_id(kind, db), "author": person(login)}
                | {"body": rng.choice(COMMENTS).format(w=rng.choice(WORDS))}
                | {"createdAt": stamp(when), "authorAssociation": association}
            )
            ids.append(db)
        return connection(items, ids)

    def add(self) -> None:
        """An issue, or (a third of the time) a pull request closing earlier issues."""
        rng = self.rng
        self.clock += timedelta(minutes=rng.randint(10, 240))
        self.number += 1
        if rng.random() < 0.33 and self.number > 5:
            self._pull_request()
        else:
            self._issue()

    def _issue(self) -> None:
        rng, opened, db = self.rng, self.clock, self._db()
        word = rng.choice(WORDS)
        author = rng.choice(self.logins)
        labels = rng.sample([n for n, _, _ in LABELS[:9]], rng.choice([0, 1, 1, 2, 3]))
        assignees = rng.sample(self.maintainers, rng.choice([0, 1, 1, 2]))
        closed = rng.random() < 0.55
        comments = self._comments(opened, rng.choice([0, 1, 2, 3, 5]))
        timeline: list[dict[str, Any]] = [
            {"__typename": "LabeledEvent", "createdAt": stamp(opened)}
            | {"actor": person(rng.choice(self.maintainers)), "label": {"name": label}}
            for label in labels
        ]
        timeline += [
            {"__typename": "AssignedEvent", "createdAt": stamp(opened + timedelta(hours=1))}
            | {"actor": person(self.maintainers[0]), "assignee": person(login)}
            for login in assignees
        ]
        ended = opened + timedelta(days=rng.randint(1, 40))
        reason = rng.choice(["COMPLETED", "COMPLETED", "NOT_PLANNED"]) if closed else None
        if closed:
            timeline.append(
                {"__typename": "ClosedEvent", "createdAt": stamp(ended)}
                | {"actor": person(rng.choice(self.maintainers)), "closer": None}
            )
        milestone = rng.choice([None, None, *MILESTONES])
        issue = {"__typename": "Issue", "id": node_id("Issue", db), "number": self.number}
        issue |= {
            "title": rng.choice(ISSUE_TITLES).format(w=word),
            "state": "CLOSED" if closed else "OPEN",
        }
        issue |= {
            "stateReason": reason,
            "createdAt": stamp(opened),
            "closedAt": stamp(ended) if closed else None,
        }
        issue |= {
            "author": person(author),
            "body": f"Steps: run `ledgerline {word}` on a fresh journal.",
        }
        issue |= {
            "assignees": {"totalCount": len(assignees), "nodes": [person(a) for a in assignees]}
        }
        issue |= {
            "labels": names(labels),
            "milestone": None if milestone is None else {"title": milestone[0]},
        }
        issue |= {
            "reactions": {"totalCount": rng.choice([0, 0, 1, 2, 5, 12])},
            "comments": comments,
        }
        issue["timelineItems"] = {"totalCount": len(timeline), "nodes": timeline}
        self._append("issues", issue, db)

    def _pull_request(self) -> None:
        rng, opened, db = self.rng, self.clock, self._db()
        issues = [e["node"] for e in self.repository["issues"]["edges"][-40:]]
        closes = rng.sample(issues, min(len(issues), rng.choice([0, 1, 1, 2])))
        bot = rng.random() < 0.15
        word = rng.choice(WORDS)
        state = rng.choice(["MERGED", "MERGED", "OPEN", "CLOSED"])
        ended = opened + timedelta(hours=rng.randint(2, 300))
        author = "dependabot" if bot else rng.choice(self.logins)
        title = (
            f"Bump {word}-client from 1.{rng.randint(0, 9)} to 2.0"
            if bot
            else f"Fix {word} handling in the ledger"
        )
        reviews = [
            {"__typename": "PullRequestReview", "id": node_id("PullRequestReview", self._db())}
            | {
                "author": person(rng.choice(self.maintainers)),
                "state": rng.choice(["APPROVED", "COMMENTED", "CHANGES_REQUESTED"]),
            }
            | {"submittedAt": stamp(opened + timedelta(hours=rng.randint(1, 48)))}
            for _ in range(rng.choice([0, 1, 2]))
        ]
        pull = {
            "__typename": "PullRequest",
            "id": node_id("PullRequest", db),
            "number": self.number,
        }
        pull |= {"title": title, "state": state, "isDraft": state == "OPEN" and rng.random() < 0.3}
        pull |= {
            "createdAt": stamp(opened),
            "mergedAt": stamp(ended) if state == "MERGED" else None,
        }
        pull |= {
            "author": person(author),
            "baseRefName": "main",
            "headRefName": f"fix/{word}-{self.number}",
        }
        pull |= {
            "additions": rng.randint(1, 900),
            "deletions": rng.randint(0, 400),
            "changedFiles": rng.randint(1, 30),
        }
        pull |= {"mergedBy": person(rng.choice(self.maintainers)) if state == "MERGED" else None}
        pull |= {
            "labels": names(
                ["dependencies"] if bot else rng.sample(["bug", "performance", "area/ledger"], 1)
            )
        }
        pull["closingIssuesReferences"] = {
            "totalCount": len(closes),
            "nodes": [{"number": i["number"]} for i in closes],
        }
        pull["reviews"] = {"totalCount": len(reviews), "nodes": reviews}
        pull["comments"] = self._comments(opened, rng.choice([0, 1, 2]))
        self._append("pullRequests", pull, db)

    def _append(self, collection: str, item: dict[str, Any], db: int) -> None:
        held = self.repository[collection]
        held["edges"].append({"cursor": cursor(db), "node": item})
        held["totalCount"] += 1
        held["pageInfo"]["endCursor"] = cursor(db)


def repository(rng: random.Random, target_bytes: int) -> State:
    made = Repository(rng)
    fill(made.add, lambda: size_of(made.state), target_bytes)
    return made.state
