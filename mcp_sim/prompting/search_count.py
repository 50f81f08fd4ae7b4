"""What a search tool calls the number of records that meet its arguments.

A search may answer with its records wrapped beside their count (``{"matches": [...],
"total": 40}``), the count being of every record that meets the arguments, not of those one
page shows. The tool's output schema names that field among its properties or the fields it
requires: a name of the words ``total`` or ``count`` (``total``, ``totalCount``,
``result_count``) that is no list nor text. The view then writes the count of the records it
found under that name, so the model answers with it.
"""

from __future__ import annotations

from typing import Any

from mcp_sim.prompting.field_names import tokens
from mcp_sim.spec.world import ToolSpec

_COUNT_WORDS = frozenset({"total", "count"})
_NOT_A_COUNT = frozenset({"array", "object", "string", "boolean"})


def count_field(tool: ToolSpec | None) -> str | None:
    """The output field of ``tool`` that holds how many records meet a search, if it has
    one beside a list of them."""
    schema: Any = tool.output_schema if tool is not None else None
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
