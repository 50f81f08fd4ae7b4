"""A query written as a nested object read as operands by its structure, whatever the
service: operator keys on the field above them, search clauses naming their field inside,
filter entries, groupings and negations; a request's options and a plain object are no
query; and a search ranks the records the object's operands select."""

from __future__ import annotations

from typing import Any

from mcp_sim.prompting.field_search import FieldSearch
from mcp_sim.prompting.query_objects import object_operands
from mcp_sim.prompting.query_operands import Operand
from mcp_sim.prompting.scalar_arguments import scalar_arguments
from mcp_sim.runtime.state_index import StateIndex
from mcp_sim.spec.world import World


def operands(value: Any, name: str = "") -> list[Operand] | None:
    found = object_operands(value, name)
    return None if found is None else list(found)


def test_a_search_body_gives_its_clauses_not_its_options() -> None:
    body = {
        "query": {
            "bool": {
                "filter": [
                    {"term": {"status": "open"}},
                    {"range": {"price": {"gte": 10, "lte": 50}}},
                    {"terms": {"tags": ["a", "b"]}},
                    {"prefix": {"address.postal_code": {"value": "9804"}}},
                    {"term": {"address.city.keyword": "Oslo"}},
                ],
                "must": [{"match": {"title": {"query": "harbor"}}}],
                "must_not": [{"term": {"color": "red"}}, {"range": {"year": {"lt": 1900}}}],
                "minimum_should_match": 1,
            }
        },
        "size": 5,
        "from": 10,
        "sort": [{"price": {"order": "asc"}}],
        "_source": ["title"],
        "aggs": {"cities": {"terms": {"field": "city.keyword", "size": 5}}},
    }
    assert operands(body, "body") == [
        Operand("status", "eq", "open"),
        Operand("price", "min", 10),
        Operand("price", "max", 50),
        Operand("tags", "eq", ["a", "b"]),
        Operand("address.postal_code", "prefix", "9804"),
        # A sub-field of other indexing is its field's own value.
        Operand("address.city", "eq", "Oslo"),
        Operand("title", "match", "harbor"),
        # A value ruled out is read; a bound ruled out is not.
        Operand("color", "ne", "red"),
    ]


def test_a_filter_document_gives_fields_with_their_operators() -> None:
    document = {
        "status": "open",
        "price": {"$gte": 10, "$lt": 50},
        "tags": {"$in": ["a", "b"]},
        "kind": {"$nin": ["x"]},
        "name": {"$regex": "^Ab"},
        "$or": [{"city": "Oslo"}, {"city": "Bergen"}],
        "items": {"$elemMatch": {"sku": "k1", "qty": {"$gt": 2}}},
        "deleted": {"$exists": False},
    }
    assert operands(document, "filter") == [
        Operand("status", "eq", "open"),
        Operand("price", "min", 10),
        Operand("price", "max", 50),
        Operand("tags", "eq", ["a", "b"]),
        Operand("kind", "ne", ["x"]),
        Operand("name", "prefix", "Ab"),
        # The branches of an or on one field are one "any of".
        Operand("city", "eq", ["Oslo", "Bergen"]),
        Operand("items.sku", "eq", "k1"),
        Operand("items.qty", "min", 2),
    ]


def test_a_where_input_reads_nested_relations_and_negations() -> None:
    where = {
        "AND": [{"price": {"_gt": 10}}, {"status": {"equals": "open"}}],
        "author": {"name": {"startsWith": "A", "mode": "insensitive"}},
        "title": {"_ilike": "%harbor%"},
        "NOT": {"kind": {"_eq": "draft"}},
    }
    assert operands(where, "where") == [
        Operand("price", "min", 10),
        Operand("status", "eq", "open"),
        Operand("author.name", "prefix", "A"),
        Operand("title", "contains", "harbor"),
        Operand("kind", "ne", "draft"),
    ]


def test_filter_entries_name_field_operator_and_value_beside_one_another() -> None:
    entries = [
        {"field": "price", "op": ">=", "value": 10},
        {"field": "status", "operator": "in", "value": ["a", "b"]},
        {"name": "city", "operator": "NOT_EQUALS", "value": "Oslo"},
    ]
    assert operands(entries, "filters") == [
        Operand("price", "min", 10),
        Operand("status", "eq", ["a", "b"]),
        Operand("city", "ne", "Oslo"),
    ]
    # HubSpot's groups of filters beside the request's paging (``after`` is no bound here).
    request = {
        "filterGroups": [
            {
                "filters": [
                    {"propertyName": "amount", "operator": "BETWEEN", "value": 5, "highValue": 9},
                    {"propertyName": "stage", "operator": "IN", "values": ["won", "lost"]},
                    {"propertyName": "name", "operator": "CONTAINS_TOKEN", "value": "Ac*"},
                ]
            }
        ],
        "limit": 10,
        "after": 20,
    }
    assert operands(request, "search_request") == [
        Operand("amount", "min", 5),
        Operand("amount", "max", 9),
        Operand("stage", "eq", ["won", "lost"]),
        Operand("name", "prefix", "Ac"),
    ]


