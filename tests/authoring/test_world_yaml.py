"""The one YAML writer of world files: readable blocks, the given key order, no aliases, and
nothing written that would not load."""

from __future__ import annotations

from typing import Any

import pytest

from mcp_sim.authoring.world_yaml import checked_world_yaml, world_yaml
from mcp_sim.errors import SpecError


def world_data(**extra: Any) -> dict[str, Any]:
    schema = {"type": "object", "properties": {"q": {"type": "string"}}}
    return {
        "world": "shop",
        "title": "Shop",
        "description": "A shop.\nIt sells books.",
        "tools": [
            {"name": "find", "description": "Find a book.", "input_schema": schema},
            {"name": "list", "description": "List books.", "input_schema": schema},
        ],
        **extra,
    }


def test_multi_line_text_is_a_block_and_keys_keep_their_order() -> None:
    text = world_yaml(world_data(), header="# Written for a test.\n")
    assert text.startswith("# Written for a test.\nworld: shop\ntitle: Shop\ndescription: |-\n")
    assert "  A shop.\n  It sells books.\n" in text


def test_a_schema_shared_by_two_tools_is_written_out_twice() -> None:
    text = world_yaml(world_data())
    assert "&" not in text and "*" not in text
    assert text.count("input_schema:\n    type: object") == 2


def test_the_checked_text_loads_as_the_same_world() -> None:
    text, world = checked_world_yaml(world_data(), file="<test>")
    assert world.description == "A shop.\nIt sells books."
    assert [t.name for t in world.tools] == ["find", "list"]
    assert text == world_yaml(world_data())


def test_a_world_that_would_not_load_names_the_file_line_and_field() -> None:
    data = world_data(domain="moon")
    with pytest.raises(SpecError) as caught:
        checked_world_yaml(data, file="<test>")
    [problem] = caught.value.problems
    line = world_yaml(data).splitlines().index("domain: moon") + 1
    assert (problem.file, problem.line, problem.path) == ("<test>", line, "domain")
