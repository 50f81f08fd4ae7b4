"""The ``graphql`` shape's calls: issue searches in GitHub's qualifiers narrowed until few
match, lookups by number and by global id, joins from a pull request to the issues it closes and
from a milestone's number to its issues, counts, and the mutations with their read-backs."""

from __future__ import annotations

import random
from typing import Any

from benchmarks.zoo import graphql_api as api
from benchmarks.zoo.graphql_repo import COMMENTS, LABELS, MILESTONES, NAME, OWNER
from benchmarks.zoo.kit import WORDS, Planned, State

THIS = {"owner": OWNER, "repo": NAME}
SEARCH_AT_MOST = 20


def _pick(rng: random.Random, state: State, collection: str) -> dict[str, Any]:
    found: dict[str, Any] = rng.choice(state["data"]["repository"][collection]["edges"])["node"]
    return found


def lookup(rng: random.Random, state: State) -> Planned:
    if rng.random() < 0.6:
        number = _pick(rng, state, "issues")["number"]
        return Planned("lookup", "get_issue", THIS | {"number": number})
    collection = rng.choice(["issues", "pullRequests"])
    return Planned("lookup", "node", {"id": _pick(rng, state, collection)["id"]})


def nested_lookup(rng: random.Random, state: State) -> Planned:
    """An issue's first comments, or one comment by its global id."""
    edges = state["data"]["repository"]["issues"]["edges"]
    issue = rng.choice([e["node"] for e in edges if e["node"]["comments"]["edges"]])
    if rng.random() < 0.5:
        args = THIS | {"number": issue["number"], "first": rng.choice([1, 2, 5, 10])}
        return Planned("nested_lookup", "issue_comments", args)
    comment = rng.choice(issue["comments"]["edges"])["node"]
    return Planned("nested_lookup", "node", {"id": comment["id"]})


def _terms(rng: random.Random, node: dict[str, Any]) -> list[str]:
    """Search qualifiers that ``node`` meets."""
    terms = [f"is:{'open' if node['state'] == 'OPEN' else 'closed'}"]
    terms.append(f"author:{node['author']['login']}")
    for label in node["labels"]["nodes"][:1]:
        name = label["name"]
        terms.append(f'label:"{name}"' if " " in name else f"label:{name}")
    terms += [f"assignee:{a['login']}" for a in node.get("assignees", {}).get("nodes", [])[:1]]
    terms += [f"milestone:{node['milestone']['title']}"] if node.get("milestone") else []
    bound = ">=" if rng.random() < 0.5 else "<="
    terms.append(f"created:{bound}{node['createdAt'][:10]}")
    words = [w for w in node["title"].split() if len(w) > 4] or node["title"].split()[:1]
    terms.append(rng.choice(words))
    return terms


def search(rng: random.Random, state: State) -> Planned:
    """Issues or pull requests of 1 to 4 qualifiers, narrowed while more than 20 match."""
    node = _pick(rng, state, rng.choice(["issues", "issues", "pullRequests"]))
    head = [f"repo:{OWNER}/{NAME}", "is:issue" if node["__typename"] == "Issue" else "is:pr"]
    pool = _terms(rng, node)
    rng.shuffle(pool)
    chosen: list[str] = []
    for term in pool:
        chosen.append(term)
        query = " ".join([*head, *chosen, "sort:created-desc"])
        if len(chosen) >= rng.randint(1, 4) and len(api.search(state, query)) <= SEARCH_AT_MOST:
            break
    return Planned("search", "search_issues", {"query": query, "first": SEARCH_AT_MOST})


def join(rng: random.Random, state: State) -> Planned:
    """A pull request with the issues it closes, or a milestone's issues by its number."""
    if rng.random() < 0.6:
        pulls = [e["node"] for e in state["data"]["repository"]["pullRequests"]["edges"]]
        closing = [p for p in pulls if p["closingIssuesReferences"]["nodes"]] or pulls
        args = THIS | {"number": rng.choice(closing)["number"]}
        return Planned("join", "get_pull_request", args)
    number = rng.randint(1, len(MILESTONES))
    states = rng.choice([["OPEN"], ["CLOSED"], ["OPEN", "CLOSED"]])
    return Planned("join", "milestone_issues", THIS | {"number": number, "states": states})


def aggregate(rng: random.Random, state: State) -> Planned:
    if rng.random() < 0.4:
        return Planned("aggregate", "repository_labels", dict(THIS))
    states = rng.choice([["OPEN"], ["CLOSED"], ["OPEN", "CLOSED"]])
    args: dict[str, Any] = THIS | {"states": states}
    if rng.random() < 0.7:
        args["labels"] = rng.sample([n for n, _, _ in LABELS[:9]], rng.randint(1, 2))
    return Planned("aggregate", "count_issues", args)


def write(rng: random.Random, state: State) -> tuple[Planned, Planned]:
    """An issue closed, a label added or a comment posted; each read back."""
    pick = rng.random()
    issues = [e["node"] for e in state["data"]["repository"]["issues"]["edges"]]
    open_ones = [i for i in issues if i["state"] == "OPEN"]
    if pick < 0.3 and open_ones:
        issue = rng.choice(open_ones)
        args = {"issueId": issue["id"], "stateReason": rng.choice(["COMPLETED", "NOT_PLANNED"])}
        reread = Planned("read_after_write", "get_issue", THIS | {"number": issue["number"]})
        return Planned("write", "close_issue", args), reread
    issue = rng.choice(issues)
    if pick < 0.6:
        held = {n["name"] for n in issue["labels"]["nodes"]}
        labels = state["data"]["repository"]["labels"]["nodes"]
        free = [lb["id"] for lb in labels if lb["name"] not in held]
        args = {"labelableId": issue["id"], "labelIds": rng.sample(free, 1)}
        reread = Planned("read_after_write", "node", {"id": issue["id"]})
        return Planned("write", "add_labels_to_labelable", args), reread
    body = rng.choice(COMMENTS).format(w=rng.choice(WORDS))
    shown = THIS | {"number": issue["number"], "first": len(issue["comments"]["edges"]) + 1}
    reread = Planned("read_after_write", "issue_comments", shown)
    return Planned("write", "add_comment", {"subjectId": issue["id"], "body": body}), reread


def no_match(rng: random.Random, state: State) -> Planned:
    term = rng.choice(["created:>=2027-01-01", "author:ghost", "label:wontfix", "kubernetes"])
    query = f"repo:{OWNER}/{NAME} is:issue {term} sort:created-desc"
    return Planned("empty", "search_issues", {"query": query, "first": SEARCH_AT_MOST})
