"""The GitHub GraphQL API's answers over the ``graphql`` shape's repository: lookups by number
or by global node id, GitHub's issue search syntax, and the mutations' changes as JSON
patches. Answers are wrapped as GraphQL answers are (``{"data": {...}}``)."""

from __future__ import annotations

import base64
import shlex
from collections.abc import Iterator
from typing import Any

from benchmarks.zoo.graphql_repo import NAME, OWNER, VIEWER, cursor, node_id, person
from benchmarks.zoo.kit import State, ToolError, pointer

Found = tuple[str, int, dict[str, Any]]
"""An issue or pull request: its connection (``issues``/``pullRequests``), its place, it."""
NOW = "2025-12-01T09:00:00Z"


def repo(state: State, args: dict[str, Any]) -> dict[str, Any]:
    """The repository, if the call names it (``owner``, ``repo``)."""
    if (args.get("owner"), args.get("repo")) != (OWNER, NAME):
        name = f"{args.get('owner')}/{args.get('repo')}"
        raise ToolError(f"Could not resolve to a Repository with the name '{name}'.")
    found: dict[str, Any] = state["data"]["repository"]
    return found


def items(state: State) -> Iterator[Found]:
    for collection in ("issues", "pullRequests"):
        for n, edge in enumerate(state["data"]["repository"][collection]["edges"]):
            yield collection, n, edge["node"]


def by_number(state: State, number: int, collection: str) -> Found:
    for found in items(state):
        if found[2]["number"] == number:
            if found[0] != collection:
                kind = "an Issue" if collection == "issues" else "a PullRequest"
                raise ToolError(f"Could not resolve to {kind} with the number of {number}.")
            return found
    kind = "an Issue" if collection == "issues" else "a PullRequest"
    raise ToolError(f"Could not resolve to {kind} with the number of {number}.")


def by_id(state: State, ident: str) -> tuple[list[Any], dict[str, Any]]:
    """The node of a global id, anywhere in the repository, and the path to it."""
    stack: list[tuple[list[Any], Any]] = [([], state["data"]["repository"])]
    while stack:
        path, item = stack.pop()
        if isinstance(item, dict):
            if item.get("id") == ident:
                return path, item
            stack.extend(([*path, k], v) for k, v in item.items())
        elif isinstance(item, list):
            stack.extend(([*path, n], v) for n, v in enumerate(item))
    raise ToolError(f"Could not resolve to a node with the global id of '{ident}'")


def _date_test(actual: str, wanted: str) -> bool:
    for op in (">=", "<=", ">", "<"):
        if wanted.startswith(op):
            day = wanted[len(op) :]
            return {">=": actual >= day, "<=": actual[:10] <= day, ">": actual[:10] > day}.get(
                op, actual < day
            )
    return actual.startswith(wanted)


def _meets(node: dict[str, Any], term: str) -> bool:
    qualifier, _, wanted = term.partition(":") if ":" in term else ("", "", term)
    labels = [n["name"] for n in node["labels"]["nodes"]]
    if qualifier == "is":
        kinds = {"issue": "Issue", "pr": "PullRequest"}
        if wanted in kinds:
            return bool(node["__typename"] == kinds[wanted])
        return bool(
            node["state"].lower() == wanted or (wanted == "closed" and node["state"] == "MERGED")
        )
    if qualifier == "label":
        return wanted in labels
    if qualifier == "author":
        return bool(node["author"]["login"] == wanted)
    if qualifier == "assignee":
        return wanted in [a["login"] for a in node.get("assignees", {}).get("nodes", [])]
    if qualifier == "milestone":
        return (node.get("milestone") or {}).get("title") == wanted
    if qualifier == "created":
        return _date_test(node["createdAt"], wanted)
    if qualifier in ("repo", "sort", "in"):
        return True
    if qualifier:
        raise ToolError(f"Invalid search qualifier {qualifier!r}")
    return wanted.lower() in node["title"].lower()


def search(state: State, query: str) -> list[dict[str, Any]]:
    """The issues and pull requests meeting every term of a query, newest first (the query
    must say ``sort:created-desc``, the order this search gives)."""
    terms = shlex.split(query)
    if f"repo:{OWNER}/{NAME}" not in terms or "sort:created-desc" not in terms:
        raise ToolError("Search needs repo:northwind-labs/ledgerline and sort:created-desc")
    found = [node for _, _, node in items(state) if all(_meets(node, t) for t in terms)]
    return sorted(found, key=lambda node: node["createdAt"], reverse=True)


