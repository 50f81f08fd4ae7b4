"""Arguments that ask for a yes or a no: ``refunded: false``, ``active: true``, SOQL's
``IsClosed = false``, OData's ``Discontinued eq true``.

A boolean is no value the index looks up (it labels no record), so such an argument once
constrained nothing and the search kept records of either kind. It is read as a constraint
only on the fields its name fits whose values are booleans (``refunded`` ↔ ``refunded``,
``active`` ↔ ``active``, ``IsClosed`` ↔ ``IsClosed``): a flag no such field answers to
(``anon: true``, ``include_archived``) shapes the answer and is left alone. A query's
literal ``true`` or ``false`` is the boolean it spells.
"""

from __future__ import annotations

from typing import Any

from mcp_sim.prompting.field_names import name_score
from mcp_sim.prompting.record_fields import SELF, FieldSchema

TRUTH_OP = "is"
"""The operation of a constraint on a boolean field: the value is the boolean itself."""
_NAME_FIT = 0.85
"""The least name fit that ties a yes or a no to a field: a flag says nothing about which
field it is but by its name."""
_WORDS = {"true": True, "false": False}


def truth_of(value: Any) -> bool | None:
    """``value`` as a boolean: itself, or a literal ``true``/``false`` (any case); else
    ``None``."""
    if isinstance(value, bool):
        return value
    return _WORDS.get(value.strip().casefold()) if isinstance(value, str) else None


def truth_fields(schema: FieldSchema, words: tuple[str, ...]) -> tuple[tuple[str, ...], float]:
    """The boolean fields whose name fits ``words`` best, and how well; none when no
    boolean field's name fits well enough."""
    best, found = 0.0, []
    for path, info in schema.fields.items():
        if path == SELF or info.kind != "boolean":
            continue
        score = name_score(words, info.words)
        if score > best:
            best, found = score, [path]
        elif score == best:
            found.append(path)
    return (tuple(found), best) if best >= _NAME_FIT else ((), 0.0)


def meets_truth(actual: Any, wanted: Any) -> bool:
    """Whether a field's value is the boolean asked for (a boolean written as text too)."""
    return truth_of(actual) is truth_of(wanted) is not None
