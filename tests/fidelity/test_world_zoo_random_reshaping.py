"""Record structures random zoo shapes draw apart from their layout
(``benchmarks/zoo/random_shapes/reshaping.py``): list envelopes around collections, records
kept inside a few parent records, records whose fields are a property list, ids held deep
inside records, and links split into partitions by month or shard. A seed that draws one stores its records so, read as the format defines them;
every call answers what the same records laid out plainly answer (with the parent's id as
context, where records have parents), and a write patches the stored form so that reading it
back reads what was written."""

from __future__ import annotations

import copy
import json
import random
import re
from dataclasses import replace
from typing import Any

import jsonpatch
import pytest

from benchmarks.zoo.kit import State
from benchmarks.zoo.random_shapes.design import draw
from benchmarks.zoo.random_shapes.envelopes import STYLES
from benchmarks.zoo.random_shapes.formats import Formats
from benchmarks.zoo.random_shapes.parents import Parents
from benchmarks.zoo.random_shapes.partitions import STYLES as PARTITION_STYLES
from benchmarks.zoo.random_shapes.property_lists import DEEP_IDS, LISTINGS, RecordForm
from benchmarks.zoo.random_shapes.reshaping import Reshaping
from benchmarks.zoo.random_shapes.world import RandomShape
from tests.fidelity.zoo_reshaping import (
    ENVELOPE_MARKS,
    deep_id,
    enveloped_records,
    listed_fields,
)

PLAIN = (0, 10, 15, 19)
"""Plain seeds of no mixed array (each collection apart; containers of every kind, calendars
kept both ways), on which each structure is drawn by hand."""
FORCED = [
    Reshaping(envelope="scim", at_root=True),
    Reshaping(parent=("account", "accounts")),
    Reshaping(listing="one_key", nested=True, roles=("primary", "secondary")),
    Reshaping(listing="tuple", kept=0.5, deep="listed", roles=("primary", "link")),
    Reshaping(listing="key_value", kept=0.3, roles=("link",)),
    Reshaping(deep="identifier", roles=("primary", "secondary")),
    Reshaping(envelope="hal", parent=("team", "teams"), deep="xrefs", roles=("primary",)),
    Reshaping(partitions="month"),
    Reshaping(partitions="nested"),
    Reshaping(partitions="shard"),
]


def _strip(value: Any, keys: set[str]) -> Any:
    if isinstance(value, dict):
        return {k: _strip(v, keys) for k, v in value.items() if k not in keys}
    if isinstance(value, list):
        return [_strip(v, keys) for v in value]
    return value


def _unordered(value: Any) -> Any:
    """``value`` with every list sorted: links split into partitions are answered in their
    partitions' order, as a service reading its files in turn answers them."""
    if isinstance(value, dict):
        return {k: _unordered(v) for k, v in value.items()}
    if isinstance(value, list):
        return sorted((_unordered(v) for v in value), key=lambda v: json.dumps(v, sort_keys=True))
    return value


def _same(shaped: Any, plain: Any, reshaping: Reshaping) -> bool:
    if reshaping.partitions is not None:
        return bool(_unordered(shaped) == _unordered(plain))
    return bool(shaped == plain)


def _twins(seed: int, reshaping: Reshaping) -> tuple[RandomShape, State, RandomShape, State]:
    """Seed ``seed`` laid out without the structures and with ``reshaping``, holding the same
    records."""
    apart = RandomShape(draw(seed, reshaping=Reshaping()))
    shaped = RandomShape(draw(seed, reshaping=reshaping))
    apart_state, state = apart.build(random.Random(seed), 40_000), State()
    for role, store in shaped.design.stores.items():
        store.place(state)
        for _, record in apart.design.stores[role].items(apart_state):
            store.append(state, copy.deepcopy(record))
    return apart, apart_state, shaped, state


def _context(shape: RandomShape) -> set[str]:
    parents = shape.design.stores["primary"].parents
    return {key for key, _ in parents.context} if isinstance(parents, Parents) else set()


def _decoded(shape: RandomShape, state: State, context: set[str]) -> dict[str, list[str]]:
    """Each collection's records (less their parents' context), as sorted text: records kept
    in parents are in their parents' order."""
    return {
        role: sorted(json.dumps(_strip(r, context), sort_keys=True) for _, r in s.items(state))
        for role, s in shape.design.stores.items()
    }


