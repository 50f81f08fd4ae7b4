"""The state index: collections found by shape, and sessions' overlays kept in step by patches."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from typing import Any

import jsonpatch
import pytest

from mcp_sim.runtime.state_collections import find_collections
from mcp_sim.runtime.state_index import StateIndex
from mcp_sim.runtime.state_shape import normalize
from mcp_sim.spec.world import World
from tests.world_generator import make_world, record_calls


def generated(shape: str, size_mb: float = 0.5, seed: int = 5) -> World:
    return World.model_validate(make_world(shape, size_mb, seed))


def test_values_are_looked_up_by_value_whatever_their_json_type() -> None:
    assert normalize(12) == normalize(12.0) == normalize("12") == normalize("12.00") == "12"
    assert normalize("129.50") == normalize(129.5) != normalize(129)
    assert normalize(" Ana@Example.org ") == "ana@example.org"
    assert normalize(True) is None and normalize(None) is None and normalize("") is None
    assert normalize("x" * 500) is None


@pytest.mark.parametrize(
    ("shape", "expected"),
    [
        ("ferry", {"/bookings": True, "/passengers": True, "/sailings": True}),
        ("clinic", {"/patients": False, "/clinicians": False, "/appointments": False}),
        (
            "warehouse",
            {"/catalog/items": True, "/partners/suppliers": False, "/operations/shipments": True},
        ),
    ],
)
def test_collections_are_found_by_shape_keyed_or_arrays_at_any_depth(
    shape: str, expected: dict[str, bool]
) -> None:
    world = generated(shape)
    found = {c.pointer: c for c in find_collections(world, world.state)}
    for pointer, keyed in expected.items():
        assert pointer in found, sorted(found)
        assert found[pointer].keyed is keyed
        if not keyed:
            assert found[pointer].id_field is not None


def test_a_nested_maps_key_finds_its_record_and_where_inside() -> None:
    world = generated("ferry")
    index = StateIndex(world, world.state)
    code, sailing = next(iter(world.state["sailings"].items()))
    day = next(k for k, v in sailing.items() if isinstance(v, dict) and len(v) > 1)
    hits = index.overlay_of(world.state).key_hits(normalize(code) or "")
    assert [h.pointer for h in hits] == [f"/sailings/{code}"]
    inner = sailing[day]
    some_date = next(iter(inner)) if isinstance(inner, dict) else None
    if some_date is not None:
        overlay = index.overlay_of(world.state)
        dated = overlay.inner_hits(normalize(some_date) or "", 10**6)
        assert any(h.pointer == f"/sailings/{code}" and h.inner for h in dated)
        # Most sailings run that day: the date is a value to match, not a sailing's name.
        assert len(dated) > 3 and not overlay.key_hits(normalize(some_date) or "")


@pytest.mark.parametrize("shape", ["ferry", "clinic", "warehouse"])
def test_an_overlay_moved_on_by_patches_equals_one_rebuilt_from_the_state(shape: str) -> None:
    world = generated(shape, 0.4, seed=9)
    index = StateIndex(world, world.state)
    calls = [c for c in record_calls(shape, world.state, 9, 8, carry_state=True) if c.patch]
    assert calls, "the generated episodes have writes"
    state: Any = world.state
    overlay = index.overlay_of(state)
    for call in calls:
        after = jsonpatch.apply_patch(state, call.patch, in_place=False)
        overlay = overlay.advance(state, after, call.patch)
        state = after
    rebuilt = index.overlay_of(copy.deepcopy(state))
    labels = {label for facts in overlay.changed.values() if facts for label in facts.values}
    labels |= {label for facts in rebuilt.changed.values() if facts for label in facts.values}
    assert labels
    for label in sorted(labels)[:400]:
        assert overlay.value_hits(label) == rebuilt.value_hits(label), label
        assert sorted(h.pointer for h in overlay.key_hits(label)) == sorted(
            h.pointer for h in rebuilt.key_hits(label)
        ), label
    # Kept up to date record by record, the size may be off by a separator per new record.
    assert abs(overlay.size - rebuilt.size) <= len(calls)


_CHANGED_ORDER = """
import copy, json, jsonpatch
from mcp_sim.runtime.state_index import StateIndex
from mcp_sim.runtime.state_shape import normalize
from mcp_sim.spec.world import World
stock = {w: {f"A{n}": {"on_hand": n} for n in range(3)} for w in ("EAST", "WEST", "NORTH")}
tools = [{"name": "get", "description": "Get.", "input_schema": {"type": "object"}}]
spec = {"world": "t", "title": "T", "description": "D.", "state": {"stock": stock}}
world = World.model_validate(spec | {"tools": tools})
index = StateIndex(world, world.state)
patch = [{"op": "replace", "path": f"/stock/{w}/A1/on_hand", "value": 9} for w in stock]
after = jsonpatch.apply_patch(copy.deepcopy(world.state), patch)
overlay = index.overlay_of(world.state).advance(world.state, after, patch)
print(json.dumps([h.pointer for h in overlay.key_hits(normalize("A1") or "")]))
"""


def test_the_records_a_patch_changed_are_listed_in_one_order_in_every_process() -> None:
    # Sets of strings iterate in an order that depends on each process's hash seed: a
    # prompt built from one must not differ between two workers serving the same episode.
    runs = {
        subprocess.run(
            [sys.executable, "-c", _CHANGED_ORDER],
            env={**os.environ, "PYTHONHASHSEED": str(seed)},
            capture_output=True,
            text=True,
            check=True,
            timeout=60,
        ).stdout
        for seed in range(1, 7)
    }
    assert len(runs) == 1, runs
    assert len(json.loads(runs.pop())) == 3


def test_a_records_facts_are_the_sessions_changed_gone_or_the_worlds() -> None:
    world = generated("ferry", 0.2)
    overlay = StateIndex(world, world.state).overlay_of(world.state)
    first, second, third = (f"/sailings/{code}" for code in list(world.state["sailings"])[:3])
    untouched = overlay.facts(third)
    assert untouched is not None and overlay.facts(first) is not None
    after = copy.deepcopy(world.state)
    field = next(k for k, v in after["sailings"][first[10:]].items() if isinstance(v, str))
    after["sailings"][first[10:]][field] = "Renamed Thing"
    del after["sailings"][second[10:]]
    patch = [
        {"op": "replace", "path": f"{first}/{field}", "value": "Renamed Thing"},
        {"op": "remove", "path": second},
    ]
    moved = overlay.advance(world.state, after, patch)
    renamed = moved.facts(first)
    assert renamed is not None and normalize("Renamed Thing") in renamed.values
    assert moved.facts(third) is untouched  # untouched: the world's own facts
    # A record a change removed is gone, though the world's index still holds it.
    assert moved.facts(second) is None and not moved.exists(second)
    assert moved.base.records.get(second) is not None
