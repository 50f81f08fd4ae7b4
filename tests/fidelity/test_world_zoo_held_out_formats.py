"""The held-out zoo shapes hold what the services they copy serve: a tea shop's WooCommerce
database through the REST API v3 (``woo``), a research graph's APOC export through the Neo4j
MCP server's Cypher (``neo4j``) and a streaming service's Cassandra SSTables through CQL
(``cassandra``); their computed answers are checked here against independent computations over
the state, and their writes against what the services would change. (That each shape loads,
is deterministic, makes every kind of call and answers from its state is checked with all the
zoo's shapes.)"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

import pytest

from benchmarks.zoo import generate
from benchmarks.zoo.kit import State, ToolError
from benchmarks.zoo.neo4j_cypher import AFFILIATE, AFFILIATIONS, AUTHORS, PER_YEAR, SET_H, STAFF
from tests.fidelity.zoo_calls import run_tool, small_state


@pytest.mark.parametrize("shape", ["woo", "neo4j", "cassandra"])
def test_the_same_seed_makes_the_same_held_out_world(shape: str) -> None:
    first = generate(shape, 0.05, seed=11, episodes=2)
    assert generate(shape, 0.05, seed=11, episodes=2) == first
    assert generate(shape, 0.05, seed=12, episodes=2)[0]["state"] != first[0]["state"]


# woo


def _rows(state: State, name: str) -> list[dict[str, Any]]:
    tables = [t for t in state["wordpress.json"] if t.get("name") == name]
    rows: list[dict[str, Any]] = tables[0]["data"]
    return rows


def _meta(state: State, post: str) -> dict[str, str]:
    return {
        r["meta_key"]: r["meta_value"] for r in _rows(state, "wp_postmeta") if r["post_id"] == post
    }


def _lines_by_order(state: State) -> dict[str, list[tuple[str, int]]]:
    """Each order's (product id, quantity), read from the order item tables by hand."""
    item_meta: dict[str, dict[str, str]] = defaultdict(dict)
    for row in _rows(state, "wp_woocommerce_order_itemmeta"):
        item_meta[row["order_item_id"]][row["meta_key"]] = row["meta_value"]
    found: dict[str, list[tuple[str, int]]] = defaultdict(list)
    for item in _rows(state, "wp_woocommerce_order_items"):
        if item["order_item_type"] == "line_item":
            m = item_meta[item["order_item_id"]]
            found[item["order_id"]].append((m["_product_id"], int(m["_qty"])))
    return found


def test_a_woocommerce_product_is_its_post_and_its_meta_rows() -> None:
    state = small_state("woo")
    post = next(r for r in _rows(state, "wp_posts") if r["post_type"] == "product")
    meta = _meta(state, post["ID"])
    product = run_tool("woo", state, "get_product", {"id": int(post["ID"])})
    assert product["name"] == post["post_title"]
    assert (product["sku"], product["price"]) == (meta["_sku"], meta["_price"])
    assert product["stock_quantity"] == int(meta["_stock"])
    assert product["date_created"] == post["post_date"].replace(" ", "T")
    terms = {r["term_id"]: r["name"] for r in _rows(state, "wp_terms")}
    links = [
        r["term_taxonomy_id"]
        for r in _rows(state, "wp_term_relationships")
        if r["object_id"] == post["ID"]
    ]
    taxonomy = {r["term_taxonomy_id"]: r["term_id"] for r in _rows(state, "wp_term_taxonomy")}
    assert [c["name"] for c in product["categories"]] == [terms[taxonomy[t]] for t in links]
    with pytest.raises(ToolError):
        run_tool("woo", state, "get_order", {"id": int(post["ID"])})  # a product is no order


def test_woocommerce_lists_filter_by_meta_and_by_order_items() -> None:
    state = small_state("woo")
    prices = {
        int(r["ID"]): float(_meta(state, r["ID"])["_price"])
        for r in _rows(state, "wp_posts")
        if r["post_type"] == "product"
    }
    found = run_tool(
        "woo", state, "list_products", {"min_price": "20", "max_price": "60", "per_page": 100}
    )
    assert {p["id"] for p in found} == {p for p, price in prices.items() if 20 <= price <= 60}
    lines = _lines_by_order(state)
    product = next(iter(lines.values()))[0][0]
    orders = run_tool("woo", state, "list_orders", {"product": int(product), "per_page": 100})
    assert {o["id"] for o in orders} == {
        int(o) for o, held in lines.items() if any(p == product for p, _ in held)
    }


