"""The calls random zoo shapes offer (``benchmarks/zoo/random_shapes``): every variant of every
kind of call (the lookups by id, code, email, of a link or in plain text; the searches with
ranges, prefixes, ``not`` and ``any of`` lists and pages; the joins in both directions, two
hops away and through arrays of ids; the aggregates; the empty answers) answers what the state
holds, checked here by reading the state directly; answers fit their output schemas; and the
same seed offers the same calls."""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from typing import Any

import jsonschema
import pytest

from benchmarks.zoo import generate, make_shape
from benchmarks.zoo.kit import State, dig
from benchmarks.zoo.random_shapes.design import Design
from benchmarks.zoo.random_shapes.offer import Offer
from benchmarks.zoo.random_shapes.surface import AGGREGATES, EMPTIES, JOINS, LOOKUPS
from benchmarks.zoo.random_shapes.world import RandomShape
from mcp_sim.spec.world import TOOL_NAME_PATTERN
from tests.fidelity.zoo_formats import VARIANTS as FORMAT_VARIANTS
from tests.fidelity.zoo_formats import check_format_call, holds

SEEDS = range(40)
"""Development seeds enough for every variant to show up (checked below)."""


def _shape(seed: int) -> tuple[RandomShape, State]:
    shape = make_shape(f"random-{seed}")
    assert isinstance(shape, RandomShape)
    return shape, shape.build(random.Random(seed), 60_000)


def test_the_seeds_checked_offer_every_variant() -> None:
    offered = {o.variant for s in SEEDS for os in _shape(s)[0].code.offers.values() for o in os}
    assert offered >= {*LOOKUPS, *JOINS, *AGGREGATES, *EMPTIES, "line", "link_search"}


def test_every_tool_of_a_seed_has_a_name_of_its_own() -> None:
    for seed in range(100):
        shape = make_shape(f"random-{seed}")
        assert isinstance(shape, RandomShape)
        tools = shape.tools()
        named = {t.name: t for t in tools}
        assert len(named) == len(tools), seed
        # Offers of one tool (a search and a search nothing meets) offer the same tool.
        offers = [o for os in shape.code.offers.values() for o in os]
        assert all(named[o.tool.name].spec() == o.tool.spec() for o in offers), seed
        assert all(re.fullmatch(TOOL_NAME_PATTERN, t.name) for t in tools), seed


def _field(design: Design, record: dict[str, Any], name: str) -> Any:
    field = next(f for f in design.domain.primary.fields if f.name == name)
    return dig(record, ".".join(design.path(field)))


def _records(shape: RandomShape, state: State, role: str) -> list[dict[str, Any]]:
    return [r for _, r in shape.design.stores[role].items(state)]


def _links(shape: RandomShape, state: State, role: str, key: Any) -> list[dict[str, Any]]:
    links = _records(shape, state, "link")
    return [r for r in links if shape.design.referred(role, r) == str(key)]


def _check_search(shape: RandomShape, state: State, offer: Offer, args: dict[str, Any]) -> None:
    search = next(s for s in shape.code.searches if s.name == offer.tool.name)
    answer, _ = search.run(state, args)
    args = search.parsed(args)
    items = search.hits(answer)
    assert items, args
    store = shape.design.stores[search.role]
    for item in items:
        record = store.get(state, str(item[store.id_key]))
        assert record is not None
        for constraint in search.constraints:
            if constraint.arg in args:
                assert holds(constraint.op, constraint.get(record), args[constraint.arg])
    if isinstance(answer, dict) and "total" in answer:
        assert answer["total"] >= len(items)


def _only(answer: dict[str, Any]) -> Any:
    """The one list an answer holds besides the argument it echoes."""
    return next(v for v in answer.values() if isinstance(v, list))


def _check_join(shape: RandomShape, state: State, offer: Offer, args: dict[str, Any]) -> None:
    design = shape.design
    (given,) = args.values()
    answer, _ = offer.tool.run(state, args)
    ids = {
        role: [str(item[design.stores[role].id_key]) for item in _only(answer)]
        for role in ("primary", "secondary")
        if offer.variant
        in {"primary": ("of_secondary", "listing"), "secondary": ("of_primary",)}[role]
    }
    if offer.variant == "of_secondary":
        linked = [design.referred("primary", r) for r in _links(shape, state, "secondary", given)]
        assert ids["primary"] == linked[:25]
    elif offer.variant == "of_primary":
        linked = [design.referred("secondary", r) for r in _links(shape, state, "primary", given)]
        assert ids["secondary"] == linked[:25]
    elif offer.variant == "listing":
        roster = design.roster_key or ""
        listing = [
            str(r[design.stores["primary"].id_key])
            for r in _records(shape, state, "primary")
            if str(given) in map(str, r[roster])
        ]
        assert ids["primary"] == listing[:25] and listing
    elif offer.variant == "roster":
        record = design.stores["primary"].get(state, str(given))
        assert record is not None
        party_id = design.stores["secondary"].id_key
        assert [str(p[party_id]) for p in answer] == [
            str(i) for i in record[design.roster_key or ""]
        ]
    else:
        start = "primary" if shape.code.id_arg in args else "secondary"
        _check_two_hop(shape, state, answer, given, start)


def _check_two_hop(shape: RandomShape, state: State, answer: Any, given: Any, start: str) -> None:
    """Two hops: the distinct values of a field of the records at the links' far end."""
    design = shape.design
    values = _only(answer)
    assert values == sorted(set(values)) and values
    end = "secondary" if start == "primary" else "primary"
    far = [
        design.stores[end].get(state, design.referred(end, r))
        for r in _links(shape, state, start, given)
    ]
    held = {json.dumps(v) for record in far for v in _scalars(record)}
    assert {json.dumps(v) for v in values} <= held


