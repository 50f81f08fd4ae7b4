"""What a tool's name, description and output schema say it is about: the words they name,
and the collections whose records it answers a list of (see
:mod:`mcp_sim.prompting.field_search`)."""

from __future__ import annotations

import re
from typing import Any

from mcp_sim.prompting.field_names import plural_words, tokens


def tool_words(name: str, description: str = "") -> set[str]:
    """The words of a tool's name (and the first sentence of its description)."""
    first = description.split(". ")[0] if description else ""
    return set(tokens(name)) | {w.lower() for w in tokens(first)}


def asked_words(name: str, description: str, output_schema: dict[str, Any] | None) -> set[str]:
    """The words a tool names in the plural (a list of records it answers with): in its name,
    the first sentence of its description, its output schema's property names."""
    first = description.split(". ")[0] if description else ""
    texts = [name, first, *((output_schema or {}).get("properties") or {})]
    return {w for text in texts for w in plural_words(text)}


def asked_collections(
    name: str, description: str, output_schema: dict[str, Any] | None, collections: list[str]
) -> set[str]:
    """The ``collections`` (pointers) whose records a tool says it answers a list of: those
    its name, the first sentence of its description or its output schema's properties name
    in the plural (``depotDrivers``, "the accounts on the other side of an account's
    entries"), and every one when its output schema is a list."""
    if (output_schema or {}).get("type") == "array":
        return set(collections)
    plural = asked_words(name, description, output_schema)
    words = tool_words(name, description) | plural
    asked: set[str] = set()
    for pointer in collections:
        own = tokens(pointer.rsplit("/", 1)[-1])
        if own and own[-1] in plural and set(own) <= words:
            asked.add(pointer)
    return asked


_FIELD_LISTS = frozenset(["field", "select", "column", "property", "attribute", "source"])
"""Words of argument names that list the fields an answer holds (``fields``, ``_source``,
``properties``, ``select``, ``columns``)."""
_FIELD_NAME = re.compile(r"[A-Za-z_][\w.]*")


def field_list_words(arguments: dict[str, Any]) -> set[str]:
    """The words of the fields a call asks its answer to hold: the names an argument named
    for a list of fields gives (``fields: ["Name", "Account.Name"]``, ``_source: "a,b"``),
    each path's words (``account``, ``name``)."""
    words: set[str] = set()
    for name, value in arguments.items():
        if not _FIELD_LISTS & set(tokens(name)):
            continue
        names = value if isinstance(value, list) else [value]
        for item in names:
            if isinstance(item, str):
                words.update(w for found in _FIELD_NAME.findall(item) for w in tokens(found))
    return words
