"""Caps on a server's episodes: how many in all and per world, and how many JSON values a
snapshot may have, counted before it is parsed."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from mcp_sim.episodes.hub import EpisodeHub
from mcp_sim.episodes.limits import EpisodeLimits, json_values_at_most
from mcp_sim.errors import CapacityReached, SnapshotInvalid
from mcp_sim.simulator.core import Simulator
from mcp_sim.spec.world import World


def values_in(document: Any) -> int:
    if isinstance(document, dict):
        return 1 + sum(values_in(v) for v in document.values())
    if isinstance(document, list):
        return 1 + sum(values_in(v) for v in document)
    return 1


def random_document(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.choice(["list", "dict", "leaf", "leaf"] if depth < 4 else ["leaf"])
    if kind == "list":
        return [random_document(rng, depth + 1) for _ in range(rng.randrange(4))]
    if kind == "dict":
        return {f"k{i}": random_document(rng, depth + 1) for i in range(rng.randrange(4))}
    return rng.choice([0, 1.5, "a,b[c{", "{}[]", None, True, "plain"])


def test_the_count_before_parsing_bounds_the_values_parsing_gives() -> None:
    rng = random.Random(7)
    for _ in range(300):
        document = random_document(rng)
        text = json.dumps(document, separators=(",", ":"))
        assert values_in(document) <= json_values_at_most(text) <= 4 * len(text)
    # Tight where it matters: a long flat array or object is counted exactly.
    assert json_values_at_most(json.dumps([{}] * 1000)) == 1001
    assert json_values_at_most('["{}", "[]", "{[]}"]') >= 4
    assert json_values_at_most(json.dumps({f"k{i}": i for i in range(1000)})) == 1001


def test_a_snapshot_with_too_many_values_is_refused_whatever_its_bytes() -> None:
    limits = EpisodeLimits(max_snapshot_values=100)
    limits.check_snapshot(json.dumps({"state": list(range(90))}))
    with pytest.raises(SnapshotInvalid, match="over the limit of 100"):
        limits.check_snapshot(b"[" + b"{}," * 200 + b"{}]")


async def test_episodes_are_capped_in_all_and_per_world_and_freed_on_delete(
    shop: World, bookstore: World
) -> None:
    hub = EpisodeHub(
        {shop.world: Simulator(shop, None), bookstore.world: Simulator(bookstore, None)},
        limits=EpisodeLimits(max_episodes=3, max_world_episodes=2),
    )
    first = await hub.create(shop.world)
    await hub.create(shop.world)
    await hub.reset(first.id)  # a reset registers the episode again: still one
    with pytest.raises(CapacityReached, match="limit per world"):
        await hub.create(shop.world)
    await hub.create(bookstore.world)
    with pytest.raises(CapacityReached, match="--max-episodes"):
        await hub.create(bookstore.world)
    with pytest.raises(CapacityReached):
        await hub.fork(first.id)
    await hub.delete(first.id)
    await hub.create(shop.world)
    assert len(hub) == 3
