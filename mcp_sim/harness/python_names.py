"""From a world's tool names, argument names and JSON Schemas to Python names and type
annotations, for the methods of generated shims."""

from __future__ import annotations

import json
import keyword
import re
from typing import Any

_NOT_A_NAME = re.compile(r"[^0-9A-Za-z_]")
_SCALARS = {"string": "str", "integer": "int", "number": "float", "boolean": "bool"}


def python_name(name: str, taken: set[str] | frozenset[str] = frozenset()) -> str:
    """``name`` as a Python identifier: other characters become ``_``, a leading digit or a
    keyword gets ``_`` around it, and a name in ``taken`` gets a ``_`` after it."""
    safe = _NOT_A_NAME.sub("_", name) or "_"
    if safe[0].isdigit():
        safe = f"_{safe}"
    while keyword.iskeyword(safe) or safe in taken:
        safe = f"{safe}_"
    return safe


def class_name(world_id: str) -> str:
    """A world id (``tidewater-orders``) as a class name (``TidewaterOrders``)."""
    words = [w for w in re.split(r"[^0-9A-Za-z]+", world_id) if w]
    joined = "".join(w[:1].upper() + w[1:] for w in words) or "World"
    return f"World{joined}" if joined[0].isdigit() else joined


def annotation(schema: Any) -> str:
    """The Python type of a value valid against ``schema`` (JSON Schema), as source text:
    scalars, typed lists, dicts, unions of types; ``Any`` where the schema says no more."""
    if not isinstance(schema, dict):
        return "Any"
    kind = schema.get("type")
    if isinstance(kind, list):
        parts = [annotation({**schema, "type": k}) for k in kind if k != "null"]
        return " | ".join(dict.fromkeys(parts)) or "Any"
    if kind in _SCALARS:
        return _SCALARS[kind]
    if kind == "array":
        return f"list[{annotation(schema.get('items'))}]"
    if kind == "object":
        return "dict[str, Any]"
    if schema.get("enum"):
        kinds = {type(v).__name__ for v in schema["enum"]}
        return next(iter(kinds)) if len(kinds) == 1 and kinds <= {"str", "int", "float"} else "Any"
    return "Any"


def describe(name: str, schema: Any) -> str:
    """One line saying what argument ``name`` is: its schema's description (or its name), and
    its choices as ``(choices: [...])``, which is how transformers' ``get_json_schema`` reads
    an enum from a docstring."""
    text = ""
    if isinstance(schema, dict):
        text = " ".join(str(schema.get("description") or "").split())
    text = text or name.replace("_", " ")
    if isinstance(schema, dict) and isinstance(schema.get("enum"), list):
        text += f" (choices: {json.dumps(schema['enum'])})"
    return text
