"""The values a call's arguments give, as the state's index looks them up: each scalar
normalized, and a compound key's parts (a unit's path ``GRA12/AMB2452``, ``warehouse|sku``)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from mcp_sim.runtime.state_shape import normalize

COMPOUND = re.compile(r"\s*[/|:;>]\s*")
"""The separators of a compound key's parts."""
_TIME = re.compile(
    r"^(?:\d{4}-\d{2}-\d{2}[T ])?\d{1,2}:\d{2}(?::\d{2})?(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?$"
)
"""A time of day, alone or in a timestamp: its colons separate no key's parts (``04:40:00Z``
is no path to a record ``40``)."""


def argument_values(arguments: Any) -> Iterator[str]:
    """The normalized scalar values of a call's arguments, each once."""
    seen: set[str] = set()

    def walk(value: Any) -> Iterator[str]:
        if isinstance(value, dict):
            for item in value.values():
                yield from walk(item)
        elif isinstance(value, list):
            for item in value:
                yield from walk(item)
        else:
            label = normalize(value)
            if label is not None and label not in seen:
                seen.add(label)
                yield label
            if isinstance(value, str) and COMPOUND.search(value) and not _TIME.match(value):
                # A compound key (a unit's path, "warehouse|sku") names its parts, the
                # last (the innermost) first.
                for part in reversed(COMPOUND.split(value)):
                    yield from walk(part) if part != value else iter(())

    yield from walk(arguments)


def argument_fields(arguments: dict[str, Any]) -> dict[str, str]:
    """Normalized top-level scalar argument values → the argument's name."""
    named: dict[str, str] = {}
    for name, value in arguments.items():
        for label in argument_values(value):
            named.setdefault(label, name)
    return named