def test_woocommerce_reports_count_sales_over_the_posts_and_items() -> None:
    state = small_state("woo")
    counted = [
        r
        for r in _rows(state, "wp_posts")
        if r["post_type"] == "shop_order"
        and r["post_status"] in ("wc-completed", "wc-processing", "wc-on-hold")
    ]
    low, high = "2025-02-01", "2025-03-31"
    within = [r for r in counted if low <= r["post_date"][:10] <= high]
    report = run_tool("woo", state, "sales_report", {"date_min": low, "date_max": high})[0]
    assert report["total_orders"] == len(within)
    total = sum(float(_meta(state, r["ID"])["_order_total"]) for r in within)
    assert report["total_sales"] == f"{total:.2f}"
    lines = _lines_by_order(state)
    assert report["total_items"] == sum(q for r in within for _, q in lines[r["ID"]])
    sold: Counter[int] = Counter()
    for r in within:
        for product, qty in lines[r["ID"]]:
            sold[int(product)] += qty
    top = run_tool("woo", state, "top_sellers_report", {"date_min": low, "date_max": high})
    assert {t["product_id"]: t["quantity"] for t in top} == dict(sold)
    statuses = Counter(
        r["post_status"] for r in _rows(state, "wp_posts") if r["post_type"] == "shop_order"
    )
    totals = run_tool("woo", state, "orders_totals_report", {})
    assert {t["slug"]: t["total"] for t in totals} == {
        s.removeprefix("wc-"): statuses[s]
        for s in (
            "wc-pending",
            "wc-processing",
            "wc-on-hold",
            "wc-completed",
            "wc-cancelled",
            "wc-refunded",
            "wc-failed",
        )
    }


def test_woocommerce_updates_change_meta_rows_and_post_status() -> None:
    state = small_state("woo")
    post = next(r for r in _rows(state, "wp_posts") if r["post_type"] == "product")
    args = {"id": int(post["ID"]), "regular_price": "31.50", "sale_price": "", "stock_quantity": 0}
    answer = run_tool("woo", state, "update_product", args)
    meta = _meta(state, post["ID"])
    assert (meta["_regular_price"], meta["_price"], meta["_sale_price"]) == ("31.50", "31.50", "")
    assert (meta["_stock"], meta["_stock_status"]) == ("0", "outofstock")
    assert answer == run_tool("woo", state, "get_product", {"id": int(post["ID"])})
    order = next(r for r in _rows(state, "wp_posts") if r["post_type"] == "shop_order")
    args = {"id": int(order["ID"]), "status": "refunded", "billing": {"city": "Oban"}}
    run_tool("woo", state, "update_order", args)
    assert order["post_status"] == "wc-refunded"
    assert _meta(state, order["ID"])["_billing_city"] == "Oban"


# neo4j


def _graph(state: State) -> tuple[dict[str, dict[str, Any]], list[dict[str, Any]]]:
    lines = state["all.json"]
    nodes = {x["id"]: x for x in lines if x["type"] == "node"}
    return nodes, [x for x in lines if x["type"] == "relationship"]


def _cypher(state: State, query: str, **params: Any) -> Any:
    return run_tool("neo4j", state, "read_neo4j_cypher", {"query": query, "params": params})


def test_neo4j_patterns_follow_relationship_lines_by_internal_id() -> None:
    state = small_state("neo4j")
    nodes, rels = _graph(state)
    authored = [r for r in rels if r["label"] == "AUTHORED"]
    paper = nodes[authored[0]["end"]["id"]]
    wanted = sorted(
        (r["properties"]["position"], nodes[r["start"]["id"]]["properties"]["orcid"])
        for r in authored
        if r["end"]["id"] == paper["id"]
    )
    answer = _cypher(state, AUTHORS, doi=paper["properties"]["doi"])
    assert [(a["position"], a["orcid"]) for a in answer] == wanted
    venue = next(x for x in nodes.values() if "Venue" in x["labels"])
    years = Counter(
        nodes[r["start"]["id"]]["properties"]["year"]
        for r in rels
        if r["label"] == "PUBLISHED_IN" and r["end"]["id"] == venue["id"]
    )
    answer = _cypher(state, PER_YEAR, issn=venue["properties"]["issn"])
    assert {a["year"]: a["papers"] for a in answer} == dict(years)
    place = next(x for x in nodes.values() if "Institution" in x["labels"])
    scores = [
        nodes[r["start"]["id"]]["properties"]["h_index"]
        for r in rels
        if r["label"] == "AFFILIATED_WITH" and r["end"]["id"] == place["id"]
    ]
    staff = _cypher(state, STAFF, ror=place["properties"]["ror"])[0]
    assert (staff["researchers"], staff["max_h_index"]) == (len(scores), max(scores, default=None))
    with pytest.raises(ToolError, match="SyntaxError"):
        _cypher(state, "MATCH (n) RETURN n")


