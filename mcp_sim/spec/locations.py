"""Where a problem sits in a world: a path of keys and indexes (``tools[0].input_schema``),
and a line and column in its text.

The models report cross-field problems at such paths, and the loader walks them down the YAML
node graph to a file line (:mod:`mcp_sim.spec.loading`); problems found in the text itself
(bytes that are not UTF-8, control characters) are located by offset, lines counted as YAML
counts them.
"""

from __future__ import annotations

import re

import yaml

Location = tuple[int | str, ...]
"""Keys and list indexes from the root of a world file down to a value."""

LINE_BREAK = re.compile("\r\n|[\r\n\x85\u2028\u2029]")
"""What ends a line in YAML: besides CR and LF, NEL and the Unicode line and paragraph
separators."""


class NestedValueError(ValueError):
    """A field validator's error that sits deeper inside the field's value (``path``), so the
    loader can point at the exact line instead of at the field's key."""

    def __init__(self, message: str, path: Location) -> None:
        super().__init__(message)
        self.path = path


def format_location(loc: Location) -> str:
    """``("tools", 0, "name")`` as ``tools[0].name``."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def line_and_column(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column of the character at ``offset`` in ``text``, with lines broken
    where YAML breaks them (as the parser's own positions are)."""
    breaks = list(LINE_BREAK.finditer(text, 0, offset))
    line_start = breaks[-1].end() if breaks else 0
    return len(breaks) + 1, offset - line_start + 1


def node_path(root: yaml.Node, target: yaml.Node) -> Location:
    """The keys and indexes from ``root`` down to ``target`` (``()`` if it is not found)."""
    pending: list[tuple[yaml.Node, Location]] = [(root, ())]
    seen: set[int] = set()
    while pending:
        node, path = pending.pop()
        if node is target:
            return path
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            for key_node, value_node in node.value:
                key = str(key_node.value) if isinstance(key_node, yaml.ScalarNode) else "?"
                if key_node is target:
                    return (*path, key)
                pending.append((value_node, (*path, key)))
        elif isinstance(node, yaml.SequenceNode):
            pending += [(item, (*path, i)) for i, item in enumerate(node.value)]
    return ()
