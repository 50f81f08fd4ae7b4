"""What a search tool calls the number of records that meet its arguments.

A search may answer with its records wrapped beside their count (``{"matches": [...],
"total": 40}``), the count being of every record that meets the arguments, not of those one
page shows. The tool's output schema names that field among its properties or the fields it
requires: a name of the words ``total`` or ``count`` (``total``, ``totalCount``,
``result_count``) that is no list nor text. Without an output schema, an earlier answer of
the session wrapped that way (an object of one list and one such count, nothing else) shows
the name the world's searches use. The view then writes the count of the records it found
under that name, so the model answers with it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from mcp_sim.prompting.field_names import tokens
from mcp_sim.spec.world import ToolSpec

_COUNT_WORDS = frozenset({"total", "count"})
_NOT_A_COUNT = frozenset({"array", "object", "string", "boolean"})


def count_field(tool: ToolSpec | None, answers: Iterable[str] = ()) -> str | None:
    """The output field of ``tool`` that holds how many records meet a search, if it has
    one beside a list of them (without an output schema: as earlier ``answers`` name it)."""
    schema: Any = tool.output_schema if tool is not None else None
    if schema is None:
        return next(filter(None, map(_wrapped_count, answers)), None)
    if not isinstance(schema, dict) or schema.get("type") not in (None, "object"):
        return None
    properties = schema.get("properties")
    properties = properties if isinstance(properties, dict) else {}
    required = schema.get("required")
    names: list[str] = [*properties, *(n for n in required or () if isinstance(n, str))]
    for name in dict.fromkeys(names):
        declared = properties.get(name)
        kind = declared.get("type") if isinstance(declared, dict) else None
        if set(tokens(name)) & _COUNT_WORDS and kind not in _NOT_A_COUNT:
            return name
    return None


def _wrapped_count(text: str) -> str | None:
    """The count's name in an answer made of one list and its count (``{"items": [...],
    "total": 3}``)."""
    if not text.startswith("{"):
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    if not isinstance(value, dict) or len(value) != 2:
        return None
    lists = [v for v in value.values() if isinstance(v, list)]
    counts = [
        name
        for name, v in value.items()
        if isinstance(v, int) and not isinstance(v, bool) and set(tokens(name)) & _COUNT_WORDS
    ]
    return counts[0] if lists and counts else None
