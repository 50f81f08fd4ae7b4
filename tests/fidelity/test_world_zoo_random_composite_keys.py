"""Records split over flat composite keys, a class random zoo shapes draw
(``benchmarks/zoo/random_shapes/composite_keys.py``): drawn by one to three development seeds
in ten, with several separators and both forms of hash; every key is ``kind<sep>id`` with an
optional part (or a sorted set's ``rank<sep>kind<sep>field``); the keys read back, here by a
reader of our own, to the records every call answers from, which are the records the seed
makes without the keys; a seed that does not draw the class is laid out as before; a write
changes one part key and reads back."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import jsonpatch
import pytest

from benchmarks.zoo.kit import State
from benchmarks.zoo.random_shapes import design as designs
from benchmarks.zoo.random_shapes.composite_keys import RANK, KeyedRecords, draw_keys
from benchmarks.zoo.random_shapes.design import Design, draw
from benchmarks.zoo.random_shapes.record_holding import holding
from benchmarks.zoo.random_shapes.world import RandomShape

DEVELOPMENT = range(100)
DRAWING = [s for s in DEVELOPMENT if holding(s) == "keys"]


def _keyed(design: Design) -> dict[str, KeyedRecords]:
    return {r: s.text for r, s in design.stores.items() if isinstance(s.text, KeyedRecords)}


def _shape(seed: int, size: int = 60_000) -> tuple[RandomShape, State]:
    shape = RandomShape(draw(seed))
    return shape, shape.build(random.Random(seed), size)


def _keyspace(shape: RandomShape, state: State) -> dict[str, Any]:
    box: Any = state
    for part in shape.design.stores["primary"].where:
        box = box[part]
    found: dict[str, Any] = box
    return found


def _read(held: KeyedRecords, keys: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The records of one kind, read from the keys by their scheme alone."""
    sep = held.style.separator
    found: dict[str, dict[str, Any]] = {}
    for key, value in keys.items():
        kind, ident, *part = key.split(sep)
        if kind != held.kind:
            continue
        record = found.setdefault(ident, {})
        if isinstance(value, list) and (not part or part[0] in held.hashes):
            value = {value[n]: value[n + 1] for n in range(0, len(value), 2)}
        if part:
            record[part[0]] = value
        else:
            record.update(value)
    if held.ranked:
        ranks = keys[sep.join((RANK, held.kind, held.ranked))]
        pairs = (
            ranks.items() if isinstance(ranks, dict) else zip(ranks[::2], ranks[1::2], strict=True)
        )
        for member, score in pairs:
            found[member][held.ranked] = score
    return found


def test_one_to_three_seeds_in_ten_hold_their_records_under_composite_keys() -> None:
    assert 10 <= len(DRAWING) <= 30
    styles = [draw_keys(s) for s in DRAWING]
    assert len({s.separator for s in styles if s}) >= 4
    assert {s.pairs for s in styles if s} == {True, False}
    assert all(set(_keyed(draw(s))) == {"primary", "secondary", "link"} for s in DRAWING)


@pytest.mark.parametrize("seed", DRAWING[:6])
def test_the_keys_read_back_to_the_records_the_calls_answer_from(seed: int) -> None:
    shape, state = _shape(seed)
    keys = _keyspace(shape, state)
    assert all(isinstance(v, dict | list) for v in keys.values())
    for role, held in _keyed(shape.design).items():
        store = shape.design.stores[role]
        records = dict(store.items(state))
        read = _read(held, keys)
        assert list(read) == list(records)
        for ident, record in records.items():
            assert {k: v for k, v in record.items() if k != held.id_key} == {
                k: v for k, v in read[ident].items() if k != held.id_key
            }
            assert str(record[held.id_key]) == ident


@pytest.mark.parametrize("seed", DRAWING[:4])
def test_the_records_are_those_the_seed_makes_without_keys(seed: int) -> None:
    shape, state = _shape(seed)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(designs, "hold_in_keys", lambda design: design)
        twin = RandomShape(draw(seed))
    assert not _keyed(twin.design)
    twin_state = twin.build(random.Random(seed), 60_000)
    for role in ("primary", "link"):
        records = dict(shape.design.stores[role].items(state))
        before = dict(twin.design.stores[role].items(twin_state))
        common = [k for k in records if k in before]
        assert len(common) >= 3
        for key in common:
            # A hash holds no null: a field without a value is absent.
            plain = {k: v for k, v in before[key].items() if v is not None}
            assert all(plain.get(k) == v for k, v in records[key].items() if k in plain)
            # (A parent's context or a link's listing is in one of the two only.)
            assert len(set(plain) & set(records[key])) >= 3


def test_a_seed_that_does_not_draw_the_keys_is_laid_out_as_before() -> None:
    others = [s for s in DEVELOPMENT if s not in DRAWING][:10]
    for seed in others:
        assert not _keyed(draw(seed))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(designs, "hold_in_keys", lambda design: design)
        before = [repr(draw(s)) for s in others]
    assert before == [repr(draw(s)) for s in others]


def test_a_link_is_listed_under_its_record_and_a_field_kept_in_a_sorted_set() -> None:
    listed = [s for s in DRAWING if _keyed(draw(s))["link"].owner is not None]
    ranked = [s for s in DRAWING if _keyed(draw(s))["primary"].ranked is not None]
    assert listed and ranked
    shape, state = _shape(listed[0])
    keys, held = _keyspace(shape, state), _keyed(shape.design)["link"]
    assert held.owner is not None
    field, kind, part = held.owner
    sep = held.style.separator
    for ident, link in list(shape.design.stores["link"].items(state))[:20]:
        assert ident in keys[sep.join((kind, str(link[field]), part))]


@pytest.mark.parametrize("seed", DRAWING[:5])
def test_a_write_changes_one_part_key_and_reads_back(seed: int) -> None:
    shape, state = _shape(seed)
    rng = random.Random(seed)
    tools = {t.name: t for t in shape.tools()}
    for _ in range(3):
        write, read = shape.write(rng, state)
        before = copy.deepcopy(_keyspace(shape, state))
        _, patch = tools[write.tool].run(state, write.arguments)
        state = jsonpatch.apply_patch(copy.deepcopy(state), patch)
        after = _keyspace(shape, state)
        changed = [k for k in after if after[k] != before.get(k)]
        assert len(changed) == 1 and str(write.arguments[shape.code.id_arg]) in changed[0]
        answer, _ = tools[read.tool].run(state, read.arguments)
        slots = {k: v for k, v in write.arguments.items() if k not in read.arguments}
        assert {str(v) for v in slots.values()} <= {str(v) for v in answer.values()}


def test_a_seed_builds_the_same_keys_every_time() -> None:
    seed = DRAWING[0]
    assert json.dumps(_shape(seed, 30_000)[1]) == json.dumps(_shape(seed, 30_000)[1])
