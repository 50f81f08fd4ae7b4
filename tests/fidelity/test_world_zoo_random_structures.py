"""Structures random zoo shapes draw apart from their layout
(``benchmarks/zoo/random_shapes/structures.py``): collections of several kinds in one
mixed-type array told apart by a type field (``mixed.py``), ids the same across kinds, and
typed references. A seed that draws one stores its records so, yet every call answers what
the same records laid out one collection to an array answer, a write patches the stored form
so that reading it back reads what was written, and a seed that draws none is as it was."""

from __future__ import annotations

import copy
import hashlib
import json
import random
from collections import Counter
from dataclasses import replace

import jsonpatch
import pytest

from benchmarks.zoo import make_shape
from benchmarks.zoo.kit import State
from benchmarks.zoo.random_shapes.design import Design, draw
from benchmarks.zoo.random_shapes.formats import Formats
from benchmarks.zoo.random_shapes.mixed import FRAMES
from benchmarks.zoo.random_shapes.reshaping import Reshaping
from benchmarks.zoo.random_shapes.structures import SPELLINGS, TYPED_REFERENCES
from benchmarks.zoo.random_shapes.world import RandomShape
from tests.fidelity.zoo_structures import check_typed_references, mixed_records

DEVELOPMENT = range(100)
UNCHANGED = {
    15: ("3937e1692858886b", "0f9f97f76092d28f"),
    19: ("31c113594dcbd259", "d59d39647062d494"),
    23: ("9ab7492b20a8ec49", "41ddd1ce2aa20745"),
    80: ("44047740808b2889", "d7246da7251562de"),
    84: ("a2a75e53f1bf7825", "49826f001258bbc7"),
    92: ("3632234792524727", "73d092501e00a2ff"),
}
"""Digests of seeds that draw no structure (state of 30 kB, tool specs) before structures
were drawn (mixed arrays and typed references, then list envelopes, parents, property lists
and deep ids: ``reshaping.py``): they stay byte-identical. Some now split their links into
partitions (drawn last, from a generator of their own): without them, they are as they were."""
MARKS = {
    "jsonapi": ('"data": [{"type": ', '"included": [{"type": ', '"relationships": {"'),
    "bundle": ('{"resourceType": "Bundle", "type": "collection", "entry": [{"fullUrl": ',),
    "list": ('{"apiVersion": "v1", "kind": "List"', '"metadata": {"name": '),
    "single_table": ('[{"PK": ', '"SK": '),
    "tagged": (),
}
"""Text a state holds where the seed draws each frame."""


def _seed(test: object) -> int:
    """The first seed whose design passes ``test``, of those keeping no workbook (whose sheets
    hold every collection, whatever structure the seed draws: :mod:`.header_rows`)."""
    return next(
        s
        for s in DEVELOPMENT
        if test(draw(s)) and not _book(s)  # type: ignore[operator]
    )


def _book(seed: int) -> bool:
    text = draw(seed).formats.text
    return text is not None and bool(text.book)


def _frame_seeds(encoding: str | None) -> list[int]:
    """The first seed of each frame, its records encoded ``encoding`` (none: as drawn)."""
    frames = {s: draw(s, encoding).structure.frame for s in DEVELOPMENT}
    seeds = [next(s for s, f in frames.items() if f == frame and not _book(s)) for frame in FRAMES]
    assert len(seeds) == len(FRAMES)
    return seeds


def _apart(design: Design) -> RandomShape:
    """The seed's design with each mixed collection in an array of its own."""
    stores = {
        role: replace(s, container="array", mixed=None) if s.mixed else s
        for role, s in design.stores.items()
    }
    return RandomShape(replace(design, stores=stores))


def _twins(seed: int, encoding: str | None) -> tuple[RandomShape, State, RandomShape, State]:
    mixed = RandomShape(draw(seed, encoding))
    apart = _apart(mixed.design)
    apart_state, state = apart.build(random.Random(seed), 40_000), State()
    for role, store in mixed.design.stores.items():
        store.place(state)
        for _, record in apart.design.stores[role].items(apart_state):
            store.append(state, copy.deepcopy(record))
    return apart, apart_state, mixed, state


def _decoded(shape: RandomShape, state: State) -> dict[str, list[object]]:
    return {role: [r for _, r in s.items(state)] for role, s in shape.design.stores.items()}


def test_about_a_third_of_the_seeds_draw_each_structure() -> None:
    structures = [draw(s).structure for s in DEVELOPMENT]
    assert 20 <= sum(s.frame is not None for s in structures) <= 45
    assert 20 <= sum(s.reference is not None for s in structures) <= 45
    assert {s.frame for s in structures} == {None, *FRAMES}
    assert {s.reference for s in structures} == {None, *TYPED_REFERENCES}
    assert {s.spelling for s in structures} == set(SPELLINGS)
    assert Counter(s.collide for s in structures if s.frame)[True] >= 5
    assert {len(s.roles) for s in structures if s.frame} == {2, 3}
    shape = make_shape("random-5")
    assert isinstance(shape, RandomShape)
    # (Seed 5 holds its records under composite keys, so in no mixed array, and draws no
    # markup bodies: :mod:`.record_holding`.)
    drawn = "references collection, envelopes stripe at root"
    assert shape.structure == f"{drawn}, pairs tags, relay, query q"


