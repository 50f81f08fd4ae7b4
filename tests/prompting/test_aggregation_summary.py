"""Summaries a request asks for beside its query, on small hand-made states: a search body's
``aggs`` (terms buckets with inner metrics, histograms, top-level metrics), a grouping with
aggregate items (``GROUP BY``, as a query text or as separate arguments) and facets, each
computed over the records the query selects (or the collection an argument names) and named
as the answer names it."""

from __future__ import annotations

import json
from typing import Any

from mcp_sim.prompting.aggregation_summary import aggregation_summary
from mcp_sim.prompting.bucket_requests import requested_aggregations
from mcp_sim.prompting.bucket_stats import aggregated, field_values
from mcp_sim.prompting.facet_counts import facet_counts, requested_facets
from mcp_sim.prompting.grounding import ground
from mcp_sim.prompting.grouped_rows import grouped_rows, requested_grouping
from mcp_sim.runtime.state_index import StateIndex
from mcp_sim.spec.world import World

CITIES = ["Jura", "Larne", "Jura", "Dunmore", "Jura", "Larne", "Kells"]


def _listings() -> list[dict[str, Any]]:
    return [
        {
            "_id": f"L{i}",
            "_index": "listings",
            "_source": {
                "address": {"city": city},
                "price": 1000 + 100 * i,
                "status": "active" if i % 2 == 0 else "sold",
                "listed_at": f"2025-0{1 + i % 3}-1{i}T10:00:00Z",
            },
        }
        for i, city in enumerate(CITIES)
    ]


def _world(state: dict[str, Any], name: str, description: str) -> World:
    spec = {"name": name, "description": description, "input_schema": {"type": "object"}}
    return World.model_validate(
        {"world": "t", "title": "T", "description": "A hand-made state.", "state": state}
        | {"tools": [spec]}
    )


def _summary_text(world: World, arguments: dict[str, Any]) -> str:
    overlay = StateIndex(world, world.state).overlay_of(world.state)
    grounding = ground(overlay, world.state, world.tools[0], arguments)
    assert grounding.summary is not None
    return grounding.summary.render(20000)


def test_a_terms_aggregation_answers_buckets_most_records_first_with_inner_metrics() -> None:
    aggs = {
        "cities": {
            "terms": {"field": "address.city.keyword", "size": 2},
            "aggs": {"top": {"max": {"field": "price"}}},
        }
    }
    asked = requested_aggregations({"index": "listings", "body": {"size": 0, "aggs": aggs}})
    answer = aggregated(_listings(), asked)["cities"]
    assert answer["buckets"] == [
        {"key": "Jura", "doc_count": 3, "top": {"value": 1400}},
        {"key": "Larne", "doc_count": 2, "top": {"value": 1500}},
    ]
    assert answer["sum_other_doc_count"] == 2  # Dunmore and Kells, left out by the size


def test_histograms_list_every_bucket_and_metrics_answer_one_value() -> None:
    aggs = {
        "monthly": {"date_histogram": {"field": "listed_at", "calendar_interval": "month"}},
        "prices": {"histogram": {"field": "price", "interval": 300}},
        "mean": {"avg": {"field": "price"}},
        "spread": {"stats": {"field": "price"}},
        "cities": {"cardinality": {"field": "address.city"}},
    }
    answer = aggregated(_listings(), requested_aggregations({"aggs": aggs}))
    assert [b["key_as_string"][:7] for b in answer["monthly"]["buckets"]] == [
        "2025-01",
        "2025-02",
        "2025-03",
    ]
    assert answer["monthly"]["buckets"][0]["doc_count"] == 3
    assert [(b["key"], b["doc_count"]) for b in answer["prices"]["buckets"]] == [
        (900, 2),
        (1200, 3),
        (1500, 2),
    ]
    assert answer["mean"] == {"value": 1300.0}
    assert answer["spread"]["min"] == 1000 and answer["spread"]["count"] == 7
    assert answer["cities"] == {"value": 4}


def test_a_request_without_aggregation_entries_asks_for_none() -> None:
    assert requested_aggregations({"body": {"query": {"term": {"status": "active"}}}}) == ()
    # An ``aggs`` key holding something else (a field of that name) is no request.
    assert requested_aggregations({"filter": {"aggs": {"city": "Jura"}}}) == ()
    assert field_values({"_source": {"address": {"city": "Jura"}}}, "address.city.keyword") == [
        "Jura"
    ]


