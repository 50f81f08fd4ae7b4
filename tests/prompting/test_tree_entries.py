"""Entries under a tree entry a call names by path, listed with their whole paths: a bucket of
objects kept as prefixes of prefixes (``items`` maps), not a file system's ``children``."""

from __future__ import annotations

from typing import Any

from mcp_sim.prompting.grounding import ground
from mcp_sim.prompting.state_view import StateView
from mcp_sim.runtime.state_index import StateIndex
from mcp_sim.spec.world import World


def bucket_world() -> World:
    """Prefixes keyed by name, each holding ``items``: objects and deeper prefixes."""
    prefixes: dict[str, Any] = {}
    for p in range(300):
        inner = {
            f"part-{n}.{'parquet' if n % 2 else 'json'}": {
                "bytes": 1000 * n + p,
                "uploader": ["kim", "lou"][n % 2],
            }
            for n in range(3)
        }
        prefixes[f"logs{p}"] = {
            "items": {
                "day1": {"items": inner, "uploader": "kim"},
                "index.json": {"bytes": 10 + p, "uploader": "lou"},
            },
            "uploader": "kim",
        }
    return World.model_validate(
        {
            "world": "t",
            "title": "T",
            "description": "A bucket.",
            "state": {"bucket": {"items": prefixes, "uploader": "root"}},
            "tools": [
                {
                    "name": "list_objects",
                    "description": "Objects under a prefix by uploader and format.",
                    "input_schema": {"type": "object"},
                }
            ],
        }
    )


def test_the_entries_under_a_path_are_listed_by_their_paths_best_first() -> None:
    world = bucket_world()
    overlay = StateIndex(world, world.state).overlay_of(world.state)
    arguments = {"key": "/logs7", "uploader": "lou", "format": "parquet"}
    grounding = ground(overlay, world.state, world.tool("list_objects"), arguments)
    assert grounding.tree is not None
    paths = [path for path, _ in grounding.tree.entries]
    assert sorted(paths) == [
        "/logs7/day1/part-0.json",
        "/logs7/day1/part-1.parquet",
        "/logs7/day1/part-2.json",
        "/logs7/index.json",
    ]
    # The one object holding both the uploader and the format asked for comes first.
    assert paths[0] == "/logs7/day1/part-1.parquet"
    text = grounding.tree.render(2_000)
    assert '{"key":"/logs7/day1/part-1.parquet","bytes":1007,"uploader":"lou"}' in text
    assert "… and" not in text
    tight = grounding.tree.render(300)
    assert "/logs7/day1/part-1.parquet" in tight and "more, not shown for room" in tight
    view = StateView(world, budget_tokens=2_000).render(
        world.state, None, (), tool=world.tool("list_objects"), arguments=arguments
    )
    assert '"key":"/logs7/day1/part-1.parquet"' in view


def test_a_path_to_an_innermost_entry_or_a_plain_value_lists_nothing() -> None:
    world = bucket_world()
    overlay = StateIndex(world, world.state).overlay_of(world.state)
    tool = world.tool("list_objects")
    assert ground(overlay, world.state, tool, {"key": "/logs7/index.json"}).tree is None
    assert ground(overlay, world.state, tool, {"key": "logs7"}).tree is None
