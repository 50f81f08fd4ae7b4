"""Links named only in a schema document, a class random zoo shapes draw
(``benchmarks/zoo/random_shapes/schema_links.py``): about two development seeds in ten, from a
generator of their own (the others keep their links' names); the links' references go by
names that say nothing of their target, a document of the drawn kind beside the collections
names every one; and where the seed takes searches as a PostgREST query string of filters, a
search answers exactly the records meeting the string as PostgREST means it (read here apart
from the tools' code)."""

from __future__ import annotations

import random
from typing import Any
from urllib.parse import unquote

import pytest

from benchmarks.zoo import make_shape
from benchmarks.zoo.kit import State
from benchmarks.zoo.random_shapes.design import draw
from benchmarks.zoo.random_shapes.filter_search import FilterSearch
from benchmarks.zoo.random_shapes.schema_links import draw_schema_links
from benchmarks.zoo.random_shapes.world import RandomShape
from mcp_sim.prompting.schema_documents import declared_links
from tests.fidelity.zoo_query_objects import at, holds

DEVELOPMENT = range(100)
PG_OPS = {"eq": "eq", "neq": "ne", "gte": "ge", "lte": "le", "in": "in", "like": "prefix"}


def _drawing() -> list[int]:
    return [s for s in DEVELOPMENT if draw_schema_links(s) is not None]


def _shape(seed: int, size: int = 60_000) -> tuple[RandomShape, State]:
    shape = make_shape(f"random-{seed}")
    assert isinstance(shape, RandomShape)
    return shape, shape.build(random.Random(seed), size)


def test_about_two_seeds_in_ten_draw_every_kind_of_document() -> None:
    drawn = [draw_schema_links(s) for s in _drawing()]
    assert 12 <= len(drawn) <= 30
    assert {d.document for d in drawn if d} == {"openapi", "jsonschema", "ddl"}
    assert {d.filters is None for d in drawn if d} == {True, False}
    # The others name a link's references by their targets, as before the class.
    plain = draw(next(s for s in DEVELOPMENT if s not in _drawing()))
    assert plain.schema_links is None
    singular = plain.domain.primary.singular
    assert singular.split("_")[0].lower() in plain.reference_key("primary").lower()


@pytest.mark.parametrize("seed", _drawing()[:8])
def test_the_document_names_each_link_the_links_hold(seed: int) -> None:
    shape, state = _shape(seed)
    design = shape.design
    links = design.schema_links
    assert links is not None and links.key in state
    names = {design.reference_key(r) for r in ("primary", "secondary")}
    assert not any(design.domain.primary.singular in n.lower() for n in names)
    link_table = design.stores["link"].at[-1]
    declared = {(t, c): target for t, c, target in declared_links({links.key: state[links.key]})}
    for role in ("primary", "secondary"):
        target = declared[(link_table, design.reference_key(role))]
        assert target == design.stores[role].at[-1]
    records = [r for _, r in design.stores["link"].items(state)]
    assert records and all(n in r for r in records for n in names)


def _meets(text: str, record: dict[str, Any]) -> bool:
    for part in text.split("&"):
        column, _, condition = part.partition("=")
        op, _, value = condition.partition(".")
        actual = at(record, column)
        wanted: Any = unquote(value)
        if op == "in":
            wanted = [type(actual)(v) if actual is not None else v for v in wanted[1:-1].split(",")]
        elif op == "like":
            wanted = wanted.rstrip("*")
        elif isinstance(actual, int | float) and op != "eq":
            wanted = float(wanted)
        if isinstance(actual, dict):  # a link's reference held as an object
            actual = actual.get("id")
        if not holds(PG_OPS[op], actual, wanted):
            return False
    return True


@pytest.mark.parametrize(
    "seed", [s for s in _drawing() if isinstance(_shape(s, 1)[0].code.search, FilterSearch)][:5]
)
def test_a_search_answers_the_records_meeting_its_filter_string(seed: int) -> None:
    shape, state = _shape(seed)
    rng = random.Random(seed)
    for search in shape.code.searches:
        assert isinstance(search, FilterSearch)
        if search.role != "primary":
            continue
        store = shape.design.stores[search.role]
        records = [r for _, r in store.items(state)]
        for _ in range(8):
            args = search.plan(rng, state)
            text = args[search.filters]
            meeting = [str(r[store.id_key]) for r in records if _meets(text, r)]
            _size, at_ = search._paging()
            start = int(args.get(at_, 0 if shape.design.surface.page != "page" else 1))
            answer, patch = search.run(state, args)
            shown = [str(r[store.id_key]) for r in search.hits(answer)]
            assert patch == [] and set(shown) <= set(meeting), (seed, text)
            assert shown or start, (seed, text)