def test_patterns_and_older_ranges_read_as_the_bounds_and_prefixes_they_fix() -> None:
    body = {
        "query": {
            "bool": {
                "filter": [
                    {"range": {"year": {"from": 1990, "to": 2000}}},
                    {"wildcard": {"code": {"value": "AB*7"}}},
                    {"regexp": {"city": "Os.*"}},
                    {"query_string": {"query": "status:open AND tier:gold"}},
                ]
            }
        }
    }
    assert operands(body, "body") == [
        Operand("year", "min", 1990),
        Operand("year", "max", 2000),
        Operand("code", "prefix", "AB"),
        Operand("city", "prefix", "Os"),
        Operand("status", "match", "open"),
        Operand("tier", "match", "gold"),
    ]


def test_a_field_named_like_a_query_holder_is_still_a_field() -> None:
    document = {
        "condition": {"$eq": "new"},
        "name": {"$regex": "^Sea\\ Breeze", "$options": "i"},
    }
    assert operands(document, "q") == [
        Operand("condition", "eq", "new"),
        Operand("name", "prefix", "Sea Breeze"),
    ]


def test_an_object_of_operators_compares_the_argument_it_is_given_as() -> None:
    assert operands({"gte": 1700000000, "lt": 1800000000}, "created") == [
        Operand("created", "min", 1700000000),
        Operand("created", "max", 1800000000),
    ]


def test_what_is_no_query_stays_arguments() -> None:
    # A plain object, a list of documents to fetch, a record to write: no operator, clause,
    # entry or grouping.
    assert operands({"city": "Oslo", "min_price": 4}, "filters") is None
    assert operands([{"_index": "listings", "_id": "x1"}], "docs") is None
    assert operands({"name": "Bo", "value": 5}, "row") is None
    assert operands({"query": {"range": {"min": 1, "max": 5}}}, "doc") is None
    assert dict(scalar_arguments({"filters": {"city": "Oslo", "min_price": 4}})) == {
        "city": "Oslo",
        "filters_min_price": 4,
    }


def test_a_clause_reading_its_values_from_another_record_leaves_the_query_to_lookups() -> None:
    body = {
        "query": {
            "bool": {
                "filter": [
                    {"terms": {"_id": {"index": "users", "id": "u1", "path": "saved"}}},
                    {"term": {"status": "active"}},
                ]
            }
        }
    }
    assert operands(body, "body") is None


def test_operands_become_arguments_named_for_their_operation() -> None:
    body = {"query": {"bool": {"filter": [{"range": {"price": {"gte": 5}}}]}}, "size": 3}
    pairs = list(scalar_arguments({"index": "homes", "body": body}))
    assert pairs == [("index", "homes"), ("price_min", 5)]
    # A field named as an answer's shape is (``format``) is compared all the same.
    ruled_out = {"$and": [{"format": {"$ne": "jazz"}}, {"format": {"$in": ["pop", "rock"]}}]}
    pairs = list(scalar_arguments({"filter": ruled_out}))
    assert pairs == [("format_not", "jazz"), ("format", ["pop", "rock"])]


def _shop() -> World:
    homes = [
        {
            "_id": f"h{i}",
            "_source": {
                "status": ["active", "sold"][i % 2],
                "price": 100 * i,
                "address": {"city": ["Oslo", "Bergen", "Molde"][i % 3]},
            },
        }
        for i in range(60)
    ]
    buyers = [{"_id": f"b{i}", "_source": {"saved": [f"h{i}", f"h{i + 2}"]}} for i in range(40)]
    return World.model_validate(
        {
            "world": "t",
            "title": "T",
            "description": "Homes for sale.",
            "state": {"homes": {"hits": homes}, "buyers": {"hits": buyers}},
            "tools": [
                {
                    "name": "search",
                    "description": "POST /{index}/_search with a Query DSL body.",
                    "input_schema": {"type": "object"},
                    "output_schema": {"type": "object", "properties": {"hits": {"type": "object"}}},
                }
            ],
        }
    )


def test_a_search_finds_the_records_a_query_object_selects() -> None:
    world = _shop()
    overlay = StateIndex(world, world.state).overlay_of(world.state)
    filters: list[dict[str, Any]] = [
        {"term": {"status": "active"}},
        {"term": {"address.city.keyword": "Bergen"}},
        {"range": {"price": {"gte": 2000, "lte": 4000}}},
    ]
    body = {"query": {"bool": {"filter": filters}}}
    found, *_ = FieldSearch(overlay, world.state).search(world.tool("search"), {"body": body})
    wanted = [f"/homes/hits/{i}" for i in range(60) if i % 2 == 0 and i % 3 == 1 and 20 <= i <= 40]
    assert wanted and found.full == wanted


def test_the_records_found_are_not_followed_to_another_collection_of_their_name() -> None:
    # The tool answers ``hits``: those of the homes searched, not the buyers' ``hits`` that
    # hold their keys.
    world = _shop()
    overlay = StateIndex(world, world.state).overlay_of(world.state)
    body = {"query": {"bool": {"filter": [{"term": {"address.city.keyword": "Molde"}}]}}}
    results = FieldSearch(overlay, world.state).search(world.tool("search"), {"body": body})
    assert [r.collection.pointer for r in results] == ["/homes/hits"]
