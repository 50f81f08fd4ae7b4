"""Aggregations asked through a family's request (``benchmarks/zoo/random_shapes/
aggregation_requests.py``), a class random zoo shapes draw: drawn by a fifth to a third of the
development seeds, in several families; a call answers what the family's own engine answers
(SQL and SOQL run by SQLite, the others by a plain loop reading the request as the family means
it: :mod:`tests.fidelity.zoo_aggregations`); a request reads back as it was written; a seed
draws the same every time, and a seed that draws none offers what it did. And records holding
sub-items (``sub_items.py``), drawn apart: a summary counts the sub-items meeting every
constraint at once, not the records meeting each through a different sub-item."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from benchmarks.zoo import make_shape
from benchmarks.zoo.kit import State, ToolError
from benchmarks.zoo.random_shapes.aggregation_offers import AggregationOffers
from benchmarks.zoo.random_shapes.aggregation_parsing import parse
from benchmarks.zoo.random_shapes.aggregation_requests import AggStyle
from benchmarks.zoo.random_shapes.aggregation_writing import write
from benchmarks.zoo.random_shapes.design import draw
from benchmarks.zoo.random_shapes.sub_item_offers import SubItemOffers
from benchmarks.zoo.random_shapes.world import RandomShape
from tests.fidelity.zoo_aggregations import elastic, hasura, mongo, prisma, same, sqlite_rows

DEVELOPMENT = range(100)


def _drawing() -> list[int]:
    return [s for s in DEVELOPMENT if draw(s).formats.requests is not None]


def _shape(seed: int, size: int = 80_000) -> tuple[RandomShape, State]:
    shape = make_shape(f"random-{seed}")
    assert isinstance(shape, RandomShape)
    return shape, shape.build(random.Random(seed), size)


def test_a_fifth_to_a_third_of_the_seeds_draw_aggregation_requests_of_every_family() -> None:
    styles = [draw(s).formats.requests for s in _drawing()]
    assert 20 <= len(styles) <= 35
    assert {s.family for s in styles if s is not None} == {
        "elastic", "mongo", "hasura", "prisma", "sql", "soql"
    }  # fmt: skip
    for seed in DEVELOPMENT[:40]:
        variants = {o.variant for o in RandomShape(draw(seed)).code.offers["aggregate"]}
        drawn = any(v.startswith("request_") for v in variants)
        assert drawn == (seed in _drawing())


def _rows(shape: RandomShape, state: State, made: AggregationOffers) -> list[dict[str, Any]]:
    """The records as a table: a column per field, by its written name."""
    read = shape.code.read
    return [
        {w: read.value(r, f) for f, w in made.columns.written.items()}
        for r in read.records(state, "primary")
    ]


def _expected(style: AggStyle, args: dict[str, Any], shape: RandomShape, state: State,
              made: AggregationOffers) -> Any:  # fmt: skip
    records = shape.code.read.records(state, "primary")
    held = args[style.arg]
    if style.family == "elastic":
        return elastic(held, records)
    if style.family == "mongo":
        return mongo(held, records)
    rows = _rows(shape, state, made)
    if style.family == "hasura":
        return hasura(held, args["variables"]["where"], rows)
    if style.family == "prisma":
        return prisma(held, rows)
    return sqlite_rows(held, made.columns.table, rows)


def _shown(style: AggStyle, answer: Any, table: str) -> Any:
    """What of the tool's answer the oracle computes, in the oracle's form."""
    family = style.family
    if family == "elastic":
        return answer["hits"]["total"]["value"], answer["aggregations"]
    if family == "mongo":
        return answer["documents"] if isinstance(answer, dict) else answer
    if family == "hasura":
        return answer["data"][f"{table}_aggregate"]["aggregate"]
    if family == "prisma":
        return answer
    if family == "soql":
        records = answer["records"]
        assert all(r.pop("attributes") == {"type": "AggregateResult"} for r in records)
        assert answer["totalSize"] == len(records)
        return [list(r.values()) for r in records]
    if isinstance(answer, dict):
        return answer["columns"], answer["rows"]
    return [list(r.values()) for r in answer]


def _doubles(text: str, rows: list[list[Any]]) -> list[list[Any]]:
    """SOQL's rows: its figures (all but counts) are doubles."""
    chosen = text.removeprefix("SELECT ").split(" FROM ")[0].split(", ")
    counts = [item.startswith("COUNT") or "(" not in item for item in chosen]
    return [
        [v if c or v is None else float(v) for v, c in zip(r, counts, strict=True)] for r in rows
    ]


