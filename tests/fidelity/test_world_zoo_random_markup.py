"""Random zoo shapes whose primary records keep their scalar fields as rows of a markup body
(``benchmarks/zoo/random_shapes/markup_bodies.py``): drawn from a generator of their own (a
seed that does not draw them is laid out as before); the body read as its format defines it
(an XHTML ``details`` macro's or an HTML table's ``<th>``/``<td>`` rows, a Markdown table's
lines) holds the record's fields; every call answers what the same records laid out plainly
answer, and a write reads back."""

from __future__ import annotations

import html
import random
import re
from dataclasses import replace
from typing import Any

import jsonpatch
import pytest

from benchmarks.zoo.random_shapes.design import draw
from benchmarks.zoo.random_shapes.markup_bodies import STYLES, MarkupForm, draw_markup
from benchmarks.zoo.random_shapes.record_holding import holding
from benchmarks.zoo.random_shapes.reshaping import Reshaping
from tests.fidelity.test_world_zoo_random_reshaping import PLAIN, _decoded, _twins


def _rows(body: str, style: str) -> dict[str, str]:
    if style == "markdown":
        lines = body.splitlines()
        assert lines[:2] == ["| Field | Value |", "| --- | --- |"]
        cells = [line.strip("| ").split(" | ") for line in lines[2:]]
        return {k: v for k, v in cells}
    found = re.findall(r"<tr><th>(.*?)</th><td>(.*?)</td></tr>", body)
    return {html.unescape(k): html.unescape(v) for k, v in found}


def test_a_quarter_of_the_seeds_draw_markup_bodies_and_the_rest_are_as_before() -> None:
    drawn = [draw_markup(s) for s in range(200)]
    assert 30 <= sum(d is not None for d in drawn) <= 70
    assert set(drawn) == {None, *STYLES}
    for seed in range(40):
        reshaping = draw(seed).reshaping
        # Drawn where the seed holds its records no other way (:mod:`.record_holding`).
        held = holding(seed) == "markup"
        assert reshaping.markup == (draw_markup(seed) if held else None)
        before = draw(seed, reshaping=replace(reshaping, markup=None))
        if not held:  # twins both (a twin holds no composite keys)
            assert draw(seed, reshaping=reshaping).stores == before.stores


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("seed", PLAIN)
def test_a_records_scalars_are_rows_of_its_body_and_calls_answer_as_plainly(
    seed: int, style: str
) -> None:
    reshaping = Reshaping(markup=style)
    apart, apart_state, shaped, state = _twins(seed, reshaping)
    store = shaped.design.stores["primary"]
    if not isinstance(store.codec, MarkupForm):
        pytest.skip("the primary records are not plain records of their own collection")
    assert _decoded(shaped, state, set()) == _decoded(apart, apart_state, set())
    plain = dict(apart.design.stores["primary"].items(apart_state))
    for key, record in store.items(state):
        stored: Any = store.codec.encode(record, store.id_key, "")
        rows = _rows(stored[store.codec.body_key], style)
        assert rows and all(str(plain[key][k]).lower() == v.lower() for k, v in rows.items())
    for kind in apart.code.offers:
        for offer, twin in zip(apart.code.offers[kind], shaped.code.offers[kind], strict=True):
            rng = random.Random(seed)
            args = twin.plan(rng, state)
            assert twin.tool.run(state, args)[0] == offer.tool.run(apart_state, args)[0]


@pytest.mark.parametrize("style", STYLES)
def test_a_write_reads_back(style: str) -> None:
    seed = PLAIN[0]
    apart, apart_state, shaped, state = _twins(seed, Reshaping(markup=style))
    rng = random.Random(seed)
    tools = {t.name: t for t in shaped.tools()}
    plain = {t.name: t for t in apart.tools()}
    for _ in range(3):
        write, read = shaped.write(rng, state)
        answer, patch = tools[write.tool].run(state, write.arguments)
        jsonpatch.apply_patch(state, patch, in_place=True)
        done = plain[write.tool].run(apart_state, write.arguments)
        jsonpatch.apply_patch(apart_state, done[1], in_place=True)
        assert answer == done[0]
        back, _ = tools[read.tool].run(state, read.arguments)
        assert back == plain[read.tool].run(apart_state, read.arguments)[0]
