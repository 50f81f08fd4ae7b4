"""Random zoo shapes whose records are encoded as a service exports them
(``benchmarks/zoo/random_shapes/encodings.py``): a seed drawn with an encoding stores its
records encoded, yet every call answers what the same seed drawn plain answers (the tools
answer the decoded records), and a write patches the encoded state so that reading it back
reads what was written."""

from __future__ import annotations

import copy
import json
import random
from collections import Counter
from dataclasses import replace
from typing import Any

import jsonpatch
import pytest

from benchmarks.zoo import make_shape
from benchmarks.zoo.kit import State
from benchmarks.zoo.random_shapes.design import draw
from benchmarks.zoo.random_shapes.encodings import CODECS, ENCODINGS, draw_encoding, logged_role
from benchmarks.zoo.random_shapes.formats import Formats
from benchmarks.zoo.random_shapes.reshaping import Reshaping
from benchmarks.zoo.random_shapes.world import RandomShape

SEEDS = (0, 5, 10, 11, 12, 15, 20, 23)
"""Seeds of different layouts (every container, calendars kept as lists and by date; an
``events`` seed logs records of each role, primaries with a calendar of each kind)."""
MARKS = {
    "dynamodb": ('{"S": ', '{"N": "', '{"M": {', '{"L": ['),
    "firestore": ('"fields": {', '"stringValue": ', '"mapValue": {"fields"', "documents/"),
    "mongodb": ('"_id": {"$oid": "', '{"$numberDecimal": "', '{"$date": "'),
    "xmltodict": ('"@type": "integer", "#text": "', '"@type": "array"', '"#text": "'),
    "elasticsearch": ('"hits": {"hits": [{"_index": ', '"_source": {'),
    "events": ('"events": [{"seq": 1, "type": "created"', '"type": "updated"', '"type": "deleted"'),
}
"""Text each encoding's state holds (and a plain state does not)."""


def _twins(
    seed: int, encoding: str, formats: Formats | None = None
) -> tuple[RandomShape, State, RandomShape, State]:
    """Seed ``seed`` drawn plain and drawn with ``encoding``, each with its state: the same
    records (an encoded state of the same size would hold fewer); with the classes of real
    formats it draws, or ``formats``."""
    # Both laid out without the structures a seed may draw only where records are plain, and
    # without text (which holds records plain whatever the encoding: test_world_zoo_random_
    # text_lines.py's).
    apart = Reshaping()
    formats = replace(formats or draw(seed).formats, text=None)
    plain = RandomShape(draw(seed, "plain", apart, formats))
    encoded = RandomShape(draw(seed, encoding, apart, formats))
    plain_state, state = plain.build(random.Random(seed), 40_000), State()
    for role, store in encoded.design.stores.items():
        store.place(state)
        for _, record in plain.design.stores[role].items(plain_state):
            store.append(state, copy.deepcopy(record))
    return plain, plain_state, encoded, state


def _decoded(shape: RandomShape, state: State) -> dict[str, list[dict[str, Any]]]:
    return {role: [r for _, r in s.items(state)] for role, s in shape.design.stores.items()}


def test_about_half_the_seeds_are_plain_and_every_encoding_is_drawn() -> None:
    drawn = Counter(draw_encoding(seed) for seed in range(100))
    assert set(drawn) == set(ENCODINGS)
    assert 35 <= drawn["plain"] <= 65
    logged = {(logged_role(s), draw(s).calendar_list) for s in SEEDS}
    assert {"primary", "secondary", "link"} == {role for role, _ in logged}
    assert {("primary", True), ("primary", False)} <= logged
    shape = make_shape("random-4")
    assert isinstance(shape, RandomShape) and shape.encoding == draw_encoding(4) != "plain"