def summary(node: dict[str, Any]) -> dict[str, Any]:
    """A search result as the query selects it."""
    shown = {k: node[k] for k in ("__typename", "number", "title", "state", "createdAt")}
    return shown | {"author": {"login": node["author"]["login"]}, "labels": node["labels"]}


def _database_id(ident: str) -> int:
    """The database id a legacy global id holds (``05:Issue2740835214`` → 2740835214)."""
    text = base64.b64decode(ident).decode()
    return int("".join(c for c in text.split(":", 1)[1] if c.isdigit()))


def _subject(state: State, ident: str) -> tuple[str, dict[str, Any]]:
    path, node = by_id(state, ident)
    if node.get("__typename") not in ("Issue", "PullRequest"):
        raise ToolError(f"Could not resolve to an Issue or PullRequest with the id of '{ident}'")
    return pointer("data", "repository", *path), node


def add_comment(state: State, ident: str, body: str) -> tuple[dict[str, Any], list[Any]]:
    at, node = _subject(state, ident)
    held = [e["node"]["id"] for _, _, i in items(state) for e in i["comments"]["edges"]]
    database = max((_database_id(h) for h in held), default=3_000_000_000) + 7
    made: dict[str, Any] = {"__typename": "IssueComment", "id": node_id("IssueComment", database)}
    made |= {"author": person(VIEWER), "body": body, "createdAt": NOW}
    made["authorAssociation"] = "MEMBER"
    edge = {"cursor": cursor(database), "node": made}
    comments = node["comments"]
    patch = [
        {"op": "add", "path": at + "/comments/edges/-", "value": edge},
        {"op": "replace", "path": at + "/comments/totalCount", "value": comments["totalCount"] + 1},
        {"op": "replace", "path": at + "/comments/pageInfo/endCursor", "value": cursor(database)},
    ]
    return {"data": {"addComment": {"commentEdge": edge, "subject": {"id": ident}}}}, patch


def _event(node: dict[str, Any], at: str, event: dict[str, Any]) -> list[dict[str, Any]]:
    timeline = node["timelineItems"]
    return [
        {"op": "add", "path": at + "/timelineItems/nodes/-", "value": event},
        {
            "op": "replace",
            "path": at + "/timelineItems/totalCount",
            "value": timeline["totalCount"] + 1,
        },
    ]


def close_issue(state: State, ident: str, reason: str) -> tuple[dict[str, Any], list[Any]]:
    at, node = _subject(state, ident)
    if node["__typename"] != "Issue":
        raise ToolError(f"Could not resolve to an Issue with the id of '{ident}'")
    if node["state"] == "CLOSED":
        raise ToolError("Issue is already closed")
    patch = [
        {"op": "replace", "path": at + "/state", "value": "CLOSED"},
        {"op": "replace", "path": at + "/stateReason", "value": reason},
        {"op": "replace", "path": at + "/closedAt", "value": NOW},
    ]
    event = {"__typename": "ClosedEvent", "createdAt": NOW, "actor": person(VIEWER), "closer": None}
    shown = {"id": ident, "number": node["number"], "state": "CLOSED", "stateReason": reason}
    return {"data": {"closeIssue": {"issue": shown | {"closedAt": NOW}}}}, patch + _event(
        node, at, event
    )


def add_labels(state: State, ident: str, label_ids: list[str]) -> tuple[dict[str, Any], list[Any]]:
    at, node = _subject(state, ident)
    known = {lb["id"]: lb["name"] for lb in state["data"]["repository"]["labels"]["nodes"]}
    if any(i not in known for i in label_ids):
        raise ToolError("Could not resolve to a Label with one of the ids given")
    held = [n["name"] for n in node["labels"]["nodes"]]
    added = [known[i] for i in label_ids if known[i] not in held]
    patch: list[Any] = [
        {"op": "add", "path": at + "/labels/nodes/-", "value": {"name": name}} for name in added
    ]
    if added:
        count = len(held) + len(added)
        patch.append({"op": "replace", "path": at + "/labels/totalCount", "value": count})
    events = node["timelineItems"]["totalCount"]
    for name in added:
        event = {"__typename": "LabeledEvent", "createdAt": NOW, "actor": person(VIEWER)}
        patch.append(
            {
                "op": "add",
                "path": at + "/timelineItems/nodes/-",
                "value": event | {"label": {"name": name}},
            }
        )
        events += 1
        patch.append({"op": "replace", "path": at + "/timelineItems/totalCount", "value": events})
    labels = {"totalCount": len(held) + len(added), "nodes": [{"name": n} for n in held + added]}
    shown = {"__typename": node["__typename"], "id": ident, "labels": labels}
    return {"data": {"addLabelsToLabelable": {"labelable": shown}}}, patch