@pytest.mark.parametrize("seed", sorted(UNCHANGED))
def test_a_seed_that_draws_no_structure_is_as_it_was(seed: int) -> None:
    drawn = draw(seed).reshaping
    assert drawn == Reshaping(partitions=drawn.partitions, markup=drawn.markup)
    shape = RandomShape(draw(seed, reshaping=Reshaping(), formats=Formats()))
    assert shape.design.drawn == "none"
    state = json.dumps(shape.build(random.Random(seed), 30_000)).encode()
    specs = json.dumps([t.spec() for t in shape.tools()]).encode()
    digests = (hashlib.sha256(state).hexdigest()[:16], hashlib.sha256(specs).hexdigest()[:16])
    assert digests == UNCHANGED[seed]


@pytest.mark.parametrize("frame", FRAMES)
def test_a_mixed_array_holds_several_kinds_told_apart_by_type(frame: str) -> None:
    seed = _seed(lambda d: d.structure.frame == frame)
    shape = RandomShape(draw(seed, "plain"))
    state = shape.build(random.Random(seed), 60_000)
    text = json.dumps(state)
    assert all(mark in text for mark in MARKS[frame]), frame
    mixed = [s for s in shape.design.stores.values() if s.mixed is not None]
    assert len(mixed) >= 2 and len({s.mixed.place for s in mixed if s.mixed}) == 1
    assert len({s.mixed.type_name for s in mixed if s.mixed}) == len(mixed)
    for store in mixed:
        assert store.mixed is not None
        box: object = state
        for part in store.mixed.place:
            box = box[part]  # type: ignore[index]
        held = mixed_records(box, store.mixed)
        decoded = [r for _, r in store.items(state)]
        less_id = [r if store.mixed.whole else {**r} for r in decoded]
        for record in less_id:
            if not store.mixed.whole:
                record.pop(store.id_key)
        assert held == less_id and held


def test_ids_may_be_the_same_in_two_kinds() -> None:
    seed = _seed(lambda d: d.structure.collide and d.structure.frame)
    shape = RandomShape(draw(seed))
    state = shape.build(random.Random(seed), 60_000)
    roles = shape.design.structure.roles
    keys = [set(shape.design.stores[role].keys(state)) for role in roles]
    assert set.intersection(*keys)
    for role in roles:
        key = next(iter(set.intersection(*keys)))
        found = shape.design.stores[role].get(state, key)
        assert found is not None and set(found) == set(shape.design.stores[role].items(state)[0][1])


@pytest.mark.parametrize("encoding", [None, "plain", "dynamodb", "mongodb", "xmltodict"])
def test_every_call_on_a_mixed_array_answers_as_the_collections_apart(
    encoding: str | None,
) -> None:
    seeds = _frame_seeds(encoding)
    for seed in seeds:
        apart, apart_state, mixed, state = _twins(seed, encoding)
        assert _decoded(mixed, state) == _decoded(apart, apart_state)
        for kind, offers in apart.code.offers.items():
            for offer, twin in zip(offers, mixed.code.offers[kind], strict=True):
                rng, twin_rng = random.Random(seed), random.Random(seed)
                for _ in range(3):
                    args = offer.plan(rng, apart_state)
                    assert twin.plan(twin_rng, state) == args
                    assert twin.tool.run(state, args) == offer.tool.run(apart_state, args)


@pytest.mark.parametrize("encoding", [None, "plain", "dynamodb", "xmltodict"])
def test_a_write_patches_the_mixed_array_and_reads_back(encoding: str | None) -> None:
    seeds = _frame_seeds(encoding)
    for seed in seeds:
        apart, apart_state, mixed, state = _twins(seed, encoding)
        rng = random.Random(seed)
        tools = {t.name: t for t in mixed.tools()}
        for _ in range(4):
            write, read = mixed.write(rng, state)
            answer, patch = tools[write.tool].run(state, write.arguments)
            jsonpatch.apply_patch(state, patch, in_place=True)
            done = {t.name: t for t in apart.tools()}[write.tool].run(apart_state, write.arguments)
            jsonpatch.apply_patch(apart_state, done[1], in_place=True)
            assert answer == done[0]
            back, _ = tools[read.tool].run(state, read.arguments)
            slots = {k: v for k, v in write.arguments.items() if k not in read.arguments}
            assert set(map(json.dumps, slots.values())) <= set(map(json.dumps, back.values()))
            assert _decoded(mixed, state) == _decoded(apart, apart_state)


@pytest.mark.parametrize("style", TYPED_REFERENCES)
def test_typed_references_name_the_type_and_an_id_the_tools_take_plain(style: str) -> None:
    seed = _seed(lambda d: d.reference == style)
    shape = RandomShape(draw(seed))
    design = shape.design
    state = shape.build(random.Random(seed), 60_000)
    links = [r for _, r in design.stores["link"].items(state)]
    for role in ("primary", "secondary"):
        check_typed_references(design, role, [link[design.reference_key(role)] for link in links])
        ids = set(design.stores[role].keys(state))
        assert {design.referred(role, link) for link in links} <= ids
    for offer in shape.code.offers["join"]:
        args = offer.plan(random.Random(seed), state)
        plain = [v for v in args.values() if isinstance(v, str)]
        assert not any("/" in v or ":" in v for v in plain), args
        offer.tool.run(state, args)
