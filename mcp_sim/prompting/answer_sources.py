"""Where an answer's field takes its value from in a record of the state."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from mcp_sim.runtime.composite_keys import key_parts
from mcp_sim.runtime.state_paths import resolve

MAX_DEPTH = 6


@dataclass(frozen=True)
class Source:
    """Where an answer's key takes its value from: a field (its path in the record), whole
    or, for a composite key (``SPACE#OBA-1-03``), its ``part``-th part (``OBA-1-03``)."""

    path: str
    part: int | None = None

    def value(self, record: dict[str, Any]) -> Any:
        found = resolve(record, "/" + self.path)
        if self.part is None:
            return found
        parts = key_parts(found) if isinstance(found, str) else []
        return parts[self.part] if self.part < len(parts) else None

    def __str__(self) -> str:
        return self.path if self.part is None else f"part {self.part + 1} of {self.path}"


def leaves(value: Any, path: str = "", depth: int = 0) -> Iterator[tuple[str, Any]]:
    """The scalar fields of a record, at any depth, by their paths (no leading slash)."""
    if depth > MAX_DEPTH:
        return
    if isinstance(value, dict):
        for key, inner in value.items():
            yield from leaves(inner, f"{path}/{_escape(str(key))}", depth + 1)
    elif isinstance(value, list):
        for i, inner in enumerate(value):
            yield from leaves(inner, f"{path}/{i}", depth + 1)
    elif is_scalar(value) and path:
        yield path.lstrip("/"), value


def is_scalar(value: Any) -> bool:
    return isinstance(value, str | int | float) and not isinstance(value, bool)


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")
