"""The YAML writer of world files: every world mcp-sim writes (imported from an MCP server or an
OpenAPI document, drafted by the model, exported with what a world learnt) goes through it.

Keys are written in the order given (the spec's order, or the real server's), multi-line strings
(descriptions, instructions, pages, fixture results) as ``|`` blocks for people to read, with
PyYAML falling back to quoting where a block cannot hold the string exactly. Anchors and aliases
are never written: a schema shared by two tools is written out twice, as people expect.
"""

from __future__ import annotations

from typing import Any

import yaml

from mcp_sim.spec.loading import parse_world
from mcp_sim.spec.world import World


class _WorldDumper(yaml.SafeDumper):
    def ignore_aliases(self, data: Any) -> bool:
        return True


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_WorldDumper.add_representer(str, _represent_str)


def world_yaml(data: dict[str, Any], *, header: str = "") -> str:
    """World data as the YAML text of a world file, after ``header`` (comment lines)."""
    return header + yaml.dump(
        data, Dumper=_WorldDumper, sort_keys=False, allow_unicode=True, width=100
    )


def checked_world_yaml(data: dict[str, Any], *, file: str, header: str = "") -> tuple[str, World]:
    """The YAML text of a world file and the world it loads as: a world that would not load is
    never written. Raises :class:`mcp_sim.errors.SpecError` naming ``file``, line and field."""
    text = world_yaml(data, header=header)
    return text, parse_world(text, file)
