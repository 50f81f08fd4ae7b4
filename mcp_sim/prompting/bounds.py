"""Output bounds for small world models.

A small model under a grammar constraint can keep a string or an array open until it runs out
of tokens, and a base model without a chat-tuned stop habit never closes a
``<predicted_observation>`` tag. Bounding what the grammar allows closes both doors: strings and
arrays get a maximum size in the schema *sent to the model* (the tool's own schema, which
validates the answer, stays as the world wrote it), and free-text observations are asked for
inside a one-field JSON envelope whose string is bounded.

Off by default: a capable model (Qwen-AgentWorld) needs neither, and the bounds would cut long
observations. The embedded tiny model turns them on.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

ENVELOPE_KEY = "observation"


@dataclass(frozen=True)
class OutputBounds:
    max_string: int = 400
    """Longest string the model may write (characters)."""
    max_items: int = 8
    """Longest array the model may write."""

    def __post_init__(self) -> None:
        if self.max_string < 1 or self.max_items < 1:
            raise ValueError("output bounds must be at least 1")


_SUBSCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_SUBSCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")
_SUBSCHEMA_SINGLE = ("items", "additionalProperties", "not", "if", "then", "else", "contains")


def bounded_schema(schema: Any, bounds: OutputBounds) -> Any:
    """A copy of ``schema`` in which every string and array has an upper size bound. Only
    upper bounds are added, so anything valid against the result is valid against ``schema``."""
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = dict(schema)
    kinds = out.get("type")
    kinds = set(kinds) if isinstance(kinds, list) else {kinds}
    # A pattern already bounds its string, and xgrammar (vLLM's default structured-output
    # backend) refuses a string that has both a pattern and a length.
    if "string" in kinds and not {"maxLength", "enum", "const", "pattern"} & out.keys():
        out["maxLength"] = max(bounds.max_string, int(out.get("minLength", 0)))
    if "array" in kinds and "maxItems" not in out:
        out["maxItems"] = max(bounds.max_items, int(out.get("minItems", 0)))
    for key in _SUBSCHEMA_MAPS:
        if isinstance(out.get(key), dict):
            out[key] = {k: bounded_schema(v, bounds) for k, v in out[key].items()}
    for key in _SUBSCHEMA_LISTS:
        if isinstance(out.get(key), list):
            out[key] = [bounded_schema(v, bounds) for v in out[key]]
    for key in _SUBSCHEMA_SINGLE:
        if key in out:
            out[key] = bounded_schema(out[key], bounds)
    return out


def envelope_schema(bounds: OutputBounds, *, may_be_empty: bool = False) -> dict[str, Any]:
    """The schema of a free-text observation wrapped for a small model; ``may_be_empty`` lets
    the observation be the empty string (a tool whose real answer is nothing, such as a
    "think" tool), which the grammar otherwise rules out."""
    text: dict[str, Any] = {"type": "string", "maxLength": bounds.max_string}
    if not may_be_empty:
        text["minLength"] = 1
    return {
        "type": "object",
        "properties": {ENVELOPE_KEY: text},
        "required": [ENVELOPE_KEY],
        "additionalProperties": False,
    }


def open_envelope(content: str) -> str | None:
    """The observation inside an envelope answer, or None when it is not one."""
    try:
        data = json.loads(content)
    except json.JSONDecodeError:
        return None
    if isinstance(data, dict) and isinstance(data.get(ENVELOPE_KEY), str):
        return str(data[ENVELOPE_KEY])
    return None
