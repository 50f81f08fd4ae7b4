"""The classes of real formats random zoo shapes draw (``benchmarks/zoo/random_shapes/
formats.py``): each is drawn by a quarter to a third of the development seeds, from a generator
of its own, so that a seed keeps the records it had; large records hold statements keyed by
party ids; Relay-style connections count their edges, type their nodes and give global ids;
query strings read back as the arguments they were written from; and every call the classes
offer answers what the state holds (:mod:`tests.fidelity.zoo_formats`)."""

from __future__ import annotations

import base64
import json
import random
import re
from dataclasses import replace
from typing import Any

from benchmarks.zoo import make_shape
from benchmarks.zoo.kit import State
from benchmarks.zoo.random_shapes.design import draw
from benchmarks.zoo.random_shapes.formats import Formats
from benchmarks.zoo.random_shapes.query_language import parse, render
from benchmarks.zoo.random_shapes.world import RandomShape
from tests.fidelity.zoo_formats import VARIANTS, check_format_call

DEVELOPMENT = range(100)
CLASSES = ("claims", "pairs", "relay", "query", "title_ref")


def _drawing(name: str, count: int = 4) -> list[int]:
    """The first ``count`` development seeds that draw class ``name``."""
    return [s for s in DEVELOPMENT if getattr(draw(s).formats, name)][:count]


def _shape(seed: int, size: int = 60_000) -> tuple[RandomShape, State]:
    shape = make_shape(f"random-{seed}")
    assert isinstance(shape, RandomShape)
    return shape, shape.build(random.Random(seed), size)


def test_each_class_is_drawn_by_a_quarter_to_a_third_of_the_development_seeds() -> None:
    drawn = [draw(s).formats for s in DEVELOPMENT]
    for name in CLASSES:
        assert 22 <= sum(getattr(f, name) is not None for f in drawn) <= 40, name
    # Aggregation requests and sub-items (test_world_zoo_random_aggregations) drawn apart.
    apart = [replace(f, requests=None, sub_items=None) for f in drawn]
    assert 5 <= sum(f == Formats() for f in apart) <= 30
    assert len({f.pairs for f in drawn}) >= 4 and len({f.query for f in drawn}) >= 4
    shape = make_shape("random-6")
    assert isinstance(shape, RandomShape)
    assert "claims statements, relay, title refs see_also" in shape.structure


def _less(record: dict[str, Any], keys: set[str]) -> dict[str, Any]:
    return {k: v for k, v in record.items() if k not in keys}


def test_a_seed_keeps_the_records_it_had_besides_what_its_classes_add() -> None:
    """The classes' fields come from generators of their own: a seed's records are the ones
    it makes without them (fewer, where records are large), less the fields they add."""
    for seed in [s for s in DEVELOPMENT if draw(s).formats.keys and not draw(s).formats.relay][:8]:
        design = draw(seed)
        # Text (held where a collection is free to be) is kept: it adds no field.
        bare = RandomShape(draw(seed, formats=Formats(text=design.formats.text)))
        shape = RandomShape(design)
        state = shape.build(random.Random(seed), 60_000)
        bare_state = bare.build(random.Random(seed), 60_000)
        added = {design.spell(k) for k in design.formats.keys} | {design.roster_key or ""}
        for role, store in design.stores.items():
            records = [_less(r, added) for _, r in store.items(state)]
            before = [_less(r, added) for _, r in bare.design.stores[role].items(bare_state)]
            assert records and records == before[: len(records)], (seed, role)


def test_every_call_the_classes_offer_answers_what_the_state_holds() -> None:
    seen = set()
    for seed in sorted({s for name in CLASSES for s in _drawing(name)}):
        shape, state = _shape(seed)
        rng = random.Random(seed)
        for offer in [o for offers in shape.code.offers.values() for o in offers]:
            if offer.variant in VARIANTS:
                seen.add(offer.variant)
                for _ in range(4):
                    check_format_call(shape, state, offer, offer.plan(rng, state))
    assert seen == set(VARIANTS)