def test_about_a_third_to_a_half_of_the_seeds_draw_one() -> None:
    for seeds in (range(20), range(1000, 1020)):
        drawn = [draw(s).reshaping for s in seeds]
        # Markup bodies come from a generator of their own (tested with them).
        others = [replace(r, partitions=None, markup=None) for r in drawn]
        assert 6 <= sum(r != Reshaping() for r in others) <= 10
        assert 1 <= sum(r.partitions is not None for r in drawn) <= 4
    drawn = [draw(s).reshaping for s in range(200)]
    assert {r.envelope for r in drawn} == {None, *STYLES}
    assert {r.listing for r in drawn} == {None, *LISTINGS}
    assert {r.deep for r in drawn} == {None, "listed", *DEEP_IDS}
    assert {r.at_root for r in drawn if r.envelope} == {True, False}
    assert {r.kept > 0 for r in drawn if r.listing} == {True, False}
    assert {r.nested for r in drawn if r.listing} == {True, False}
    assert sum(r.parent is not None for r in drawn) >= 15
    assert all(not r.roles or draw(s).encoding in ("plain", "events") for s, r in enumerate(drawn))
    # Partitions only where nothing else is drawn, and only of plain records.
    assert {r.partitions for r in drawn} == {None, *PARTITION_STYLES}
    for seed, r in enumerate(drawn):
        if r.partitions is not None:
            assert replace(r, partitions=None, markup=None) == Reshaping()
            assert draw(seed).encoding == "plain"


@pytest.mark.parametrize("style", STYLES)
def test_list_envelopes_wrap_each_collection_as_real_apis_answer_lists(style: str) -> None:
    shape = RandomShape(draw(PLAIN[0], reshaping=Reshaping(envelope=style, at_root=True)))
    state = shape.build(random.Random(3), 40_000)
    assert all(mark in json.dumps(state) for mark in ENVELOPE_MARKS[style])
    stores = shape.design.stores
    assert sorted(state) == sorted(s.at[0] for s in stores.values())
    for store in stores.values():
        held = enveloped_records(state[store.at[0]], style, store.at[0])
        assert held == [r for _, r in store.items(state)] and held


@pytest.mark.parametrize("seed", PLAIN)
@pytest.mark.parametrize("reshaping", FORCED, ids=lambda r: r.names)
def test_every_call_answers_as_the_records_laid_out_plainly(
    seed: int, reshaping: Reshaping
) -> None:
    apart, apart_state, shaped, state = _twins(seed, reshaping)
    context = _context(shaped)
    assert _decoded(shaped, state, context) == _decoded(apart, apart_state, context)
    kinds = ("lookup", "nested_lookup") if context else tuple(apart.code.offers)
    for kind in kinds:
        for offer, twin in zip(apart.code.offers[kind], shaped.code.offers[kind], strict=True):
            rng = random.Random(seed)
            for _ in range(3):
                args = twin.plan(rng, state)
                answer = twin.tool.run(state, args)[0]
                plain = offer.tool.run(apart_state, args)[0]
                assert _same(_strip(answer, context), plain, reshaping)


@pytest.mark.parametrize("reshaping", FORCED, ids=lambda r: r.names)
def test_a_write_patches_the_stored_form_and_reads_back(reshaping: Reshaping) -> None:
    for seed in PLAIN:
        apart, apart_state, shaped, state = _twins(seed, reshaping)
        context, rng = _context(shaped), random.Random(seed)
        tools = {t.name: t for t in shaped.tools()}
        plain = {t.name: t for t in apart.tools()}
        for _ in range(4):
            write, read = shaped.write(rng, state)
            answer, patch = tools[write.tool].run(state, write.arguments)
            jsonpatch.apply_patch(state, patch, in_place=True)
            done = plain[write.tool].run(apart_state, write.arguments)
            jsonpatch.apply_patch(apart_state, done[1], in_place=True)
            assert _same(answer, done[0], reshaping)
            back, _ = tools[read.tool].run(state, read.arguments)
            assert _same(back, plain[read.tool].run(apart_state, read.arguments)[0], reshaping)
            assert _decoded(shaped, state, context) == _decoded(apart, apart_state, context)


@pytest.mark.parametrize("seed", PLAIN)
def test_records_kept_in_parents_are_answered_with_the_parents_id(seed: int) -> None:
    # Without the classes of real formats (:mod:`.formats`), whose large records are fewer.
    reshaping = Reshaping(parent=("calendar", "calendars"))
    shape = RandomShape(draw(seed, reshaping=reshaping, formats=Formats()))
    state = shape.build(random.Random(seed), 40_000)
    store = shape.design.stores["primary"]
    assert isinstance(store.parents, Parents)
    assert store.at[-1] == shape.design.spell("calendars")
    box: Any = state
    for part in store.at:
        box = box[part]
    assert 3 <= len(box) <= 6
    held = {}
    for parent in box:
        records = parent[store.parents.records_key]
        assert len(records) >= 2 and len(parent) == 5
        for record in records:
            held[str(record[store.id_key])] = (record, parent[store.parents.id_key])
    assert sorted(held) == sorted(store.keys(state))
    (id_key, _), *_ = store.parents.context
    for key, record in store.items(state):
        stored, parent_id = held[key]
        assert record == stored | {k: record[k] for k in _context(shape)}
        assert record[id_key] == parent_id
    lookup = shape.code.offers["lookup"][0]
    args = lookup.plan(random.Random(1), state)
    answer = lookup.tool.run(state, args)[0]
    found = answer.get(shape.design.spell(shape.design.domain.primary.singular), answer)
    assert found[id_key] == held[str(next(iter(args.values())))][1]


