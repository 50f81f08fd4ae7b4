"""``graphql``: an open-source repository's issues and pull requests as one GitHub GraphQL
answer holds them: Relay connections at every level (``edges``/``node``/``cursor``,
``pageInfo``, ``totalCount``), ``__typename`` on every object, legacy base64 global ids and
people as bare logins. Tools are GraphQL operations with their variables as arguments: an issue
or pull request by number, any object by global id (``node``), an issue's comments page, the
issue search (GitHub's qualifiers, ``created:>=``), a milestone's issues (held by title, asked
for by number), a pull request with the issues it closes (held by number, shown with their
titles), counts of issues and of each label's open issues, and the ``addComment``,
``closeIssue`` and ``addLabelsToLabelable`` mutations taking global ids."""

from __future__ import annotations

import random
from typing import Any

from benchmarks.zoo import graphql_api as api
from benchmarks.zoo import graphql_plans as plans
from benchmarks.zoo.graphql_repo import repository
from benchmarks.zoo.kit import Answer, Planned, State, Tool, ToolError, note_tool, prop
from benchmarks.zoo.shape import Shape

WHERE = {"owner": prop("string", "Repository owner."), "repo": prop("string", "Repository name.")}
IDENT = prop("string", "A global node id.")
STATES = prop("array", "OPEN and/or CLOSED.", items={"type": "string", "enum": ["OPEN", "CLOSED"]})


def _issue_view(node: dict[str, Any]) -> dict[str, Any]:
    return {"number": node["number"], "title": node["title"], "state": node["state"]}


