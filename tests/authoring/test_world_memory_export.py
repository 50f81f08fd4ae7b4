"""A world file written back with what its memory file learnt, from Python as ``mcp-sim world
export`` writes it; a world without a web has nothing to export."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcp_sim.authoring.world_export import export_world_memory
from mcp_sim.errors import SimError
from mcp_sim.spec.loading import load_world
from mcp_sim.spec.world import World
from mcp_sim.spec.world_files import example_path
from mcp_sim.web.world_memory import WorldMemory


def test_the_pages_a_memory_file_holds_join_the_world(tmp_path: Path) -> None:
    world = load_world(example_path("search"))
    memory_file = tmp_path / "web.db"
    with WorldMemory(world.world, memory_file) as memory:
        memory.add_page("https://learnt.example/page", "A learnt page", content="What it said.")
    text = export_world_memory(world, memory_file)
    assert "https://learnt.example/page" in text and "What it said." in text


def test_a_world_without_a_web_has_no_memory_to_export(bookstore: World, tmp_path: Path) -> None:
    with pytest.raises(SimError, match="keeps the pages of a world's web"):
        export_world_memory(bookstore, tmp_path / "books.db")
    assert not (tmp_path / "books.db").exists()
