"""Where a problem sits in a world: a path of keys and indexes (``tools[0].input_schema``).

The models report cross-field problems at such paths, and the loader walks them down the YAML
node graph to a file line (:mod:`mcp_sim.spec.loading`).
"""

from __future__ import annotations

Location = tuple[int | str, ...]
"""Keys and list indexes from the root of a world file down to a value."""


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
