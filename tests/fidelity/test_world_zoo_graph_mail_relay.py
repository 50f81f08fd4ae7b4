"""The held-out shapes written on 2026-11-27 by someone not tuning the retrieval hold what the
systems they copy hold: a Wikibase JSON dump (``wikidata``), a Gmail API mailbox (``gmail``)
and a GitHub GraphQL answer (``graphql``); their answers are computed as those services
compute them, and their writes change the state as those services would. (That each shape
loads, is deterministic, makes every kind of call and answers from its state is checked with
all the zoo's shapes.)"""

from __future__ import annotations

import base64
import json
from collections import Counter
from typing import Any

import pytest

from benchmarks.zoo.gmail_mailbox import decoded, encoded, header, label_key
from benchmarks.zoo.gmail_query import text_of
from benchmarks.zoo.kit import State, ToolError
from benchmarks.zoo.wikidata_entities import PROPERTIES
from benchmarks.zoo.wikidata_plans import query
from tests.fidelity.zoo_calls import run_tool, small_state

KINDS = {
    "wikibase-item": "wikibase-entityid",
    "time": "time",
    "quantity": "quantity",
    "url": "string",
    "external-id": "string",
}


def _items(state: State) -> list[dict[str, Any]]:
    return [e for e in state["entities"] if e["type"] == "item"]


def _targets(entity: dict[str, Any], prop_id: str) -> list[str]:
    """The items ``entity``'s statements of ``prop_id`` name."""
    return [s["mainsnak"]["datavalue"]["value"]["id"] for s in entity["claims"].get(prop_id, [])]


def _values(answer: dict[str, Any], name: str) -> list[str]:
    return [row[name]["value"] for row in answer["results"]["bindings"] if name in row]


def test_wikibase_statements_sit_under_their_property_with_values_typed_by_its_datatype() -> None:
    state = small_state("wikidata")
    properties = [e for e in state["entities"] if e["type"] == "property"]
    assert {p["id"]: p["datatype"] for p in properties} == {k: v[1] for k, v in PROPERTIES.items()}
    for item in _items(state):
        for prop_id, statements in item["claims"].items():
            for made in statements:
                assert made["id"].startswith(item["id"] + "$")
                snak = made["mainsnak"]
                assert snak["property"] == prop_id
                assert snak["datavalue"]["type"] == KINDS[PROPERTIES[prop_id][1]]
                for name, held in made.get("qualifiers", {}).items():
                    assert name in made["qualifiers-order"]
                    assert all(q["property"] == name for q in held)
    # A property's name is written only in its own entity.
    assert all("employer" not in json.dumps(i["claims"]) for i in _items(state))


def test_sparql_reads_truthy_statements_and_writes_times_and_items_as_the_service_does() -> None:
    state = small_state("wikidata")
    city = next(e for e in _items(state) if "P1082" in e["claims"])
    ranks = {s["rank"]: s for s in city["claims"]["P1082"]}
    assert set(ranks) == {"normal", "preferred"}
    body = [f"wd:{city['id']} wdt:P1082 ?population ."]
    answer = run_tool("wikidata", state, "sparql_query", {"query": query("?population", body)})
    preferred = ranks["preferred"]["mainsnak"]["datavalue"]["value"]["amount"]
    assert _values(answer, "population") == [preferred.removeprefix("+")]
    person = next(e for e in _items(state) if "P108" in e["claims"])
    # A birth known to the year only is written as the year's first day.
    person["claims"]["P569"][0]["mainsnak"]["datavalue"]["value"] |= {
        "time": "+1950-00-00T00:00:00Z",
        "precision": 9,
    }
    born = person["claims"]["P569"][0]["mainsnak"]["datavalue"]["value"]["time"]
    text = query(
        "?born ?employerLabel",
        [f"wd:{person['id']} wdt:P569 ?born .", f"wd:{person['id']} wdt:P108 ?employer ."],
    )
    answer = run_tool("wikidata", state, "sparql_query", {"query": text})
    assert set(_values(answer, "born")) == {f"{born[1:5]}-01-01T00:00:00Z"}  # a year: Jan 1st
    labels = {e["id"]: e["labels"]["en"]["value"] for e in _items(state)}
    employers = _targets(person, "P108")
    assert sorted(_values(answer, "employerLabel")) == sorted(labels[e] for e in employers)