@pytest.mark.parametrize("seed", _drawing())
def test_a_request_is_answered_as_the_family_answers_it(seed: int) -> None:
    shape, state = _shape(seed)
    style = shape.design.formats.requests
    assert style is not None
    made = AggregationOffers(shape.code.read, style)
    rng = random.Random(seed)
    offers = [o for o in shape.code.offers["aggregate"] if o.variant.startswith("request_")]
    for offer in offers:
        for _ in range(6):
            args = json.loads(json.dumps(offer.plan(rng, state)))
            answer, patch = offer.tool.run(state, args)
            assert patch == []
            expected = _expected(style, args, shape, state, made)
            shown = _shown(style, json.loads(json.dumps(answer)), made.columns.table)
            if style.family == "soql":
                expected = _doubles(args[style.arg], expected[1])
            elif style.family == "sql" and not style.wrapped:
                expected = expected[1]
            assert same(shown if not isinstance(shown, tuple) else list(shown),
                        expected if not isinstance(expected, tuple) else list(expected)), (
                seed, args, shown, expected
            )  # fmt: skip


@pytest.mark.parametrize("seed", _drawing()[:12])
def test_a_request_reads_back_as_it_was_written(seed: int) -> None:
    shape, state = _shape(seed, 40_000)
    style = shape.design.formats.requests
    assert style is not None
    made = AggregationOffers(shape.code.read, style)
    rng = random.Random(7)
    for kind in ("totals", "grouped", "histogram"):
        if kind == "histogram" and not (style.family == "elastic" and made.dates):
            continue
        if kind == "grouped" and not style.grouping:
            continue
        for _ in range(5):
            request = made.request(rng, state, kind)
            args = json.loads(json.dumps(write(style, request, made.columns)))
            assert parse(style, args, made.columns) == request


def test_grouped_buckets_are_cut_at_the_size_and_the_rest_counted() -> None:
    seed = next(s for s in _drawing() if draw(s).formats.requests.family == "elastic")  # type: ignore[union-attr]
    shape, state = _shape(seed)
    style = shape.design.formats.requests
    assert style is not None
    made = AggregationOffers(shape.code.read, style)
    by = made.groupable[0]
    body = {"size": 0, "aggs": {"g": {"terms": {"field": made.columns.written[by], "size": 1}}}}
    tool = next(o.tool for o in shape.code.offers["aggregate"] if o.variant == "request_grouped")
    answer, _ = tool.run(state, {style.arg: body})
    held = answer["aggregations"]["g"]
    total = answer["hits"]["total"]["value"]
    assert len(held["buckets"]) == 1 and held["buckets"][0]["doc_count"] < total
    assert held["buckets"][0]["doc_count"] + held["sum_other_doc_count"] == total


def test_an_unknown_clause_is_an_error() -> None:
    for seed in _drawing()[:8]:
        shape, _ = _shape(seed, 20_000)
        style = shape.design.formats.requests
        assert style is not None
        made = AggregationOffers(shape.code.read, style)
        bad: Any = {
            "elastic": {"aggs": {"x": {"percentiles": {"field": "a"}}}},
            "mongo": [{"$lookup": {}}],
            "hasura": "query { nothing }",
            "prisma": {"by": ["no_such_field"]},
            "sql": "DELETE FROM t",
            "soql": "SELECT Id FROM",
        }[style.family]
        with pytest.raises(ToolError):
            parse(style, {style.arg: bad, "variables": {}}, made.columns)


def test_a_seed_draws_and_plans_the_same_every_time() -> None:
    seed = _drawing()[0]
    assert draw(seed) == draw(seed)
    (one, state), (two, _) = _shape(seed, 30_000), _shape(seed, 30_000)
    assert [t.spec() for t in one.tools()] == [t.spec() for t in two.tools()]
    for a, b in zip(one.code.offers["aggregate"], two.code.offers["aggregate"], strict=True):
        assert a.plan(random.Random(3), state) == b.plan(random.Random(3), state)