def test_neo4j_writes_set_a_property_and_add_a_relationship_line() -> None:
    state = small_state("neo4j")
    nodes, rels = _graph(state)
    person = next(x for x in nodes.values() if "Researcher" in x["labels"])
    place = next(x for x in nodes.values() if "Institution" in x["labels"])
    orcid = person["properties"]["orcid"]
    write = {"query": SET_H, "params": {"orcid": orcid, "h_index": 77}}
    counters = run_tool("neo4j", state, "write_neo4j_cypher", write)
    assert counters["properties_set"] == 1 and person["properties"]["h_index"] == 77
    params = {"orcid": orcid, "ror": place["properties"]["ror"], "since": 2024, "role": "Lecturer"}
    counters = run_tool(
        "neo4j", state, "write_neo4j_cypher", {"query": AFFILIATE, "params": params}
    )
    assert counters["relationships_created"] == 1
    line = state["all.json"][-1]
    assert line["id"] == str(max(int(r["id"]) for r in rels) + 1)
    assert (line["start"]["id"], line["end"]["id"]) == (person["id"], place["id"])
    assert {"since": 2024, "role": "Lecturer"} in [
        {"since": a["since"], "role": a["role"]} for a in _cypher(state, AFFILIATIONS, orcid=orcid)
    ]


# cassandra


def _select(state: State, query: str, *values: Any) -> Any:
    return run_tool("cassandra", state, "execute_query", {"query": query, "values": list(values)})


def _dir(state: State, table: str) -> dict[str, list[dict[str, Any]]]:
    found: dict[str, list[dict[str, Any]]] = next(
        v for k, v in state["streamly"].items() if k.startswith(table + "-")
    )
    return found


def test_cassandra_rows_merge_across_sstables_by_write_timestamp() -> None:
    state = small_state("cassandra")
    changed = _dir(state, "users")["nb-2-big-Data.db"][0]
    user = changed["partition"]["key"][0]
    later = changed["rows"][-1]["cells"][0]
    assert later["tstamp"] > "2025-05"
    row = _select(state, "SELECT * FROM users WHERE user_id = ?", user)[0]
    assert row["plan"] == later["value"]
    gone = next(
        (p["partition"]["key"][0], r["clustering"])
        for p in _dir(state, "watch_history_by_user")["nb-2-big-Data.db"]
        for r in p["rows"]
        if "deletion_info" in r
    )
    query = (
        "SELECT * FROM watch_history_by_user WHERE user_id = ? AND watched_at = ? AND title_id = ?"
    )
    assert _select(state, query, gone[0], *gone[1]) == []
    with pytest.raises(ToolError, match="ALLOW FILTERING"):
        _select(state, "SELECT * FROM users WHERE country = ?", "DE")


def test_cassandra_aggregates_within_a_partition_as_cql_types_them() -> None:
    state = small_state("cassandra")
    part = _dir(state, "ratings_by_title")["nb-1-big-Data.db"][0]
    stars = [next(c["value"] for c in r["cells"] if c["name"] == "stars") for r in part["rows"]]
    query = "SELECT count(*), avg(stars), max(stars) FROM ratings_by_title WHERE title_id = ?"
    answer = _select(state, query, part["partition"]["key"][0])
    assert answer == [
        {
            "count": len(stars),
            "system.avg(stars)": sum(stars) // len(stars),
            "system.max(stars)": max(stars),
        }
    ]


def test_cassandra_writes_flush_a_new_sstable_that_wins_the_merge() -> None:
    state = small_state("cassandra")
    user = _dir(state, "users")["nb-1-big-Data.db"][0]["partition"]["key"][0]
    update = {
        "query": "UPDATE users SET plan = ? WHERE user_id = ? IF EXISTS",
        "values": ["premium", user],
    }
    assert run_tool("cassandra", state, "execute_update", update) == [{"[applied]": True}]
    update["values"] = ["basic", user]
    run_tool("cassandra", state, "execute_update", update)
    assert sorted(_dir(state, "users")) == [f"nb-{n}-big-Data.db" for n in range(1, 5)]
    assert _select(state, "SELECT plan FROM users WHERE user_id = ?", user) == [{"plan": "basic"}]
    update["values"] = ["basic", "00000000-0000-4000-a000-000000000000"]
    assert run_tool("cassandra", state, "execute_update", update) == [{"[applied]": False}]
