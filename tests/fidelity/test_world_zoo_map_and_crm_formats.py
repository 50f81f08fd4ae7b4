"""The map and CRM zoo shapes hold what the services they copy serve: a town's OpenStreetMap data
as API 0.6's ``map.json`` (``osm``), a Notion workspace through its API (``notion``) and a
HubSpot CRM through its v3 and v4 APIs (``hubspot``); their computed answers are checked here
against independent computations over the state, and their writes against what the services
would change. (That each shape loads, is deterministic, makes every kind of call and answers
from its state is checked with all the zoo's shapes.)"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import pytest

from benchmarks.zoo import generate
from benchmarks.zoo.hubspot_crm import PAIRS, millis, objects, stages
from benchmarks.zoo.kit import State, ToolError
from benchmarks.zoo.notion_pages import database, in_database, pages, plain
from benchmarks.zoo.osm_map import elements
from tests.fidelity.zoo_calls import run_tool, small_state

HEADER = "[out:json][timeout:25];\n"


@pytest.mark.parametrize("shape", ["osm", "notion", "hubspot"])
def test_the_same_seed_makes_the_same_map_or_crm_world(shape: str) -> None:
    first = generate(shape, 0.05, seed=11, episodes=2)
    assert generate(shape, 0.05, seed=11, episodes=2) == first
    assert generate(shape, 0.05, seed=12, episodes=2)[0]["state"] != first[0]["state"]


def _index(state: State) -> dict[tuple[str, int], dict[str, Any]]:
    return {(e["type"], e["id"]): e for e in elements(state)}


def test_an_osm_map_keeps_positions_in_nodes_and_references_by_type_and_id() -> None:
    state = small_state("osm")
    found = elements(state)
    order = ["node", "way", "relation"]
    assert [(order.index(e["type"]), e["id"]) for e in found] == sorted(
        (order.index(e["type"]), e["id"]) for e in found
    )
    index = _index(state)
    for element in found:
        assert {"version", "changeset", "timestamp", "user", "uid"} <= set(element)
        assert all(isinstance(v, str) for v in element.get("tags", {}).values())
        assert element.get("tags", True) != {}  # no tags: no "tags" key at all
        if element["type"] == "way":
            assert "lat" not in element
            assert all(("node", n) in index for n in element["nodes"])
            if "building" in element["tags"]:
                assert element["nodes"][0] == element["nodes"][-1]
        if element["type"] == "relation":
            assert all((m["type"], m["ref"]) in index for m in element["members"])
    turns = [e for e in found if e.get("tags", {}).get("type") == "restriction"]
    roles = {tuple(m["role"] for m in t["members"]) for t in turns}
    assert roles <= {("from", "via", "to")}
    # Street vertices carry no tags; some node is shared by two streets.
    uses = Counter(n for e in found if e["type"] == "way" for n in set(e["nodes"]))
    assert any(c > 1 for c in uses.values())


def test_an_overpass_query_answers_exactly_the_elements_its_filters_select() -> None:
    state = small_state("osm")
    poi = next(e for e in elements(state) if e.get("tags", {}).get("amenity") == "parking")
    street, capacity = poi["tags"]["addr:street"], int(poi["tags"]["capacity"])
    data = f'nwr["amenity"="parking"]["addr:street"~"^{street[:3]}"](if: t["capacity"] >= '
    data += f"{capacity});\nout meta;"
    answer = run_tool("osm", state, "overpass", {"data": HEADER + data})
    expected = [
        e
        for e in elements(state)
        if e.get("tags", {}).get("amenity") == "parking"
        and e["tags"].get("addr:street", "").startswith(street[:3])
        and int(e["tags"]["capacity"]) >= capacity
    ]
    assert [(e["type"], e["id"]) for e in answer["elements"]] == [
        (e["type"], e["id"]) for e in expected
    ]
    assert poi["id"] in {e["id"] for e in answer["elements"]}
    assert all("version" in e and "tags" in e for e in answer["elements"])  # out meta
    box = (poi["lat"] - 0.01, poi["lon"] - 0.01, poi["lat"] + 0.01, poi["lon"] + 0.01)
    data = 'node["amenity"]({:.4f},{:.4f},{:.4f},{:.4f});\nout tags;'.format(*box)
    inside = run_tool("osm", state, "overpass", {"data": HEADER + data})["elements"]
    assert {e["id"] for e in inside} == {
        e["id"]
        for e in elements(state)
        if e["type"] == "node"
        and "amenity" in e.get("tags", {})
        and box[0] <= e["lat"] <= box[2]
        and box[1] <= e["lon"] <= box[3]
    }
    assert all(set(e) == {"type", "id", "tags"} for e in inside)  # out tags
    # A way is in a box where one of its nodes is: no position of its own.
    data = 'way["highway"]({:.4f},{:.4f},{:.4f},{:.4f});\nout;'.format(*box)
    ways = run_tool("osm", state, "overpass", {"data": HEADER + data})["elements"]
    index = _index(state)
    assert ways and {e["id"] for e in ways} == {
        e["id"]
        for e in elements(state)
        if e["type"] == "way"
        and "highway" in e["tags"]
        and any(
            box[0] <= index[("node", n)]["lat"] <= box[2]
            and box[1] <= index[("node", n)]["lon"] <= box[3]
            for n in e["nodes"]
        )
    }


def test_overpass_stats_group_count_and_sum_as_an_independent_count_does() -> None:
    state = small_state("osm")
    tagged = [e for e in elements(state) if "tags" in e]
    data = 'nwr["amenity"="restaurant"];\nfor (t["cuisine"]) { make stat cuisine=_.val, '
    data += "count=count(nwr); out; }"
    groups = run_tool("osm", state, "overpass", {"data": HEADER + data})["elements"]
    counted = Counter(
        e["tags"].get("cuisine", "") for e in tagged if e["tags"].get("amenity") == "restaurant"
    )
    assert {g["tags"]["cuisine"]: int(g["tags"]["count"]) for g in groups} == counted
    assert [g["tags"]["cuisine"] for g in groups] == sorted(counted)
    parking = [e for e in tagged if e["tags"].get("amenity") == "parking"]
    data = 'nwr["amenity"="parking"];\nmake stat n=count(nwr), spaces=sum(t["capacity"]), '
    data += 'largest=max(t["capacity"]), kinds=set(t["fee"]); out;'
    (stat,) = run_tool("osm", state, "overpass", {"data": HEADER + data})["elements"]
    capacities = [int(e["tags"]["capacity"]) for e in parking]
    assert stat["tags"] == {
        "n": str(len(parking)),
        "spaces": str(sum(capacities)),
        "largest": str(max(capacities)),
        "kinds": ";".join(sorted({e["tags"]["fee"] for e in parking})),
    }
    data = 'way["highway"];\nout count;'
    (count,) = run_tool("osm", state, "overpass", {"data": HEADER + data})["elements"]
    streets = sum(1 for e in tagged if e["type"] == "way" and "highway" in e["tags"])
    assert count["tags"]["ways"] == count["tags"]["total"] == str(streets)


def test_relations_and_ways_of_an_element_are_found_through_their_references() -> None:
    state = small_state("osm")
    stop = next(e for e in elements(state) if e.get("tags", {}).get("highway") == "bus_stop")
    routes = run_tool("osm", state, "get_relations_of", {"type": "node", "id": stop["id"]})
    assert routes["elements"] and all(
        {"type": "node", "ref": stop["id"], "role": "platform"} in r["members"]
        for r in routes["elements"]
    )
    way = next(e for e in elements(state) if e["type"] == "way")
    full = run_tool("osm", state, "get_way_full", {"id": way["id"]})["elements"]
    assert full[-1] == way and [n["id"] for n in full[:-1]] == list(dict.fromkeys(way["nodes"]))
    ways = run_tool("osm", state, "get_ways_of_node", {"id": way["nodes"][0]})["elements"]
    assert way in ways and all(way["nodes"][0] in w["nodes"] for w in ways)


def test_an_edit_checks_the_version_read_and_bumps_it_in_a_new_changeset() -> None:
    state = small_state("osm")
    poi = next(e for e in elements(state) if "opening_hours" in e.get("tags", {}))
    version = poi["version"]
    args = {"type": poi["type"], "id": poi["id"], "version": version - 1}
    with pytest.raises(ToolError, match="Version mismatch"):
        run_tool("osm", state, "update_tags", args | {"tags": {"wheelchair": "yes"}})
    before = len(state["changesets"]["changesets"])
    tags = {"wheelchair": "yes", "opening_hours": None}
    answer = run_tool("osm", state, "update_tags", args | {"version": version, "tags": tags})
    edited = _index(state)[(poi["type"], poi["id"])]
    assert answer["new_version"] == edited["version"] == version + 1
    assert edited["tags"]["wheelchair"] == "yes" and "opening_hours" not in edited["tags"]
    changeset = state["changesets"]["changesets"][-1]
    assert len(state["changesets"]["changesets"]) == before + 1
    assert edited["changeset"] == changeset["id"] == answer["changeset"]
    assert edited["user"] == changeset["user"] == state["user"]["display_name"]
    new = run_tool(
        "osm", state, "create_node", {"lat": 50.71, "lon": -1.6, "tags": {"amenity": "bench"}}
    )
    kinds = [e["type"] for e in elements(state)]
    assert kinds == sorted(kinds, key=["node", "way", "relation"].index)
    assert _index(state)[("node", new["id"])]["tags"] == {"amenity": "bench"}


def test_notion_pages_hold_typed_values_under_their_databases_property_ids() -> None:
    state = small_state("notion")
    for title in ("Projects", "Tasks"):
        schema = database(state, title)["properties"]
        for page in in_database(state, title):
            assert set(page["properties"]) == set(schema)
            for name, value in page["properties"].items():
                assert (value["id"], value["type"]) == (schema[name]["id"], schema[name]["type"])
                assert value["type"] in value
    titles = [p["properties"]["Task"]["title"] for p in in_database(state, "Tasks")]
    assert any(len(runs) > 1 for runs in titles)  # split where the formatting changes
    assert all(plain(runs) == "".join(r["text"]["content"] for r in runs) for runs in titles)
    toggles = [
        b for listed in state["blocks"].values() for b in listed["results"] if b["has_children"]
    ]
    assert toggles
    for toggle in toggles:
        kids = state["blocks"][toggle["id"]]["results"]
        assert kids and all(
            k["parent"] == {"type": "block_id", "block_id": toggle["id"]} for k in kids
        )


def _estimates(state: State, project: dict[str, Any]) -> list[Any]:
    related = {r["id"] for r in project["properties"]["Tasks"]["relation"]}
    return [p["properties"]["Estimate"]["number"] for p in pages(state) if p["id"] in related]


def test_a_rollup_item_is_computed_over_the_related_tasks() -> None:
    state = small_state("notion")
    project = max(in_database(state, "Projects"), key=lambda p: len(_estimates(state, p)))
    total = sum(e for e in _estimates(state, project) if e is not None)
    assert project["properties"]["Estimate total"]["rollup"]["number"] == total
    ident = project["properties"]["Estimate total"]["id"]
    args = {"page_id": project["id"], "property_id": ident}
    answer = run_tool("notion", state, "retrieve_page_property", args)
    assert answer["property_item"]["rollup"] == {
        "type": "number",
        "number": total,
        "function": "sum",
    }
    assert [r["number"] for r in answer["results"]] == _estimates(state, project)
    task = next(
        p for p in pages(state) if p["id"] == project["properties"]["Tasks"]["relation"][0]["id"]
    )
    before = task["properties"]["Estimate"]["number"] or 0
    change = {"Estimate": {"number": before + 40}, "Done": {"checkbox": True}}
    run_tool("notion", state, "update_page", {"page_id": task["id"], "properties": change})
    assert project["properties"]["Estimate total"]["rollup"]["number"] == total + 40
    done = [
        t["properties"]["Done"]["checkbox"]
        for t in pages(state)
        if {"id": t["id"]} in project["properties"]["Tasks"]["relation"]
    ]
    assert project["properties"]["Progress"]["rollup"]["number"] == round(sum(done) / len(done), 4)
    assert task["last_edited_by"]["id"] == state["users"]["results"][-1]["id"]  # the bot


def test_a_database_query_answers_exactly_the_pages_meeting_a_typed_filter() -> None:
    state = small_state("notion")
    tasks = database(state, "Tasks")["id"]
    task = next(p for p in in_database(state, "Tasks") if p["properties"]["Estimate"]["number"])
    estimate = task["properties"]["Estimate"]["number"]
    where = {
        "and": [
            {"property": "Estimate", "number": {"greater_than_or_equal_to": estimate}},
            {"property": "Done", "checkbox": {"equals": task["properties"]["Done"]["checkbox"]}},
        ]
    }
    args = {
        "database_id": tasks,
        "filter": where,
        "sorts": [{"property": "Estimate", "direction": "descending"}],
    }
    answer = run_tool("notion", state, "query_database", args | {"page_size": 100})
    expected = [
        p
        for p in in_database(state, "Tasks")
        if (p["properties"]["Estimate"]["number"] or -1) >= estimate
        and p["properties"]["Done"]["checkbox"] == task["properties"]["Done"]["checkbox"]
    ]
    assert {p["id"] for p in answer["results"]} == {p["id"] for p in expected}
    numbers = [p["properties"]["Estimate"]["number"] for p in answer["results"]]
    assert numbers == sorted(numbers, reverse=True) and task in answer["results"]
    first = run_tool("notion", state, "query_database", args | {"page_size": 1})
    assert first["has_more"] == (len(expected) > 1) and len(first["results"]) == 1
    with pytest.raises(ToolError, match="validation_error"):
        bad = {"property": "Estimate", "checkbox": {"equals": True}}
        run_tool("notion", state, "query_database", {"database_id": tasks, "filter": bad})


def test_appended_blocks_join_the_page_tree_written_by_the_integration() -> None:
    state = small_state("notion")
    page = in_database(state, "Projects")[0]
    before = len(state["blocks"][page["id"]]["results"])
    child = {
        "type": "to_do",
        "to_do": {"rich_text": [{"type": "text", "text": {"content": "Ship it"}}]},
    }
    answer = run_tool(
        "notion", state, "append_block_children", {"block_id": page["id"], "children": [child]}
    )
    listed = state["blocks"][page["id"]]["results"]
    assert len(listed) == before + 1 and listed[-1] == answer["results"][0]
    assert plain(listed[-1]["to_do"]["rich_text"]) == "Ship it"
    assert listed[-1]["parent"] == {"type": "page_id", "page_id": page["id"]}


def test_hubspot_properties_are_strings_and_associations_live_apart() -> None:
    state = small_state("hubspot")
    for kind in ("companies", "contacts", "deals"):
        for record in objects(state, kind):
            assert (
                "associations" not in record
                and record["properties"]["hs_object_id"] == record["id"]
            )
            assert all(v is None or isinstance(v, str) for v in record["properties"].values())
    for deal in objects(state, "deals"):
        p = deal["properties"]
        assert p["dealstage"] in {s["id"] for s in stages(state, p["pipeline"])}
        assert re.fullmatch(r"\d+", p["amount"]) and ";" not in p["dealname"]
    assert any(";" in (d["properties"]["product_interest"] or "") for d in objects(state, "deals"))
    rows = state["associations"][PAIRS[("contacts", "companies")]]["results"]
    assert all(isinstance(t["toObjectId"], int) for r in rows for t in r["to"])
    assert {tuple(a["typeId"] for a in t["associationTypes"]) for r in rows for t in r["to"]} == {
        (1, 279)
    }


def test_a_search_answers_exactly_the_deals_meeting_its_string_and_epoch_filters() -> None:
    state = small_state("hubspot")
    deal = objects(state, "deals")[len(objects(state, "deals")) // 2]["properties"]
    low = millis(deal["closedate"]) - 40 * 86_400_000
    filters = [
        {"propertyName": "pipeline", "operator": "EQ", "value": deal["pipeline"]},
        {"propertyName": "amount", "operator": "GTE", "value": str(int(deal["amount"]) - 30_000)},
        {"propertyName": "closedate", "operator": "BETWEEN", "value": str(low)}
        | {"highValue": str(low + 80 * 86_400_000)},
    ]
    args = {"objectType": "deals", "filterGroups": [{"filters": filters}], "limit": 3}
    answer = run_tool("hubspot", state, "search", args)
    expected = [
        d["id"]
        for d in objects(state, "deals")
        if d["properties"]["pipeline"] == deal["pipeline"]
        and int(d["properties"]["amount"]) >= int(deal["amount"]) - 30_000
        and low <= millis(d["properties"]["closedate"]) <= low + 80 * 86_400_000
    ]
    assert answer["total"] == len(expected) and deal["hs_object_id"] in expected
    assert [r["id"] for r in answer["results"]] == expected[:3]
    assert ("paging" in answer) == (len(expected) > 3)
    assert set(answer["results"][0]["properties"]) == {
        "amount",
        "closedate",
        "createdate",
        "dealname",
        "dealstage",
        "hs_lastmodifieddate",
        "hs_object_id",
        "pipeline",
    }  # the default properties of a deal


def test_associations_read_back_in_both_directions_and_join_a_search() -> None:
    state = small_state("hubspot")
    row = state["associations"][PAIRS[("deals", "companies")]]["results"][0]
    company = str(row["to"][0]["toObjectId"])
    back = run_tool(
        "hubspot",
        state,
        "get_associations",
        {"fromObjectType": "companies", "objectId": company, "toObjectType": "deals"},
    )
    deals = sorted(
        int(r["from"]["id"])
        for r in state["associations"]["deal_to_company"]["results"]
        if any(t["toObjectId"] == int(company) for t in r["to"])
    )
    assert [a["toObjectId"] for a in back["results"]] == deals
    assert {a["associationTypes"][0]["typeId"] for a in back["results"]} == {6}
    args = {
        "objectType": "deals",
        "filterGroups": [
            {
                "filters": [
                    {"propertyName": "associations.company", "operator": "EQ", "value": company}
                ]
            }
        ],
    }
    found = run_tool("hubspot", state, "search", args | {"limit": 100})
    assert sorted(int(r["id"]) for r in found["results"]) == deals


def test_the_deals_board_counts_and_sums_each_stage() -> None:
    state = small_state("hubspot")
    board = run_tool("hubspot", state, "deal_stage_totals", {"pipelineId": "default"})
    for column in board["stages"]:
        inside = [
            d["properties"]
            for d in objects(state, "deals")
            if d["properties"]["pipeline"] == "default"
            and d["properties"]["dealstage"] == column["stageId"]
        ]
        assert column["count"] == len(inside)
        assert float(column["totalAmount"]) == sum(int(p["amount"]) for p in inside)
    assert [c["stageId"] for c in board["stages"]] == [s["id"] for s in stages(state, "default")]


def test_a_stage_change_sets_the_closed_flags_and_a_new_contact_links_its_company() -> None:
    state = small_state("hubspot")
    deal = next(d for d in objects(state, "deals") if d["properties"]["pipeline"] == "default")
    args = {"objectType": "deals", "objectId": deal["id"], "properties": {"dealstage": "closedwon"}}
    run_tool("hubspot", state, "update_object", args)
    assert deal["properties"]["hs_is_closed_won"] == deal["properties"]["hs_is_closed"] == "true"
    assert deal["updatedAt"] == deal["properties"]["hs_lastmodifieddate"]
    with pytest.raises(ToolError, match="VALIDATION_ERROR"):
        run_tool(
            "hubspot", state, "update_object", args | {"properties": {"dealstage": "51230873"}}
        )
    company = objects(state, "companies")[0]
    link = {
        "to": {"id": company["id"]},
        "types": [{"associationCategory": "HUBSPOT_DEFINED", "associationTypeId": 1}],
    }
    made = run_tool(
        "hubspot",
        state,
        "create_contact",
        {"properties": {"email": "New.Person@x.example"}, "associations": [link]},
    )
    assert objects(state, "contacts")[-1]["properties"]["email"] == "new.person@x.example"
    read = run_tool(
        "hubspot",
        state,
        "get_object",
        {"objectType": "contacts", "objectId": made["id"], "associations": ["companies"]},
    )
    assert read["associations"]["companies"]["results"] == [
        {"id": company["id"], "type": "contact_to_company"}
    ]
    with pytest.raises(ToolError, match="already exists"):
        run_tool(
            "hubspot", state, "create_contact", {"properties": {"email": "new.person@x.example"}}
        )