def _sub_drawing() -> list[int]:
    return [s for s in DEVELOPMENT if draw(s).formats.sub_items is not None]


def test_a_fifth_to_a_third_of_the_seeds_hold_sub_items_apart_from_the_requests() -> None:
    drawing = _sub_drawing()
    assert 20 <= len(drawing) <= 35
    assert 3 <= len(set(drawing) & set(_drawing())) < len(drawing)
    assert len({draw(s).formats.sub_items.key for s in drawing}) >= 4  # type: ignore[union-attr]
    for seed in (drawing[0], next(s for s in DEVELOPMENT if s not in drawing)):
        shape, state = _shape(seed, 20_000)
        style = shape.design.formats.sub_items
        key = shape.design.spell(style.key) if style else None
        held = [key in r for r in shape.code.read.records(state, "primary")]
        assert all(held) if style else not any(held)


def _items(shape: RandomShape, record: dict[str, Any]) -> list[dict[str, Any]]:
    style = shape.design.formats.sub_items
    assert style is not None
    found: list[dict[str, Any]] = record[shape.design.spell(style.key)]
    return found


@pytest.mark.parametrize("seed", _sub_drawing()[:12])
def test_a_sub_item_summary_counts_the_sub_items_meeting_every_constraint(seed: int) -> None:
    shape, state = _shape(seed)
    style, design, read = shape.design.formats.sub_items, shape.design, shape.code.read
    assert style is not None
    first, second, count = (design.spell(n) for n in (style.first, style.second, style.count))
    price = design.spell(style.price)
    records = read.records(state, "primary")
    offers = {o.variant: o for o in shape.code.offers["aggregate"]}
    rng, per_record_differs = random.Random(seed), False
    for _ in range(10):
        tally = offers["sub_tally"]
        args = tally.plan(rng, state)
        x, y = args.values()
        answer, _ = tally.tool.run(state, args)
        both = [[i for i in _items(shape, r) if i[first] == x and i[second] == y] for r in records]
        figures = list(answer.values())[2:]
        assert figures == [sum(map(len, both)), sum(1 for b in both if b),
                           sum(i[count] for b in both for i in b)]  # fmt: skip
        loose = sum(
            1 for r in records
            if any(i[first] == x for i in _items(shape, r)) and any(i[second] == y for i in _items(shape, r))
        )  # fmt: skip
        per_record_differs |= loose != figures[1]
        party = offers["sub_party_total"]
        args = party.plan(rng, state)
        who, x, least = args.values()
        linked = dict.fromkeys(
            design.referred("primary", link) for link in read.records(state, "link")
            if design.referred("secondary", link) == str(who)
        )  # fmt: skip
        answer, _ = party.tool.run(state, args)
        mine = [(k, [i for i in _items(shape, read.record(state, "primary", k))
                     if i[first] == x and i[price] >= least]) for k in linked]  # fmt: skip
        *_, n, total, holding = answer.values()
        assert (n, total) == (
            sum(len(m) for _, m in mine),
            sum(i[count] for _, m in mine for i in m),
        )
        assert [str(h) for h in holding] == [k for k, m in mine if m]
    assert per_record_differs, seed


def test_constraints_on_one_sub_item_are_not_met_by_two() -> None:
    seed = _sub_drawing()[0]
    shape = RandomShape(draw(seed))
    style = shape.design.formats.sub_items
    assert style is not None
    spell = shape.design.spell
    first, second = spell(style.first), spell(style.second)
    x, other_x = style.first_values[:2]
    y, other_y = style.second_values[:2]
    split = {spell(style.key): [{first: x, second: other_y}, {first: other_x, second: y}]}
    whole = {spell(style.key): [{first: x, second: y}, {first: x, second: y}]}
    tally = next(o for o in shape.code.offers["aggregate"] if o.variant == "sub_tally")
    made = SubItemOffers(shape.code.read, style)
    made.read.records = lambda state, role: [split, whole, split]  # type: ignore[method-assign]
    answer, _ = made.tally().tool.run({}, dict(zip(tally.tool.required, (x, y), strict=True)))
    assert list(answer.values())[2:4] == [2, 1]
