"""Records held as lines of text, a class random zoo shapes draw
(``benchmarks/zoo/random_shapes/text_lines.py``, ``text_store.py``): drawn by a fifth to a
third of the development seeds in several formats; the text parses back, read here with
other parsers than the tools' (``csv``, SQLite, ``shlex``, ``json``), to the records every
call answers from, which are the records the seed makes without text; the text is most of
what the collection's state holds; a write keeps it parseable and reads back; and a seed
builds the same state every time."""

from __future__ import annotations

import copy
import csv
import json
import random
import re
import shlex
import sqlite3
from dataclasses import replace
from typing import Any

import jsonpatch
import pytest

from benchmarks.zoo.kit import State
from benchmarks.zoo.random_shapes.design import draw
from benchmarks.zoo.random_shapes.text_lines import FORMATS
from benchmarks.zoo.random_shapes.text_store import TextTable
from benchmarks.zoo.random_shapes.world import RandomShape

DEVELOPMENT = range(100)


def _drawing() -> list[int]:
    """The seeds holding text, less the workbooks (``test_world_zoo_random_header_rows``)."""
    return [s for s in DEVELOPMENT if (t := draw(s).formats.text) is not None and not t.book]


def _typed(text: str | None) -> Any:
    if text is None or text == "":
        return None
    if re.fullmatch(r"-?\d+", text):
        return int(text)
    if re.fullmatch(r"-?\d+\.\d+", text):
        return float(text)
    return json.loads(text) if text[0] in "[{" else text


def _rows(table: TextTable, held: Any) -> list[dict[str, Any]]:
    """The rows the text holds, by column name, read without the tools' parser."""
    style = table.style
    lines = held if isinstance(held, list) else held.split("\n")
    if style.format == "jsonl":
        return [json.loads(line) for line in lines]
    if style.format == "sheets":
        names = lines[0]
        return [dict(zip(names, [*row, *[""] * len(names)], strict=False)) for row in lines[1:]]
    if style.format in ("csv", "tsv"):
        return list(csv.DictReader(lines, delimiter=style.delimiter))
    if style.format == "sql":
        db = sqlite3.connect(":memory:")
        db.executescript("\n".join(lines))
        cursor = db.execute(f'SELECT * FROM "{table.table}"')
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, map(_text, row), strict=True)) for row in cursor]
    return [dict(pair.split("=", 1) for pair in shlex.split(line)) for line in lines]


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def parsed_records(table: TextTable, held: Any) -> dict[str, dict[str, Any]]:
    """The records the text holds by id (a later line of an id replacing an earlier one)."""
    found: dict[str, dict[str, Any]] = {}
    sep = table.style.flatten or "\0"
    for row in _rows(table, held):
        record: dict[str, Any] = {}
        for name, value in row.items():
            *outer, last = name.split(sep)
            holder = record
            for part in outer:
                holder = holder.setdefault(part, {})
            holder[last] = value if table.style.format == "jsonl" else _typed(value)
        found[str(record[table.id_key])] = record
    return found


def _shape(seed: int, size: int = 60_000) -> tuple[RandomShape, State]:
    shape = RandomShape(draw(seed))
    return shape, shape.build(random.Random(seed), size)


def _held(shape: RandomShape, state: State) -> list[tuple[str, TextTable, Any]]:
    found = []
    for role, store in shape.design.stores.items():
        if isinstance(store.text, TextTable):
            box: Any = state
            for part in store.where:
                box = box[part]
            found.append((role, store.text, box[store.text.style.key]))
    return found


def test_a_fifth_to_a_third_of_the_seeds_hold_records_as_text_in_several_formats() -> None:
    seeds = _drawing()
    assert 20 <= len(seeds) <= 35
    styles = [draw(s).formats.text for s in seeds]
    assert {s.format for s in styles if s} == set(FORMATS)
    roles = [{r for r, st in draw(s).stores.items() if st.text} for s in seeds]
    assert sum("primary" in r for r in roles) >= 12 and sum("link" in r for r in roles) >= 8
    assert {s.as_lines for s in styles if s} == {True, False}


@pytest.mark.parametrize("seed", _drawing())
def test_the_text_parses_to_the_records_the_calls_answer_from(seed: int) -> None:
    shape, state = _shape(seed)
    twin = RandomShape(draw(seed, formats=replace(shape.design.formats, text=None)))
    twin_state = twin.build(random.Random(seed), 60_000)
    for role, table, held in _held(shape, state):
        records = parsed_records(table, held)
        assert dict(shape.design.stores[role].items(state)) == records
        # Without text, the seed makes the same records (absent values are empty cells; as
        # many as fill the same size, so more or fewer).
        before = dict(twin.design.stores[role].items(twin_state))
        common = min(len(before), len(records))
        assert list(records)[:common] == list(before)[:common] and common >= 3
        for key, record in list(records.items())[:common]:
            for path in table.paths:
                assert _dig(record, path) == _dig(before[key], path), (seed, key, path)
        size = len(json.dumps(held))
        assert size > 0.9 * len(json.dumps(_box(shape, role, state)))
        assert not any(isinstance(v, dict) for v in (held if isinstance(held, list) else []))


def _box(shape: RandomShape, role: str, state: State) -> Any:
    box: Any = state
    for part in shape.design.stores[role].where:
        box = box[part]
    return box


def _dig(record: dict[str, Any], path: tuple[str, ...]) -> Any:
    value: Any = record
    for part in path:
        value = value.get(part) if isinstance(value, dict) else None
    return value


def test_text_holds_most_of_the_state_where_it_holds_the_records() -> None:
    shares = []
    for seed in [s for s in _drawing() if draw(s).stores["primary"].text][:8]:
        shape, state = _shape(seed, 200_000)
        held = sum(len(json.dumps(h)) for _, _, h in _held(shape, state))
        shares.append(held / len(json.dumps(state)))
    assert sum(shares) / len(shares) > 0.5, shares


@pytest.mark.parametrize("seed", [s for s in _drawing() if draw(s).stores["primary"].text][:10])
def test_a_write_keeps_the_text_parseable_and_reads_back(seed: int) -> None:
    shape, state = _shape(seed)
    rng = random.Random(seed)
    tools = {t.name: t for t in shape.tools()}
    for _ in range(3):
        write, read = shape.write(rng, state)
        (_, table, held), *_ = _held(shape, state)
        before = parsed_records(table, held)
        lines = len(held if isinstance(held, list) else held.split("\n"))
        _, patch = tools[write.tool].run(state, write.arguments)
        state = jsonpatch.apply_patch(copy.deepcopy(state), patch)
        (_, _, after_held), *_ = _held(shape, state)
        after = parsed_records(table, after_held)
        changed = [k for k in after if after[k] != before.get(k)]
        assert changed == [str(write.arguments[shape.code.id_arg])]
        grown = len(after_held if isinstance(after_held, list) else after_held.split("\n"))
        assert grown == lines + (table.style.format in ("logfmt", "jsonl"))
        answer, _ = tools[read.tool].run(state, read.arguments)
        slots = {k: v for k, v in write.arguments.items() if k not in read.arguments}
        assert sorted(map(str, slots.values())) == sorted(
            str(v) for k, v in answer.items() if k not in (table.id_key, shape.design.spell("date"))
        )


def test_a_seed_builds_the_same_text_every_time() -> None:
    seed = _drawing()[0]
    assert json.dumps(_shape(seed, 30_000)[1]) == json.dumps(_shape(seed, 30_000)[1])