def test_a_search_body_with_aggs_is_summed_up_over_the_records_its_query_selects() -> None:
    world = _world({"listings": {"hits": _listings()}}, "search", "Search an index.")
    body = {
        "size": 0,
        "query": {"bool": {"filter": [{"term": {"status": "active"}}]}},
        "aggs": {"by_city": {"terms": {"field": "address.city.keyword"}}},
    }
    text = _summary_text(world, {"index": "listings", "body": body})
    answer = json.loads(text.splitlines()[-1])["aggregations"]["by_city"]
    # Listings 0, 2, 4 and 6 are active: Jura thrice, Kells once.
    assert answer["buckets"] == [
        {"key": "Jura", "doc_count": 3},
        {"key": "Kells", "doc_count": 1},
    ]


def _opportunities(times: int = 1) -> list[dict[str, Any]]:
    stages = ["Won", "Lost", "Won", "Open", "Won"] * times
    return [
        {
            "Id": f"006{i}",
            "StageName": stage,
            "Amount": 10.0 * (i % 5 + 1),
            "OwnerId": f"005{i % 2}",
        }
        for i, stage in enumerate(stages)
    ]


def test_a_grouping_answers_a_row_per_group_under_aliases_or_expression_names() -> None:
    grouping = requested_grouping(
        {
            "objectName": "Opportunity",
            "selectFields": ["StageName", "COUNT(Id)", "SUM(Amount) total"],
            "groupByFields": ["StageName"],
        }
    )
    assert grouping is not None
    rows = grouped_rows(_opportunities(), grouping)
    assert rows == [
        {"StageName": "Lost", "expr0": 1, "COUNT(Id)": 1, "total": 20.0},
        {"StageName": "Open", "expr0": 1, "COUNT(Id)": 1, "total": 40.0},
        {"StageName": "Won", "expr0": 3, "COUNT(Id)": 3, "total": 90.0},
    ]
    text = "SELECT OwnerId, AVG(Amount) mean FROM Opportunity WHERE Amount > 5 GROUP BY OwnerId"
    read = requested_grouping({"q": text})
    assert read is not None and read.table == "Opportunity" and read.fields == ("OwnerId",)
    assert grouped_rows(_opportunities(), read) == [
        {"OwnerId": "0050", "mean": 30.0},
        {"OwnerId": "0051", "mean": 30.0},
    ]


def test_a_grouping_by_a_field_no_record_holds_is_not_read() -> None:
    sql = "select d.name, count(*) as n from objects o join departments d group by d.name"
    grouping = requested_grouping({"sql": sql})
    assert grouping is not None
    assert grouped_rows(_opportunities(), grouping) is None
    assert requested_grouping({"selectFields": ["StageName", "Amount"]}) is None


def test_a_grouping_sums_up_the_collection_its_arguments_name() -> None:
    accounts = [{"Id": f"001{i}", "Name": n} for i, n in enumerate(["Opportunity", "Acme", "Bo"])]
    state = {"instance": "na1", "Account": {"records": accounts}}
    state |= {"Opportunity": {"records": _opportunities(4)}}
    world = _world(state, "aggregate_query", "Run an aggregate query.")
    overlay = StateIndex(world, world.state).overlay_of(world.state)
    arguments = {
        "objectName": "Opportunity",
        "selectFields": ["OwnerId", "COUNT(Id)"],
        "groupByFields": ["OwnerId"],
    }
    summary = aggregation_summary(overlay, world.state, [], arguments)
    assert summary is not None
    assert summary.values["rows"] == [
        {"OwnerId": "0050", "expr0": 10, "COUNT(Id)": 10},
        {"OwnerId": "0051", "expr0": 10, "COUNT(Id)": 10},
    ]


def test_facets_count_each_value_of_the_fields_named_most_first() -> None:
    assert requested_facets({"table": "listings", "_facet": ["status"]}) == ("status",)
    assert requested_facets({"facet_by": "status, address.city"}) == ("status", "address.city")
    assert requested_facets({"query": "x"}) == ()
    counted = facet_counts(_listings(), ("address.city", "missing"))
    assert counted is not None and list(counted) == ["address.city"]
    assert counted["address.city"]["name"] == "address.city"
    assert counted["address.city"]["results"][:2] == [
        {"value": "Jura", "label": "Jura", "count": 3},
        {"value": "Larne", "label": "Larne", "count": 2},
    ]
    assert facet_counts(_listings(), ("missing",)) is None


