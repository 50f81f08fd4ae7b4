"""The values a call's arguments give, as the state's index looks them up: each scalar
normalized, a compound key's parts (a unit's path ``GRA12/AMB2452``, ``warehouse|sku``) and a
query's values (``alice@x.org`` and ``Q5`` of ``from:alice@x.org wd:Q5``, not its fields'
names, its bounds or what it rules out: see :mod:`mcp_sim.prompting.query_operands`)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from mcp_sim.prompting.field_names import read_argument
from mcp_sim.prompting.query_operands import Operand, query_operands
from mcp_sim.prompting.scalar_arguments import operand_name
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
        for scalar in _scalars(value):
            label = normalize(scalar)
            if label is not None and label not in seen:
                seen.add(label)
                yield label
            query = query_values(scalar) if isinstance(scalar, str) else None
            if query is not None:
                yield from walk(query)
            elif isinstance(scalar, str) and COMPOUND.search(scalar) and not _TIME.match(scalar):
                # A compound key (a unit's path, "warehouse|sku") names its parts, the
                # last (the innermost) first.
                for part in reversed(COMPOUND.split(scalar)):
                    yield from walk(part) if part != scalar else iter(())

    yield from walk(arguments)


def query_values(text: str) -> list[str] | None:
    """The values of ``text`` read as a query that may name records (see
    :func:`_names_records`), as written; ``None`` when it is no query."""
    operands = query_operands(text)
    if operands is None:
        return None
    values = (o.value if isinstance(o.value, list) else [o.value] for o in operands)
    return [str(v) for o, vs in zip(operands, values, strict=True) if _names_records(o) for v in vs]


def queried_values(arguments: Any) -> set[str]:
    """The normalized values that the call's queries give (see :func:`query_values`)."""
    texts = [v for v in _scalars(arguments) if isinstance(v, str)]
    found = (query_values(t) for t in texts)
    return {label for values in found for label in map(normalize, values or []) if label}


def _scalars(value: Any) -> Iterator[Any]:
    if isinstance(value, dict | list):
        for item in value.values() if isinstance(value, dict) else value:
            yield from _scalars(item)
    else:
        yield value


def _names_records(operand: Operand) -> bool:
    """Whether a query operand's value may name records: one it equals, matches, has for a
    word or gives as a literal, not a bound, a part, a value ruled out or a control
    (``sort:created-desc``)."""
    if operand.op == "literal":
        return True
    how = read_argument(operand_name(operand))
    return how.op in ("eq", "match", "text") and not how.control


def argument_fields(arguments: dict[str, Any]) -> dict[str, str]:
    """Normalized top-level scalar argument values → the argument's name."""
    named: dict[str, str] = {}
    for name, value in arguments.items():
        for label in argument_values(value):
            named.setdefault(label, name)
    return named