def _scalars(record: Any) -> list[Any]:
    if isinstance(record, dict):
        return [v for value in record.values() for v in _scalars(value)]
    if isinstance(record, list):
        return [v for value in record for v in _scalars(value)]
    return [record]


def _check_aggregate(shape: RandomShape, state: State, offer: Offer, args: dict[str, Any]) -> None:
    design, answer = shape.design, offer.tool.run(state, args)[0]
    primaries = _records(shape, state, "primary")
    fields = design.domain.primary.fields
    categories = [f.name for f in fields if f.kind == "category"]
    if offer.variant == "stats":
        (value,) = args.values()
        chosen = [r for r in primaries if _field(design, r, categories[0]) == value]
        if "count" in design.surface.stats_ops:
            assert answer[design.spell("count")] == len(chosen)
        first = next(f for f in fields if f.numeric).name
        numbers = [_field(design, r, first) for r in chosen]
        total = design.spell(f"total_{first}")
        if total in answer and numbers:
            assert answer[total] == pytest.approx(sum(n for n in numbers if n is not None))
    elif offer.variant == "per_value":
        (counts,) = answer.values()
        within = [
            r for r in primaries if not args or _field(design, r, categories[0]) in args.values()
        ]
        wanted = Counter(_field(design, r, categories[-1]) for r in within)
        assert counts == {k: n for k, n in wanted.items() if k is not None}
    elif offer.variant == "distinct":
        (values,) = answer.values()
        everywhere = {json.dumps(v) for r in primaries for v in _scalars(r)}
        assert values == sorted(set(values)) and {json.dumps(v) for v in values} <= everywhere
        assert len(values) >= 2
    elif offer.variant == "top":
        field = [f for f in fields if f.numeric][-1].name
        present = sorted(v for r in primaries if (v := _field(design, r, field)) is not None)
        shown = [
            item[design.path(next(f for f in fields if f.name == field))[-1]] for item in answer
        ]
        ascending = "asc" in args.values()
        assert shown == (present if ascending else present[::-1])[: len(shown)]
        assert len(shown) == min(len(present), max(v for v in args.values() if isinstance(v, int)))
    else:
        (given,) = args.values()
        count = design.spell(f"{design.domain.link.singular}_count")
        assert answer[count] == len(_links(shape, state, "secondary", given)) > 0


def _check_lookup(shape: RandomShape, state: State, offer: Offer, args: dict[str, Any]) -> None:
    design = shape.design
    answer, _ = offer.tool.run(state, args)
    given = list(args.values())
    if offer.variant == "text":
        assert isinstance(answer, str) and str(given[0]) in answer
        with pytest.raises(json.JSONDecodeError):
            json.loads(answer)
        return
    if offer.variant == "calendar":
        assert answer[design.spell("date")] == given[1]
        return
    if offer.variant == "line":
        assert given[1] in answer.values()
        return
    if offer.variant == "range":  # its cells: test_world_zoo_random_header_rows
        assert answer["range"] == given[0] and answer["values"]
        return
    role = {"by_email": "secondary", "link": "link"}.get(offer.variant, "primary")
    if offer.variant == "id" and design.surface.record_wrap:
        (answer,) = answer.values()
    if offer.variant in ("by_code", "by_email"):
        assert given[0] in answer.values()
    else:
        assert str(answer[design.stores[role].id_key]) == str(given[0])
    assert design.stores[role].get(state, str(answer[design.stores[role].id_key])) == answer


CHECKS = {
    "lookup": _check_lookup,
    "nested_lookup": _check_lookup,
    "search": _check_search,
    "join": _check_join,
    "aggregate": _check_aggregate,
}


@pytest.mark.parametrize("seed", SEEDS)
def test_every_offered_call_answers_what_the_state_holds(seed: int) -> None:
    shape, state = _shape(seed)
    rng = random.Random(seed)
    for kind, offers in shape.code.offers.items():
        for offer in offers:
            for _ in range(3):
                args = offer.plan(rng, state)
                if offer.variant.startswith(("request_", "sub_")):
                    # Checked against oracles of their own: test_world_zoo_random_aggregations.
                    continue
                if offer.variant in FORMAT_VARIANTS:
                    check_format_call(shape, state, offer, args)
                    continue
                if kind == "empty":
                    answer, _ = offer.tool.run(state, args)
                    if offer.variant == "no_match":
                        assert shape.code.search.hits(answer) == [], args
                        continue
                    assert answer in (None, [], {}) or _only(answer) == [], (offer.variant, args)
                    continue
                CHECKS[kind](shape, state, offer, args)


@pytest.mark.parametrize("seed", SEEDS[:12])
def test_answers_fit_the_output_schemas_and_the_seed_decides_everything(seed: int) -> None:
    spec, calls = generate(f"random-{seed}", 0.06, seed=2, episodes=8)
    assert (spec, calls) == generate(f"random-{seed}", 0.06, seed=2, episodes=8)
    schemas = {t["name"]: t.get("output_schema") for t in spec["tools"]}
    for call in calls:
        if schemas[call["tool"]] is not None and not call["is_error"]:
            jsonschema.validate(json.loads(call["response"]), schemas[call["tool"]])
    assert not any(c["is_error"] for c in calls)


def test_some_seeds_declare_output_schemas_and_answer_in_text_or_null() -> None:
    specs = [generate(f"random-{s}", 0.04, seed=2, episodes=6) for s in SEEDS[:20]]
    assert any(t.get("output_schema") for spec, _ in specs for t in spec["tools"])
    responses = {c["response"] for _, calls in specs for c in calls}
    assert {"null", "{}", "[]"} <= responses
    assert any(r and r[0] not in "[{" and r != "null" for r in responses)