def test_a_query_of_aggregate_items_alone_answers_one_row() -> None:
    grouping = requested_grouping({"sql": "SELECT COUNT(*), AVG(Amount) AS mean FROM Opportunity"})
    assert grouping is not None and grouping.fields == ()
    assert grouped_rows(_opportunities(), grouping) == [{"expr0": 5, "COUNT(*)": 5, "mean": 30.0}]
    # Rows of records, not of groups: a search, no summary.
    assert requested_grouping({"sql": "SELECT Id, Amount FROM Opportunity"}) is None


def _orders() -> dict[str, Any]:
    orders = [
        {"_id": f"o{i}", "status": ["open", "paid", "void"][i % 3], "amount": 10 * (i % 7)}
        | {"customer": {"city": ["Oslo", "Rome"][i % 2]}}
        for i in range(60)
    ]
    return {"orders": orders, "users": [{"_id": f"u{i}", "name": f"N{i}"} for i in range(20)]}


def test_a_pipelines_group_stage_answers_a_document_per_group_over_its_match() -> None:
    world = _world(_orders(), "aggregate", "Run an aggregation pipeline on a collection.")
    group = {"_id": "$customer.city", "n": {"$sum": 1}, "total": {"$sum": "$amount"}}
    pipeline = [{"$match": {"status": "paid"}}, {"$group": group}, {"$sort": {"total": -1}}]
    text = _summary_text(world, {"collection": "orders", "pipeline": pipeline})
    # Orders 1, 4, 7, … are paid: ten in each city, the even ones in Oslo.
    assert json.loads(text.splitlines()[-1])["rows"] == [
        {"_id": "Oslo", "n": 10, "total": 300},
        {"_id": "Rome", "n": 10, "total": 280},
    ]
    counted = [{"$match": {"status": "paid"}}, {"$count": "paid"}]
    text = _summary_text(world, {"collection": "orders", "pipeline": counted})
    assert json.loads(text.splitlines()[-1])["rows"] == [{"paid": 20}]


def test_terms_buckets_follow_the_order_asked_and_yes_no_keys_read_as_numbers() -> None:
    by_key = {"c": {"terms": {"field": "address.city", "order": {"_key": "asc"}}}}
    answer = aggregated(_listings(), requested_aggregations({"aggs": by_key}))
    assert [b["key"] for b in answer["c"]["buckets"]] == ["Dunmore", "Jura", "Kells", "Larne"]
    by_metric = {
        "c": {
            "terms": {"field": "address.city", "order": {"low": "asc"}},
            "aggs": {"low": {"min": {"field": "price"}}},
        }
    }
    answer = aggregated(_listings(), requested_aggregations({"aggs": by_metric}))
    assert [b["low"]["value"] for b in answer["c"]["buckets"]] == [1000, 1100, 1300, 1600]
    flags = [{"on_view": i % 3 == 0} for i in range(6)]
    answer = aggregated(
        flags, requested_aggregations({"aggs": {"v": {"terms": {"field": "on_view"}}}})
    )
    assert answer["v"]["buckets"] == [
        {"key": 0, "key_as_string": "false", "doc_count": 4},
        {"key": 1, "key_as_string": "true", "doc_count": 2},
    ]


def test_a_range_aggregation_answers_each_range_asked_in_order() -> None:
    ranges = [{"to": 1200}, {"from": 1200, "to": 1500}, {"from": 1500, "key": "dear"}]
    aggs = {"bands": {"range": {"field": "price", "ranges": ranges}}}
    answer = aggregated(_listings(), requested_aggregations({"aggs": aggs}))
    assert answer["bands"]["buckets"] == [
        {"key": "*-1200.0", "to": 1200.0, "doc_count": 2},
        {"key": "1200.0-1500.0", "from": 1200.0, "to": 1500.0, "doc_count": 3},
        {"key": "dear", "from": 1500.0, "doc_count": 2},
    ]
