"""A committed patch as the designer reads it: each operation with the value before and after
it, the operations applied one at a time so that an index means what it meant to the patch."""

from __future__ import annotations

import json
from typing import Any

import jsonpatch
from jsonpointer import JsonPointer, JsonPointerException

from mcp_sim.runtime.state import copied_along

ABSENT = object()
MAX_VALUE_CHARS = 4000
"""A value longer than this (as JSON) is cut, so that a patch replacing a whole collection does
not send the page megabytes."""


def _shown(value: Any) -> dict[str, Any]:
    if value is ABSENT:
        return {"absent": True}
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    if len(text) <= MAX_VALUE_CHARS:
        return {"json": text}
    return {"json": text[:MAX_VALUE_CHARS], "cut": len(text)}


def _at(document: Any, path: str) -> Any:
    if path.endswith("/-"):
        parent = _at(document, path[:-2])
        return parent[-1] if isinstance(parent, list) and parent else ABSENT
    try:
        return JsonPointer(path).resolve(document, ABSENT)
    except JsonPointerException:
        return ABSENT


def _inserted(document: Any, path: str) -> bool:
    """Whether an ``add`` at ``path`` inserts into an array (nothing was there before)."""
    parent, _, _ = path.rpartition("/")
    return path.endswith("/-") or isinstance(_at(document, parent), list)


def patch_diff(patch: list[dict[str, Any]], before: dict[str, Any]) -> list[dict[str, Any]]:
    """``patch``'s operations on ``before``, each ``{"op", "path", "from"?, "before",
    "after"}`` where before/after are ``{"json": text}`` or ``{"absent": true}`` (and
    ``"cut"``: the full length, when the text was cut). An operation that does not apply ends
    the list with ``"error"``: the patch then was not the one committed."""
    rows: list[dict[str, Any]] = []
    document: Any = before
    for op in patch:
        kind, path = op.get("op"), op.get("path")
        if not isinstance(path, str) or kind == "test":
            continue
        source = op.get("from")
        if kind in ("move", "copy") and isinstance(source, str):
            old = _at(document, source)
        elif kind == "add" and _inserted(document, path):
            old = ABSENT
        else:
            old = _at(document, path)
        try:
            document = jsonpatch.apply_patch(copied_along(document, [op]), [op], in_place=True)
        except (jsonpatch.JsonPatchException, JsonPointerException) as exc:
            rows.append({"op": kind, "path": path, "error": str(exc)})
            break
        new = ABSENT if kind == "remove" else _at(document, path)
        row = {"op": kind, "path": path, "before": _shown(old), "after": _shown(new)}
        if isinstance(source, str):
            row["from"] = source
        rows.append(row)
    return rows
