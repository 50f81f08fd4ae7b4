"""The state parts of the world spec: state_schema, immutable, entities, clock, ids."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from mcp_sim.errors import SpecError
from mcp_sim.runtime.entities import EntityIndex
from mcp_sim.runtime.fresh_ids import IdAllocator
from mcp_sim.runtime.virtual_clock import virtual_now
from mcp_sim.spec.loading import parse_world
from mcp_sim.spec.state import id_format_regex
from mcp_sim.spec.world import World, world_json_schema

HEAD = """\
world: w
title: W
tools:
  - {name: t, description: d, input_schema: {type: object}}
state:
  orders: [{id: o1}]
  cfg: {currency: EUR}
"""


def problems(extra: str) -> list[tuple[int, str, str]]:
    with pytest.raises(SpecError) as caught:
        parse_world(HEAD + extra, "w.yaml")
    return [(p.line, p.path, p.message) for p in caught.value.problems]


def test_bad_pointers_patterns_and_clock_are_located() -> None:
    found = problems(
        "immutable: [cfg/currency]\n"
        "ids: {order: 'ord_{n:x}'}\n"
        "entities: {order: {collection: /orders}}\n"
        "clock: {start: tomorrow}\n"
    )
    assert [(line, path) for line, path, _ in found] == [
        (8, "immutable[0]"),
        (9, "ids.order"),
        (11, "clock.start"),
    ]


def test_cross_checks_against_the_starting_state_are_located() -> None:
    found = problems(
        "state_schema: {type: object, required: [users]}\n"
        "immutable: [/cfg/region]\n"
        "entities: {thing: {collection: /cfg/currency}, gone: {collection: /nope}}\n"
        "ids: {ghost: 'g{n}'}\n"
    )
    assert [(line, path) for line, path, _ in found] == [
        (5, "state"),
        (9, "immutable[0]"),
        (10, "entities.thing.collection"),
        (10, "entities.gone.collection"),
        (11, "ids.ghost"),
    ]


def test_the_whole_state_cannot_be_immutable() -> None:
    assert problems("immutable: ['']\n")[0][1] == "immutable[0]"


@pytest.mark.parametrize(
    ("pattern", "matches", "misses"),
    [
        ("ord_{n:05d}", "ord_00042", "ord_42"),
        ("u{n}", "u7", "ux"),
        ("{{x}}-{n:03}", "{x}-001", "x-001"),
    ],
)
def test_id_patterns_become_regexes(pattern: str, matches: str, misses: str) -> None:
    assert re.fullmatch(id_format_regex(pattern), matches)
    assert not re.fullmatch(id_format_regex(pattern), misses)


def test_id_allocator_starts_after_the_highest_id_in_state(shop: World) -> None:
    allocator = IdAllocator.start(shop, EntityIndex.build(shop, shop.state))
    assert allocator.offer(shop, 2) == {"order": ["ord_00002", "ord_00003"]}
    allocator.advance(shop, EntityIndex.build(shop, shop.state), ["made ord_00009 up"])
    assert allocator.offer(shop, 1) == {"order": ["ord_00010"]}


def test_virtual_clock_steps_per_call(shop: World) -> None:
    assert virtual_now(shop, 1) == "2026-03-02T09:00:00Z"
    assert virtual_now(shop, 41) == "2026-03-02T10:00:00Z"
    world = parse_world(HEAD + "clock: {start: '2026-03-02T09:00:00+01:00', step_seconds: 1}\n")
    assert virtual_now(world, 2) == "2026-03-02T09:00:01+01:00"


def test_committed_schema_matches_the_models() -> None:
    path = Path(__file__).resolve().parents[2] / "schemas" / "world.schema.json"
    assert json.loads(path.read_text()) == world_json_schema()