def test_an_occupation_count_groups_every_citizen_once_per_occupation() -> None:
    state = small_state("wikidata")
    person = next(e for e in _items(state) if "P27" in e["claims"])
    country = {"id": _targets(person, "P27")[0]}
    body = [f"?item wdt:P27 wd:{country['id']} .", "?item wdt:P106 ?occupation ."]
    text = query("?occupation (COUNT(?item) AS ?count)", body, ("GROUP BY ?occupation",))
    answer = run_tool("wikidata", state, "sparql_query", {"query": text})
    citizens = [e for e in _items(state) if country["id"] in _targets(e, "P27")]
    assert sum(int(v) for v in _values(answer, "count")) == sum(
        len(c["claims"]["P106"]) for c in citizens
    )
    with pytest.raises(ToolError, match="MalformedQuery"):
        run_tool("wikidata", state, "sparql_query", {"query": "ASK { ?x ?y ?z }"})


def test_a_claim_and_a_qualifier_added_are_read_back_through_both_apis() -> None:
    state = small_state("wikidata")
    person = next(e for e in _items(state) if "P108" in e["claims"])
    before = person["lastrevid"]
    value = json.dumps({"entity-type": "item", "numeric-id": 169470})
    args = {"entity": person["id"], "property": "P106", "snaktype": "value", "value": value}
    made = run_tool("wikidata", state, "wbcreateclaim", args)
    assert made["pageinfo"]["lastrevid"] == before + 1
    read = run_tool("wikidata", state, "wbgetclaims", {"entity": person["id"], "property": "P106"})
    assert read["claims"]["P106"][-1] == made["claim"]
    assert made["claim"]["mainsnak"]["datavalue"]["value"]["id"] == "Q169470"
    claim = person["claims"]["P108"][0]["id"]
    end: dict[str, Any] = {"time": "+2025-11-30T00:00:00Z", "timezone": 0, "before": 0}
    end |= {"after": 0, "precision": 11}
    args = {"claim": claim, "property": "P582", "snaktype": "value", "value": json.dumps(end)}
    with pytest.raises(ToolError, match="invalid-snak"):
        run_tool("wikidata", state, "wbsetqualifier", args)  # a time needs its calendar model
    end["calendarmodel"] = "http://www.wikidata.org/entity/Q1985727"
    args["value"] = json.dumps(end)
    run_tool("wikidata", state, "wbsetqualifier", args)
    rest = run_tool(
        "wikidata", state, "get_item_statements", {"item_id": person["id"], "property": "P108"}
    )
    statement = next(s for s in rest["P108"] if s["id"] == claim)
    assert statement["value"] == {
        "type": "value",
        "content": person["claims"]["P108"][0]["mainsnak"]["datavalue"]["value"]["id"],
    }
    assert statement["qualifiers"][-1]["property"] == {"id": "P582", "data_type": "time"}
    assert statement["qualifiers"][-1]["value"]["content"]["time"] == end["time"]


def test_gmail_messages_keep_headers_as_pairs_bodies_as_base64url_and_labels_by_id() -> None:
    state = small_state("gmail")
    known = {label["id"] for label in state["labels"]}
    first_of: dict[str, str] = {}
    for message in state["messages"]:
        assert set(message["labelIds"]) <= known
        assert all(set(h) == {"name", "value"} for h in message["payload"]["headers"])
        assert message["internalDate"].isdigit() and len(message["internalDate"]) == 13
        text = text_of(message)
        assert encoded(text) in json.dumps(message) and decoded(encoded(text)) == text
        assert message["snippet"][:20].replace("&#39;", "'") in " ".join(text.split())
        first_of.setdefault(message["threadId"], message["id"])
    assert all(thread == first for thread, first in first_of.items())
    assert any("&#39;" in m["snippet"] for m in state["messages"])  # HTML-escaped, as Gmail does
    assert any(m["payload"]["mimeType"] == "multipart/mixed" for m in state["messages"])


def test_a_search_by_label_name_finds_the_messages_holding_its_id() -> None:
    state = small_state("gmail")
    label = next(
        lb
        for lb in state["labels"]
        if lb["name"].startswith("Clients/")
        and any(lb["id"] in m["labelIds"] for m in state["messages"])
    )
    found = run_tool("gmail", state, "messages_list", {"q": f"label:{label_key(label['name'])}"})
    held = [m["id"] for m in state["messages"] if label["id"] in m["labelIds"]]
    assert sorted(m["id"] for m in found["messages"]) == sorted(held)
    assert found["resultSizeEstimate"] == len(held)
    counts = run_tool("gmail", state, "labels_get", {"id": label["id"]})
    assert counts["messagesTotal"] == len(held)
    assert run_tool("gmail", state, "messages_list", {"q": "subject:zzzz"}) == {
        "resultSizeEstimate": 0
    }