@pytest.mark.parametrize("encoding", ENCODINGS[1:])
def test_a_state_built_encoded_decodes_to_records_of_the_seeds_layout(encoding: str) -> None:
    shape = RandomShape(draw(SEEDS[0], encoding))
    state = shape.build(random.Random(1), 30_000)
    records = _decoded(shape, state)
    assert all(records.values()) and MARKS[encoding][0] in json.dumps(state)
    ids = shape.design.stores["primary"].id_key
    assert all(ids in r for r in records["primary"])


@pytest.mark.parametrize("encoding", ENCODINGS[1:])
def test_an_encoding_changes_how_records_are_stored_not_the_seeds_layout(encoding: str) -> None:
    for seed in SEEDS:
        # Without large records, so that an event log has records enough to delete one.
        plain, plain_state, encoded, state = _twins(seed, encoding, Formats())
        assert _decoded(encoded, state) == _decoded(plain, plain_state)
        text = json.dumps(state)
        assert all(mark in text for mark in MARKS[encoding]), (seed, encoding)
        assert not any(mark in json.dumps(plain_state) for mark in MARKS[encoding][:1])
        assert plain.code.offers.keys() == encoded.code.offers.keys()
        assert [t.spec() for t in plain.tools()] == [t.spec() for t in encoded.tools()]


@pytest.mark.parametrize("encoding", ENCODINGS[1:])
def test_every_call_answers_as_the_plain_seed_does(encoding: str) -> None:
    for seed in SEEDS:
        plain, plain_state, encoded, state = _twins(seed, encoding)
        for kind, offers in plain.code.offers.items():
            for offer, twin in zip(offers, encoded.code.offers[kind], strict=True):
                rng, twin_rng = random.Random(seed), random.Random(seed)
                for _ in range(3):
                    args = offer.plan(rng, plain_state)
                    assert twin.plan(twin_rng, state) == args
                    assert twin.tool.run(state, args) == offer.tool.run(plain_state, args)


@pytest.mark.parametrize("encoding", ENCODINGS[1:])
def test_a_write_patches_the_encoded_state_and_reads_back(encoding: str) -> None:
    for seed in SEEDS:
        plain, plain_state, encoded, state = _twins(seed, encoding)
        rng = random.Random(seed)
        tools = {t.name: t for t in encoded.tools()}
        for _ in range(6):
            write, read = encoded.write(rng, state)
            answer, patch = tools[write.tool].run(state, write.arguments)
            jsonpatch.apply_patch(state, patch, in_place=True)
            plain_patch = {t.name: t for t in plain.tools()}[write.tool]
            plain_answer, done = plain_patch.run(plain_state, write.arguments)
            jsonpatch.apply_patch(plain_state, done, in_place=True)
            assert answer == plain_answer
            back, _ = tools[read.tool].run(state, read.arguments)
            slots = {k: v for k, v in write.arguments.items() if k not in read.arguments}
            assert set(map(json.dumps, slots.values())) <= set(map(json.dumps, back.values()))
            assert _decoded(encoded, state) == _decoded(plain, plain_state)


def test_xml_keeps_a_lone_item_an_object_and_a_second_one_makes_a_list() -> None:
    xml = CODECS["xmltodict"]
    record = {"id": 7, "days": [{"on": "2025-01-02", "hours": 3}], "tags": []}
    stored = xml.encode(record, "id", "jobs")
    assert stored["@id"] == "7" and stored["tags"] == {"@type": "array"}
    assert stored["days"]["item"] == {
        "on": "2025-01-02",
        "hours": {"@type": "integer", "#text": "3"},
    }
    for inside, grown in ((("days", "-"), 2), (("days", "-"), 3), (("tags", "-"), 1)):
        patch = xml.add(stored, inside, {"on": "2025-02-03", "hours": 1.5})
        jsonpatch.apply_patch(
            stored, [op | {"path": "/" + "/".join(op["path"])} for op in patch], in_place=True
        )
        assert len(xml.decode(stored, "id")[inside[0]]) == grown
    assert xml.decode(stored, "id")["days"][-1] == {"on": "2025-02-03", "hours": 1.5}
    assert xml.decode(stored, "id")["id"] == 7
