"""``elastic``: a real-estate portal's Elasticsearch cluster, three indices (``listings``,
``agents``, ``users``) dumped with their mappings and their documents as ``_search`` hits
(``_id``, ``_version``, ``_seq_no`` and the document under ``_source``). Tools are the REST
API's, taking what it takes: an index and an ``_id`` (GET ``_doc``, ``_source`` with
``_source_includes``, ``_mget`` of documents of two indices), a Query DSL body (``bool``
filters of ``term``, ``terms``, ``range``, ``prefix`` and ``match``; a terms lookup that reads
a user's saved ``_id`` values from the ``users`` index; ``sort``, ``size``), aggregations
answered as buckets with ``doc_count`` and metric ``value``, ``_count``, and ``_update`` with a
partial ``doc`` answering ``result``, the new ``_version`` and ``_seq_no``."""

from __future__ import annotations

import random
from typing import Any

from benchmarks.zoo.elastic_api import count, get, get_source, matching, mget, search, update
from benchmarks.zoo.elastic_index import FEATURES, STATUSES, TYPES, cluster, documents
from benchmarks.zoo.kit import Planned, State, Tool, note_tool, prop
from benchmarks.zoo.shape import Shape

INDEX = prop("string", "Index name.", enum=["listings", "agents", "users"])
BODY = prop("object", "Request body: query (Query DSL), size, from, sort, _source, aggs.")
INCLUDES = prop("array", "Source fields to return.", items={"type": "string"})
SEARCH_OUT = {
    "type": "object",
    "properties": {"hits": {"type": "object"}, "_shards": {"type": "object"}},
    "required": ["hits"],
}


def _clauses(source: dict[str, Any], rng: random.Random) -> list[dict[str, Any]]:
    """Filter clauses that a listing's ``_source`` meets, shuffled."""
    price = source["price"]
    clauses: list[dict[str, Any]] = [
        {"term": {"status": source["status"]}},
        {"term": {"property_type": source["property_type"]}},
        {"term": {"address.city.keyword": source["address"]["city"]}},
        {"term": {"features": rng.choice(source["features"])}},
        {"range": {"price": {"gte": price - price % 50_000, "lte": price + 60_000}}},
        {"range": {"bedrooms": {"gte": source["bedrooms"]}}},
        {"prefix": {"address.postal_code": source["address"]["postal_code"][:4]}},
        {"match": {"description": rng.choice(source["description"].split())}},
        {"range": {"year_built": {"gte": source["year_built"] - rng.randint(0, 15)}}},
    ]
    rng.shuffle(clauses)
    return clauses


