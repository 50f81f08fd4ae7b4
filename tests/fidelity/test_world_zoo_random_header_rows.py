"""Collections kept as positional rows under a header row, several tables in one value-range
document, a class random zoo shapes draw (``benchmarks/zoo/random_shapes/header_rows.py``):
drawn by about two development seeds in ten from a generator of its own (a seed that does not
draw it draws as before); each table is a sheet of the one document, its header row the
columns as people spell them and its range naming the sheet and its rows; the rows read back
into the records the other tools answer from; a lookup by address answers the rows' cells,
its links' lookup formulas computed from the parties' sheet; and a seed builds the same
state every time."""

from __future__ import annotations

import json
import random
import re
from typing import Any

from benchmarks.zoo.kit import State
from benchmarks.zoo.random_shapes.design import draw
from benchmarks.zoo.random_shapes.formats import TEXT, draw_formats
from benchmarks.zoo.random_shapes.header_rows import draw_header_rows, label, parse, rows_of
from benchmarks.zoo.random_shapes.record_holding import holding
from benchmarks.zoo.random_shapes.text_lines import draw_text
from benchmarks.zoo.random_shapes.world import RandomShape

DEVELOPMENT = range(100)


def _drawing() -> list[int]:
    return [s for s in DEVELOPMENT if (t := draw(s).formats.text) is not None and t.book]


def _shape(seed: int, size: int = 80_000) -> tuple[RandomShape, State]:
    shape = RandomShape(draw(seed))
    return shape, shape.build(random.Random(seed), size)


def _sheets(shape: RandomShape, state: State) -> dict[str, list[list[Any]]]:
    return {
        role: rows_of(state, store.where)
        for role, store in shape.design.stores.items()
        if store.text is not None
    }


def test_about_two_seeds_in_ten_draw_it_from_a_generator_of_their_own() -> None:
    seeds = _drawing()
    assert 10 <= len(seeds) <= 30
    styles = [draw(s).formats.text for s in seeds]
    assert {s.address for s in styles if s} == {"a1", "r1c1"}
    assert len({s.labels for s in styles if s}) == 3
    for seed in DEVELOPMENT:
        # A seed holding its records another way (:mod:`.record_holding`) draws no text.
        if seed not in seeds and holding(seed) not in TEXT:
            assert draw_formats(seed).text is None
        elif seed not in seeds:
            assert draw_formats(seed).text == draw_text(seed)
    assert all(draw_header_rows(s) is not None for s in seeds)


def test_people_spell_the_header_row() -> None:
    assert label("unit_price", "title") == "Unit Price"
    assert label("order_id", "title") == "Order ID"
    assert label("quantity", "title") == "Qty"
    assert label("unitPrice", "lower") == "unit price"
    assert label("filled_on", "sentence") == "Filled on"


def test_every_table_is_a_sheet_of_one_value_range_document() -> None:
    for seed in _drawing()[:6]:
        shape, state = _shape(seed)
        sheets = _sheets(shape, state)
        assert {"primary", "secondary", "link"} <= set(sheets), seed
        wheres = [shape.design.stores[r].where for r in sheets]
        assert len({w[:-1] for w in wheres}) == 1 and [w[-1] for w in wheres] == ["0", "1", "2"]
        for role, rows in sheets.items():
            header = rows[0]
            assert len(set(header)) == len(header) and all(isinstance(h, str) for h in header)
            box: Any = state
            for part in shape.design.stores[role].where:
                box = box[int(part)] if isinstance(box, list) else box[part]
            sheet, first, last, left, right = parse(box["range"])
            assert (first, last, left, right) == (1, len(rows), 0, len(header) - 1)
            assert sheet == re.sub(r"_", " ", shape.design.entity(role).plural).title()


def test_the_rows_are_the_records_the_other_tools_answer_from() -> None:
    for seed in _drawing()[:6]:
        shape, state = _shape(seed)
        for role, rows in _sheets(shape, state).items():
            store = shape.design.stores[role]
            ids = [str(row[0]) for row in rows[1:]]
            assert ids == [key for key, _ in store.items(state)], (seed, role)


def test_a_lookup_by_address_answers_the_cells_its_formulas_computed() -> None:
    for seed in _drawing()[:6]:
        shape, state = _shape(seed)
        offer = next(o for o in shape.code.offers["lookup"] if o.variant == "range")
        sheets = _sheets(shape, state)
        parties = {str(r[0]): r[1] for r in sheets["secondary"][1:]}
        links = sheets["link"]
        formula = re.fullmatch(r"=VLOOKUP\(([A-Z])\d+,.*", str(links[1][-1]))
        assert formula is not None
        at = ord(formula.group(1)) - ord("A")
        title = links_title(shape)
        plans = [offer.plan(random.Random(n), state) for n in range(40)]
        asked = [a for a in plans if parse(next(iter(a.values())))[0] == title][:5]
        assert asked, seed
        for args in asked:
            answer, patch = offer.tool.run(state, args)
            _, first, last, _, _ = parse(next(iter(args.values())))
            assert not patch and len(answer["values"]) == last - first + 1
            for row, cells in zip(links[first - 1 : last], answer["values"], strict=True):
                assert cells[-1] == parties[str(row[at])] and row[-1].startswith("=")


def links_title(shape: RandomShape) -> str:
    return re.sub(r"_", " ", shape.design.entity("link").plural).title()


def test_a_seed_builds_the_same_workbook_every_time() -> None:
    seed = _drawing()[0]
    assert json.dumps(_shape(seed, 30_000)[1]) == json.dumps(_shape(seed, 30_000)[1])
