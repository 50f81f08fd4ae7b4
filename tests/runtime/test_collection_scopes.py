"""Which collections a pointer is in, by look-up: the same answer as testing every collection."""

from __future__ import annotations

from typing import Any

from mcp_sim.runtime.collection_scopes import CollectionScopes, ancestors, scope_of
from mcp_sim.runtime.state_index import StateIndex
from mcp_sim.runtime.state_shape import within
from tests.runtime.test_mixed_collections import harbour_items
from tests.runtime.test_state_keys import store, world_of


def days_of_channels() -> dict[str, Any]:
    """A chat export: a channel's messages filed per day, a list of messages per day file."""
    return {
        channel: {
            f"2025-01-0{day}.json": [
                {"ts": f"{day}.{n}", "user": f"U{n}", "text": f"note {n} in {channel}"}
                for n in range(1, 5)
            ]
            for day in range(1, 6)
        }
        for channel in ("general", "random", "deploys")
    } | {"users.json": [{"id": f"U{n}", "name": f"User {n}"} for n in range(1, 5)]}


def test_ancestors_are_every_pointer_above_outermost_first() -> None:
    assert ancestors("/a/b/c") == ["", "/a", "/a/b"]
    assert ancestors("") == []


def test_a_kinds_scope_is_its_array_and_a_plain_collections_itself() -> None:
    assert scope_of("/harbour/items/@Vessel") == "/harbour/items"
    assert scope_of("/station:*") == ""
    assert scope_of("/general/2025-01-01.json") == "/general/2025-01-01.json"


def test_the_collections_found_by_scope_are_those_every_collection_test_finds() -> None:
    for state in (days_of_channels(), {"harbour": {"items": harbour_items()}}, store()):
        index = StateIndex(world_of(state), state)
        scopes = CollectionScopes(index.collections)
        pointers = list(index.records) + [f"{p}/text" for p in index.records] + ["/nowhere/1"]
        for pointer in pointers:
            tested = [c for c in index.collections if within(c.pointer, pointer)]
            assert scopes.holding(pointer) == tested, pointer
        assert len(index.collections) >= 3


def test_a_message_of_a_channels_day_is_in_its_channels_collection() -> None:
    # The day files are partitions of the channel's messages (see state_partitions).
    state = days_of_channels()
    index = StateIndex(world_of(state), state)
    found = index.collection_of("/random/2025-01-03.json/2/text")
    assert found is not None and found.pointer == "/random" and found.size == 20
    assert index.owner("/random/2025-01-03.json/2/text", state) == "/random/2025-01-03.json/2"