class Elastic(Shape):
    name = "elastic"
    title = "Home search assistant over an Elasticsearch cluster"
    description = (
        "Northsound Homes' Elasticsearch 8 cluster: the listings, agents and users indices, "
        "each with its mappings and its documents. Errors are text starting with 'Error:'."
    )
    note = ("add_note", "note")

    def build(self, rng: random.Random, target_bytes: int) -> State:
        return cluster(rng, target_bytes)

    def tools(self) -> list[Tool]:
        ident = {"index": INDEX, "id": prop("string", "Document _id.")}
        return [
            Tool(
                "get",
                "GET /{index}/_doc/{id}: a document with its metadata.",
                ident | {"_source_includes": INCLUDES},
                get,
                ("index", "id"),
            ),
            Tool(
                "get_source",
                "GET /{index}/_source/{id}: a document's source only.",
                ident | {"_source_includes": INCLUDES},
                get_source,
                ("index", "id"),
            ),
            Tool(
                "mget",
                "GET /_mget: several documents, of any indices, in one request.",
                {"docs": prop("array", "Each {_index, _id, _source?}.", items={"type": "object"})},
                mget,
                ("docs",),
            ),
            Tool(
                "search",
                "POST /{index}/_search with a Query DSL body.",
                {"index": INDEX, "body": BODY},
                search,
                ("index",),
                output=SEARCH_OUT,
            ),
            Tool(
                "count",
                "GET /{index}/_count: how many documents match a query.",
                {"index": INDEX, "body": BODY},
                count,
                ("index",),
            ),
            Tool(
                "update",
                "POST /{index}/_update/{id}: merge a partial document into one.",
                ident | {"doc": prop("object", "Fields to set.")},
                update,
                ("index", "id", "doc"),
                effect="write",
            ),
            note_tool("add_note", "note", "Add a note to the client's file (answers nothing)."),
        ]

    def lookup(self, rng: random.Random, state: State) -> Planned:
        index = rng.choice(["listings", "listings", "agents", "users"])
        return Planned(
            "lookup", "get", {"index": index, "id": rng.choice(documents(state, index))["_id"]}
        )

    def nested_lookup(self, rng: random.Random, state: State) -> Planned:
        hit = rng.choice(documents(state, "listings"))
        fields = rng.choice(
            [["address"], ["address", "price"], ["location", "features"], ["agent_id", "status"]]
        )
        tool = rng.choice(["get_source", "get"])
        return Planned(
            "nested_lookup",
            tool,
            {"index": "listings", "id": hit["_id"], "_source_includes": fields},
        )

    def search(self, rng: random.Random, state: State) -> Planned:
        source = rng.choice(documents(state, "listings"))["_source"]
        wanted, chosen = rng.randint(1, 4), []
        for clause in _clauses(source, rng):
            chosen.append(clause)
            query = {"bool": {"filter": chosen}}
            if len(chosen) >= wanted and len(matching(state, "listings", query)) <= 10:
                break
        body: dict[str, Any] = {"query": {"bool": {"filter": chosen}}}
        if rng.random() < 0.3:
            body["sort"] = [{"price": {"order": rng.choice(["asc", "desc"])}}]
        return Planned("search", "search", {"index": "listings", "body": body})

    def join(self, rng: random.Random, state: State) -> Planned:
        if rng.random() < 0.5:
            hit = rng.choice(documents(state, "listings"))
            docs = [
                {"_index": "listings", "_id": hit["_id"]},
                {"_index": "agents", "_id": hit["_source"]["agent_id"]},
            ]
            return Planned("join", "mget", {"docs": docs})
        user = rng.choice(documents(state, "users"))["_id"]
        lookup = {"index": "users", "id": user, "path": "saved_listings"}
        filters: list[dict[str, Any]] = [{"terms": {"_id": lookup}}]
        if rng.random() < 0.4:
            filters.append({"term": {"status": "active"}})
        body = {"query": {"bool": {"filter": filters}}, "size": 20}
        return Planned("join", "search", {"index": "listings", "body": body})

    def aggregate(self, rng: random.Random, state: State) -> Planned:
        query: dict[str, Any] = {"bool": {"filter": [{"term": {"status": rng.choice(STATUSES)}}]}}
        if rng.random() < 0.3:
            kind = rng.choice(TYPES)
            return Planned(
                "aggregate",
                "count",
                {
                    "index": "listings",
                    "body": {"query": {"bool": {"filter": [{"term": {"property_type": kind}}]}}},
                },
            )
        field = rng.choice(["address.city.keyword", "property_type", "bedrooms"])
        metric = rng.choice(["avg", "max", "min"])
        aggs = {
            "groups": {
                "terms": {"field": field, "size": 5},
                "aggs": {f"{metric}_price": {metric: {"field": "price"}}},
            }
        }
        return Planned(
            "aggregate",
            "search",
            {"index": "listings", "body": {"size": 0, "query": query, "aggs": aggs}},
        )

    def write(self, rng: random.Random, state: State) -> tuple[Planned, Planned]:
        if rng.random() < 0.35:
            user = rng.choice(documents(state, "users"))
            extra = rng.choice(documents(state, "listings"))["_id"]
            saved = [*user["_source"]["saved_listings"], extra]
            args = {"index": "users", "id": user["_id"], "doc": {"saved_listings": saved}}
            read = {"index": "users", "id": user["_id"]}
            return Planned("write", "update", args), Planned("read_after_write", "get_source", read)
        hit = rng.choice(documents(state, "listings"))
        source = hit["_source"]
        if rng.random() < 0.5:
            doc: dict[str, Any] = {"price": source["price"] - rng.randint(1, 8) * 5000}
        else:
            doc = {
                "status": rng.choice(
                    [s for s in ("pending", "sold", "active") if s != source["status"]]
                )
            }
        ident = {"index": "listings", "id": hit["_id"]}
        return Planned("write", "update", ident | {"doc": doc}), Planned(
            "read_after_write", "get", ident
        )

    def no_match(self, rng: random.Random, state: State) -> Planned:
        filters: list[dict[str, Any]] = [
            {"term": {"address.city.keyword": rng.choice(["Atlantis", "Zenith", "Quarry"])}}
        ]
        if rng.random() < 0.5:
            filters = [
                {"range": {"price": {"gte": 9_000_000}}},
                {"term": {"features": rng.choice(FEATURES)}},
            ]
        return Planned(
            "empty",
            "search",
            {"index": "listings", "body": {"query": {"bool": {"filter": filters}}}},
        )
