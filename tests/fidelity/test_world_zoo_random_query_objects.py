"""Searches taking a nested query object, a class random zoo shapes draw
(``benchmarks/zoo/random_shapes/query_objects.py``): drawn by a fifth to a third of the
development seeds in several families and spellings; a search answers exactly the records
meeting the object as its family means it (read here apart from the tools' code:
:mod:`tests.fidelity.zoo_query_objects`), a page of them, in the family's answer form; an
object reads back as the terms it was written from; and a seed draws the same every time."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from benchmarks.zoo import make_shape
from benchmarks.zoo.kit import State, ToolError
from benchmarks.zoo.random_shapes.design import draw
from benchmarks.zoo.random_shapes.object_search import ObjectSearch
from benchmarks.zoo.random_shapes.query_object_parsing import parse
from benchmarks.zoo.random_shapes.query_objects import FAMILIES, QueryStyle, Term, render
from benchmarks.zoo.random_shapes.searches import RandomSearch
from benchmarks.zoo.random_shapes.world import RandomShape
from tests.fidelity.zoo_query_objects import meets_query

DEVELOPMENT = range(100)


def _drawing() -> list[int]:
    return [s for s in DEVELOPMENT if draw(s).formats.objects is not None]


def _shape(seed: int, size: int = 60_000) -> tuple[RandomShape, State]:
    shape = make_shape(f"random-{seed}")
    assert isinstance(shape, RandomShape)
    return shape, shape.build(random.Random(seed), size)


def test_a_fifth_to_a_third_of_the_seeds_draw_query_objects_of_several_families() -> None:
    styles = [draw(s).formats.objects for s in _drawing()]
    assert 20 <= len(styles) <= 35
    drawn = [s for s in styles if s is not None]
    assert len({s.family for s in drawn}) >= 6
    assert len({s.arg for s in drawn}) >= 5 and {s.joined for s in drawn} == {True, False}
    # Seeds taking a query string keep it; the others' searches are as they were.
    assert all(draw(s).formats.query is None for s in _drawing())
    plain = next(s for s in DEVELOPMENT if s not in _drawing())
    assert type(RandomShape(draw(plain)).code.search) is RandomSearch


def _page(search: ObjectSearch, args: dict[str, Any]) -> tuple[Any, int, int]:
    """The object, where the page starts and its size, read from the call's arguments."""
    style = search.style
    held = args[style.arg]
    paging = held if style.body else args
    size, at = style.paging
    count = min(int(paging.get(size, search.limit)), search.limit)
    return held, int(paging.get(at, 0)), count


@pytest.mark.parametrize("seed", _drawing()[:10])
def test_a_search_answers_the_records_meeting_its_query_object(seed: int) -> None:
    shape, state = _shape(seed)
    rng = random.Random(seed)
    for search in shape.code.searches:
        assert isinstance(search, ObjectSearch)
        store = shape.design.stores[search.role]
        records = [r for _, r in store.items(state)]
        for _ in range(8):
            args = search.plan(rng, state)
            assert set(args) <= {search.style.arg, *search.style.paging}
            held, start, count = _page(search, args)
            meeting = [r for r in records if meets_query(search.style, held, r)]
            answer, patch = search.run(state, args)
            assert patch == []
            shown = search.hits(answer)
            wanted = [str(r[store.id_key]) for r in meeting[start : start + count]]
            assert [str(r[store.id_key]) for r in shown] == wanted, (seed, held)
            assert shown or start, (seed, held)
            if isinstance(answer, dict) and "total" in json.dumps(answer):
                total = answer.get("total") or answer["hits"]["total"]["value"]
                assert total == len(meeting)


def test_a_search_nothing_meets_answers_no_records() -> None:
    for seed in _drawing()[:6]:
        shape, state = _shape(seed)
        search = shape.code.search
        offer = next(o for o in shape.code.offers["empty"] if o.variant == "no_match")
        args = offer.plan(random.Random(seed), state)
        assert search.hits(offer.tool.run(state, args)[0]) == []


TERMS: list[Term] = [
    (("details", "hull"), "eq", "sloop"),
    (("flag",), "ne", "NO"),
    (("rig",), "in", ["ketch", "yawl"]),
    (("details", "length_m"), "ge", 12),
    (("details", "length_m"), "le", 40.5),
    (("name",), "prefix", "Sea B.("),
]


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("joined", [False, True])
def test_an_object_reads_back_as_the_terms_it_was_written_from(family: str, joined: bool) -> None:
    for spelling in range(3):
        style = QueryStyle(family, "q", joined, spelling)
        held = render(style, TERMS)
        assert sorted(map(repr, parse(style, json.loads(json.dumps(held))))) == sorted(
            map(repr, TERMS)
        )
        record = {"details": {"hull": "sloop", "length_m": 20}, "flag": "SE", "rig": "ketch"}
        assert meets_query(style, held, record | {"name": "sea b.(x"})
        assert not meets_query(style, held, record | {"name": "Sea Bx"})


def test_an_unknown_clause_is_an_error() -> None:
    with pytest.raises(ToolError):
        parse(QueryStyle("elastic", "body"), {"query": {"bool": {"filter": [{"fuzzy": {"a": 1}}]}}})
    with pytest.raises(ToolError):
        parse(QueryStyle("mongo", "filter"), {"price": {"$where": "1"}})


def test_a_seed_draws_and_plans_the_same_every_time() -> None:
    seed = _drawing()[0]
    assert draw(seed) == draw(seed)
    (one, state), (two, _) = _shape(seed, 30_000), _shape(seed, 30_000)
    assert [t.spec() for t in one.tools()] == [t.spec() for t in two.tools()]
    plans = [s.plan(random.Random(3), state) for s in (one.code.search, two.code.search)]
    assert plans[0] == plans[1]