def _rows(state: State, where: tuple[str, ...]) -> list[Any]:
    """The stored records of an array, an object keyed by id, or a paged envelope."""
    box: Any = state
    for part in where:
        box = box[part]
    if isinstance(box, list):
        return box
    if "edges" in box:
        return [edge["node"] for edge in box["edges"]]
    return list(box["results"]) if "results" in box else list(box.values())


def _listed(entries: list[Any], listing: str, form: RecordForm) -> dict[str, Any]:
    """The fields a property list holds (a field of many values, or a sub-object, known by
    the form)."""
    record: dict[str, Any] = {}
    for name, values in listed_fields(entries, listing):
        if name in form.nested:
            values = [_listed(v, listing, form) for v in values]
        if name in form.repeated:
            record.setdefault(name, []).extend(values)
        else:
            (record[name],) = values
    return record


def _filled(record: dict[str, Any], id_key: str) -> dict[str, Any]:
    return {k: v for k, v in record.items() if v != [] and k != id_key}


@pytest.mark.parametrize("listing", LISTINGS)
@pytest.mark.parametrize("kept", [0, 0.5])
def test_a_property_list_writes_fields_as_its_format_defines(listing: str, kept: float) -> None:
    reshaping = Reshaping(listing=listing, kept=kept, nested=True, roles=("primary",))
    shape = RandomShape(draw(PLAIN[0], reshaping=reshaping, formats=Formats()))
    state = shape.build(random.Random(5), 40_000)
    store = shape.design.stores["primary"]
    form = store.codec
    assert isinstance(form, RecordForm) and form.repeated and form.nested
    rows = _rows(state, store.where)
    repeated = 0
    for row, (_, record) in zip(rows, store.items(state), strict=True):
        assert set(row) - {form.list_key, store.id_key} == set(form.kept)
        names = [name for name, _ in listed_fields(row[form.list_key], listing)]
        repeated += len(names) - len(set(names))
        plain = {k: v for k, v in row.items() if k != form.list_key}
        read = plain | _listed(row[form.list_key], listing, form)
        assert _filled(read, store.id_key) == _filled(record, store.id_key)
    assert repeated > 0 or listing == "tuple"


@pytest.mark.parametrize("deep", [*DEEP_IDS, "listed"])
def test_an_id_held_deep_is_found_where_the_format_keeps_it(deep: str) -> None:
    listing = "name_value" if deep == "listed" else None
    reshaping = Reshaping(listing=listing, deep=deep, roles=("primary", "secondary"))
    shape = RandomShape(draw(PLAIN[3], reshaping=reshaping))
    state = shape.build(random.Random(5), 40_000)
    for role in ("primary", "secondary"):
        store = shape.design.stores[role]
        assert isinstance(store.codec, RecordForm)
        rows = _rows(state, store.where)
        held = [deep_id(r, deep, store.id_key, store.codec.list_key, str(listing)) for r in rows]
        assert held == [r[store.id_key] for _, r in store.items(state)]
    lookup = shape.code.offers["lookup"][0]
    lookup.tool.run(state, lookup.plan(random.Random(2), state))


@pytest.mark.parametrize("style", PARTITION_STYLES)
def test_links_split_into_partitions_are_filed_by_their_month_or_shard(style: str) -> None:
    shape = RandomShape(draw(PLAIN[0], reshaping=Reshaping(partitions=style)))
    state = shape.build(random.Random(4), 60_000)
    store = shape.design.stores["link"]
    box: Any = state
    for part in store.where:
        box = box[part]
    filed = {
        (name, inner): rows
        for name, held in box.items()
        for inner, rows in (held.items() if isinstance(held, dict) else [("", held)])
    }
    assert len(filed) >= 4 and all(isinstance(rows, list) and rows for rows in filed.values())
    names = {
        "month": r"^\d{4}-\d{2}$",
        "hive": r"^month=\d{4}-\d{2}$",
        "file": r"^\d{4}-\d{2}\.json$",
        "nested": r"^\d{4}$",
        "shard": r"^part-\d{5}$",
    }
    assert all(re.match(names[style], name) for name, _ in filed)
    for (name, inner), rows in filed.items():
        for record in rows:
            dated = [
                v for v in record.values() if isinstance(v, str) and re.match(r"^\d{4}-\d{2}-", v)
            ]
            if style == "shard" or not dated:
                continue
            year, month = dated[0][:4], dated[0][5:7]
            assert (name, inner) == ((year, month) if style == "nested" else (name, ""))
            assert re.sub(r"\D", "", name) == f"{year}{month}" or style == "nested"
    held = [r for rows in filed.values() for r in rows]
    assert held == [r for _, r in store.items(state)]