def test_a_search_by_query_string_answers_as_the_arguments_per_field() -> None:
    for seed in _drawing("query"):
        shape, state = _shape(seed)
        design, q = shape.design, shape.design.formats.query or ""
        apart = RandomShape(draw(seed, formats=replace(design.formats, query=None)))
        rng = random.Random(seed)
        for search, twin in zip(shape.code.searches, apart.code.searches, strict=True):
            assert set(search.tool().properties) - twin.paging_args() == {q}
            for _ in range(6):
                args = search.plan(rng, state)
                query = args.pop(q)
                fields = parse(search.constraints, query)
                assert fields and render(search.constraints, fields) == query
                asked = args | {q: query}
                assert search.run(state, asked) == twin.run(state, args | fields)


def test_a_query_string_writes_each_kind_of_term() -> None:
    shape, _ = _shape(_drawing("query")[0])
    constraints = shape.code.search.constraints
    by_op = {c.op: c for c in reversed(constraints)}
    args = {by_op["ge"].arg: 12, by_op["le"].arg: 40.5, by_op["prefix"].arg: "Sea B"}
    args[by_op["eq"].arg] = "two words"
    query = render(constraints, args)
    assert f'{by_op["prefix"].key}:"Sea B"*' in query and f"{by_op['ge'].key}:>=12" in query
    assert f'{by_op["eq"].key}:"two words"' in query
    assert parse(constraints, query) == args
    if "ne" in by_op:
        negated = render(constraints, {by_op["ne"].arg: "x", by_op["in"].arg: ["a", "b"]})
        assert negated == f"-{by_op['ne'].key}:x {by_op['in'].key}:a,b"


def _connections(value: Any, depth: int = 0) -> list[tuple[int, dict[str, Any]]]:
    """Every Relay connection in ``value``, with how many connections it is inside."""
    found = []
    if isinstance(value, dict):
        if {"totalCount", "pageInfo", "edges"} <= set(value):
            found.append((depth, value))
            depth += 1
        for item in value.values():
            found += _connections(item, depth)
    elif isinstance(value, list):
        for item in value:
            found += _connections(item, depth)
    return found


def test_relay_connections_count_their_edges_type_their_nodes_and_give_global_ids() -> None:
    nested, drawing = 0, _drawing("relay", 100)
    connected = [s for s in drawing if draw(s).stores["primary"].container == "relay"]
    for seed in drawing[:4] + connected[:2]:
        shape, state = _shape(seed)
        # Comments in records, records in a connection where their collection is one (read
        # raw; decoded where the records are encoded).
        store = shape.design.stores["primary"]
        connections = _connections([r for _, r in store.items(state)])
        assert connections and {depth for depth, _ in connections} == {0, 1}, seed
        if store.container == "relay":
            nested += 1
            connections = _connections(state)
            assert {depth for depth, _ in connections} == {0, 1, 2}, seed
        for _, connection in connections:
            more = connection["pageInfo"]["hasNextPage"]
            assert (connection["totalCount"] > len(connection["edges"])) == more
            assert all(e["node"]["__typename"] and e["cursor"] for e in connection["edges"])
        for role in ("primary", "secondary"):
            if shape.design.id_styles[role] == "global":
                for key in shape.design.stores[role].keys(state):
                    kind, number = base64.urlsafe_b64decode(key).decode().split(":")
                    assert re.fullmatch(r"[A-Z]\w*", kind) and number.isdigit()
    assert nested


def test_large_records_hold_statements_keyed_by_party_ids() -> None:
    for seed in _drawing("claims"):
        shape, state = _shape(seed)
        design = shape.design
        key, parties = design.spell(design.formats.claims or ""), set()
        parties = set(design.stores["secondary"].keys(state))
        records = design.stores["primary"].items(state)
        assert sum(len(json.dumps(r)) for _, r in records) / len(records) > 1500
        for ident, record in records:
            assert set(record[key]) <= parties
            for prop_id, statements in record[key].items():
                for statement in statements:
                    assert statement["id"].startswith(f"{ident}$")
                    assert statement["mainsnak"]["property"] == prop_id
                    assert all(
                        re.fullmatch("[0-9a-f]{40}", r["hash"]) for r in statement["references"]
                    )