class Graphql(Shape):
    name = "graphql"
    title = "Maintainer's assistant over a GitHub repository"
    description = (
        "The northwind-labs/ledgerline repository on GitHub: its issues, pull requests, "
        "labels and milestones, served through GitHub's GraphQL API. The assistant acts as "
        "octo-helper. Errors are text starting with 'Error:' and GraphQL's error message."
    )

    def build(self, rng: random.Random, target_bytes: int) -> State:
        return repository(rng, target_bytes)

    def tools(self) -> list[Tool]:
        return [*self._queries(), *self._aggregates(), *self._mutations()]

    def _queries(self) -> list[Tool]:
        number = {"number": prop("integer", "Issue or pull request number.")}
        first = {"first": prop("integer", "Page size, at most 100.")}
        states = {"states": STATES}
        where = ("owner", "repo", "number")
        return [
            Tool(
                "get_issue",
                "query { repository { issue(number) { … } } }",
                WHERE | number,
                self._issue,
                where,
            ),
            Tool(
                "get_pull_request",
                "query { repository { pullRequest(number) { …, reviews, "
                "closingIssuesReferences { nodes { number title state labels } } } } }",
                WHERE | number,
                self._pull,
                where,
            ),
            Tool(
                "node",
                "query { node(id) { … } }: any object by its global id.",
                {"id": IDENT},
                self._node,
                ("id",),
            ),
            Tool(
                "issue_comments",
                "query { repository { issue(number) { comments(first) { totalCount pageInfo "
                "edges { cursor node } } } } }",
                WHERE | number | first,
                self._comments,
                (*where, "first"),
            ),
            Tool(
                "search_issues",
                "query { search(query, type: ISSUE, first) { issueCount nodes { … on Issue, "
                "… on PullRequest } } } with GitHub's qualifiers: repo:, is:issue/pr/open/"
                "closed, label:, author:, assignee:, milestone:, created:>=YYYY-MM-DD, "
                "sort:created-desc.",
                {"query": prop("string", "Search query.")} | first,
                self._search,
                ("query",),
            ),
            Tool(
                "milestone_issues",
                "query { repository { milestone(number) { title state dueOn issues(states) "
                "{ totalCount nodes { number title state } } } } }",
                WHERE | number | states,
                self._milestone,
                where,
            ),
        ]

    def _aggregates(self) -> list[Tool]:
        labels = {"labels": prop("array", "Label names.", items={"type": "string"})}
        return [
            Tool(
                "count_issues",
                "query { repository { issues(states, labels) { totalCount } } }",
                WHERE | {"states": STATES} | labels,
                self._count,
                ("owner", "repo"),
            ),
            Tool(
                "repository_labels",
                "query { repository { labels(first: 100) { totalCount nodes { name color "
                "issues(states: OPEN) { totalCount } pullRequests(states: OPEN) "
                "{ totalCount } } } } }",
                WHERE,
                self._labels,
                ("owner", "repo"),
            ),
        ]

    def _mutations(self) -> list[Tool]:
        label_ids = prop("array", "Label global ids.", items={"type": "string"})
        return [
            Tool(
                "add_comment",
                "mutation { addComment(input: {subjectId, body}) { commentEdge { node } "
                "subject { id } } }",
                {"subjectId": IDENT, "body": prop("string", "Markdown.")},
                lambda s, a: api.add_comment(s, a["subjectId"], a["body"]),
                ("subjectId", "body"),
                effect="write",
            ),
            Tool(
                "close_issue",
                "mutation { closeIssue(input: {issueId, stateReason}) { issue { id number "
                "state stateReason closedAt } } }",
                {"issueId": IDENT, "stateReason": prop("string", "COMPLETED or NOT_PLANNED.")},
                lambda s, a: api.close_issue(s, a["issueId"], a.get("stateReason", "COMPLETED")),
                ("issueId",),
                effect="write",
            ),
            Tool(
                "add_labels_to_labelable",
                "mutation { addLabelsToLabelable(input: {labelableId, labelIds}) { labelable "
                "{ … labels { nodes { name } } } } }",
                {"labelableId": IDENT, "labelIds": label_ids},
                lambda s, a: api.add_labels(s, a["labelableId"], a["labelIds"]),
                ("labelableId", "labelIds"),
                effect="write",
            ),
            note_tool("think", "thought", "Think out loud (answers nothing)."),
        ]

    def _issue(self, state: State, args: dict[str, Any]) -> Answer:
        api.repo(state, args)
        node = api.by_number(state, args["number"], "issues")[2]
        return {"data": {"repository": {"issue": node}}}, []

    def _pull(self, state: State, args: dict[str, Any]) -> Answer:
        api.repo(state, args)
        pull = dict(api.by_number(state, args["number"], "pullRequests")[2])
        closes = pull["closingIssuesReferences"]
        shown = []
        for ref in closes["nodes"]:
            issue = api.by_number(state, ref["number"], "issues")[2]
            shown.append(_issue_view(issue) | {"labels": issue["labels"]})
        pull["closingIssuesReferences"] = {"totalCount": closes["totalCount"], "nodes": shown}
        return {"data": {"repository": {"pullRequest": pull}}}, []

    def _node(self, state: State, args: dict[str, Any]) -> Answer:
        return {"data": {"node": api.by_id(state, args["id"])[1]}}, []

    def _comments(self, state: State, args: dict[str, Any]) -> Answer:
        api.repo(state, args)
        comments = api.by_number(state, args["number"], "issues")[2]["comments"]
        edges = comments["edges"][: args["first"]]
        page: dict[str, Any] = {
            "hasNextPage": len(comments["edges"]) > len(edges),
            "hasPreviousPage": False,
        }
        page["endCursor"] = edges[-1]["cursor"] if edges else None
        shown = {"totalCount": comments["totalCount"], "pageInfo": page, "edges": edges}
        return {"data": {"repository": {"issue": {"comments": shown}}}}, []

    def _search(self, state: State, args: dict[str, Any]) -> Answer:
        found = api.search(state, args["query"])
        nodes = [api.summary(n) for n in found[: args.get("first", 20)]]
        return {"data": {"search": {"issueCount": len(found), "nodes": nodes}}}, []

    def _milestone(self, state: State, args: dict[str, Any]) -> Answer:
        held = api.repo(state, args)["milestones"]["nodes"]
        milestone = next((m for m in held if m["number"] == args["number"]), None)
        if milestone is None:
            raise ToolError(
                f"Could not resolve to a Milestone with the number of {args['number']}."
            )
        wanted = args.get("states", ["OPEN", "CLOSED"])
        issues = [
            node
            for collection, _, node in api.items(state)
            if collection == "issues"
            and (node.get("milestone") or {}).get("title") == milestone["title"]
            and node["state"] in wanted
        ]
        shown = {k: milestone[k] for k in ("number", "title", "state", "dueOn")}
        shown["issues"] = {"totalCount": len(issues), "nodes": [_issue_view(i) for i in issues]}
        return {"data": {"repository": {"milestone": shown}}}, []

    def _count(self, state: State, args: dict[str, Any]) -> Answer:
        api.repo(state, args)
        states, labels = args.get("states", ["OPEN", "CLOSED"]), args.get("labels")
        count = sum(
            1
            for collection, _, node in api.items(state)
            if collection == "issues"
            and node["state"] in states
            and (not labels or any(n["name"] in labels for n in node["labels"]["nodes"]))
        )
        return {"data": {"repository": {"issues": {"totalCount": count}}}}, []

    def _labels(self, state: State, args: dict[str, Any]) -> Answer:
        held = api.repo(state, args)["labels"]["nodes"]
        counts = {(lb["name"], c): 0 for lb in held for c in ("issues", "pullRequests")}
        for collection, _, node in api.items(state):
            if node["state"] == "OPEN":
                for label in node["labels"]["nodes"]:
                    counts[(label["name"], collection)] += 1
        nodes = [
            {"name": lb["name"], "color": lb["color"]}
            | {c: {"totalCount": counts[(lb["name"], c)]} for c in ("issues", "pullRequests")}
            for lb in held
        ]
        return {"data": {"repository": {"labels": {"totalCount": len(nodes), "nodes": nodes}}}}, []

    def lookup(self, rng: random.Random, state: State) -> Planned:
        return plans.lookup(rng, state)

    def nested_lookup(self, rng: random.Random, state: State) -> Planned:
        return plans.nested_lookup(rng, state)

    def search(self, rng: random.Random, state: State) -> Planned:
        return plans.search(rng, state)

    def join(self, rng: random.Random, state: State) -> Planned:
        return plans.join(rng, state)

    def aggregate(self, rng: random.Random, state: State) -> Planned:
        return plans.aggregate(rng, state)

    def write(self, rng: random.Random, state: State) -> tuple[Planned, Planned]:
        return plans.write(rng, state)

    def no_match(self, rng: random.Random, state: State) -> Planned:
        return plans.no_match(rng, state)