def test_a_reply_sent_as_raw_text_joins_its_thread_from_the_account() -> None:
    state = small_state("gmail")
    parent = next(m for m in state["messages"] if "INBOX" in m["labelIds"])
    raw = f"To: {header(parent, 'From')}\r\nSubject: Re: hello\r\n\r\nSee you Monday."
    args = {"raw": base64.urlsafe_b64encode(raw.encode()).decode(), "threadId": parent["threadId"]}
    sent = run_tool("gmail", state, "messages_send", args)
    assert sent["labelIds"] == ["SENT"] and sent["threadId"] == parent["threadId"]
    thread = run_tool("gmail", state, "threads_get", {"id": parent["threadId"], "format": "full"})
    made = thread["messages"][-1]
    assert made["id"] == sent["id"] and text_of(made) == "See you Monday."
    assert header(made, "from") == "Lena Novak <lena@novak-studio.example>"
    with pytest.raises(ToolError):
        run_tool("gmail", state, "messages_send", args | {"raw": "%%%"})


def _connections(item: Any) -> list[dict[str, Any]]:
    found = []
    if isinstance(item, dict):
        if "totalCount" in item and ("edges" in item or "nodes" in item):
            found.append(item)
        for value in item.values():
            found += _connections(value)
    elif isinstance(item, list):
        for value in item:
            found += _connections(value)
    return found


def test_graphql_ids_cursors_and_connections_are_written_as_github_writes_them() -> None:
    state = small_state("graphql")
    repository = state["data"]["repository"]
    for connection in _connections(repository):
        listed = connection["edges"] if "edges" in connection else connection["nodes"]
        assert connection["totalCount"] == len(listed)
    for edge in repository["issues"]["edges"]:
        prefix = base64.b64decode(edge["node"]["id"]).decode()
        assert prefix.startswith("05:Issue") and prefix[8:].isdigit()
        assert base64.b64decode(edge["cursor"]).startswith(b"cursor:v2:")
    typenames = Counter(
        n["__typename"]
        for e in repository["issues"]["edges"]
        for n in e["node"]["timelineItems"]["nodes"]
    )
    assert {"LabeledEvent", "ClosedEvent"} <= set(typenames)


def test_a_pull_request_shows_the_issues_it_closes_by_their_titles() -> None:
    state = small_state("graphql")
    pull = next(
        e["node"]
        for e in state["data"]["repository"]["pullRequests"]["edges"]
        if e["node"]["closingIssuesReferences"]["nodes"]
    )
    args = {"owner": "northwind-labs", "repo": "ledgerline", "number": pull["number"]}
    answer = run_tool("graphql", state, "get_pull_request", args)["data"]["repository"][
        "pullRequest"
    ]
    issues = {
        e["node"]["number"]: e["node"] for e in state["data"]["repository"]["issues"]["edges"]
    }
    for shown in answer["closingIssuesReferences"]["nodes"]:
        assert shown["title"] == issues[shown["number"]]["title"]
    with pytest.raises(ToolError, match="Could not resolve to an Issue"):
        run_tool("graphql", state, "get_issue", args)


def test_a_closed_issue_leaves_the_open_search_and_a_comment_joins_its_page() -> None:
    state = small_state("graphql")
    where = {"owner": "northwind-labs", "repo": "ledgerline"}
    issue = next(
        e["node"]
        for e in state["data"]["repository"]["issues"]["edges"]
        if e["node"]["state"] == "OPEN"
    )
    search = {
        "query": f"repo:northwind-labs/ledgerline is:issue is:open author:{issue['author']['login']} sort:created-desc"
    }
    before = run_tool("graphql", state, "search_issues", search)["data"]["search"]
    run_tool(
        "graphql", state, "close_issue", {"issueId": issue["id"], "stateReason": "NOT_PLANNED"}
    )
    after = run_tool("graphql", state, "search_issues", search)["data"]["search"]
    assert after["issueCount"] == before["issueCount"] - 1
    shown = run_tool("graphql", state, "get_issue", where | {"number": issue["number"]})
    assert shown["data"]["repository"]["issue"]["stateReason"] == "NOT_PLANNED"
    count = issue["comments"]["totalCount"]
    run_tool(
        "graphql",
        state,
        "add_comment",
        {"subjectId": issue["id"], "body": "Closing: out of scope."},
    )
    page = run_tool(
        "graphql", state, "issue_comments", where | {"number": issue["number"], "first": 100}
    )
    comments = page["data"]["repository"]["issue"]["comments"]
    assert (
        comments["totalCount"] == count + 1
        and comments["edges"][-1]["node"]["body"] == "Closing: out of scope."
    )
    with pytest.raises(ToolError, match="already closed"):
        run_tool("graphql", state, "close_issue", {"issueId": issue["id"]})
