"""The page of a search's records a call asks for (``limit``/``offset``, ``page``/``page_size``).

A paged search answers with a slice of the records meeting its arguments: from ``offset``
(or from ``(page - 1) * page_size``, pages counted from 1 unless the argument's description
says they count from 0) at most ``limit`` (or ``page_size``) of them. Where the size is not
given, the size argument's description may give its default (``default 20``). The view shows
the page's records first and says which they are (see
:mod:`mcp_sim.prompting.records_section`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from mcp_sim.prompting.field_names import read_argument, tokens
from mcp_sim.spec.world import ToolSpec

_SIZE = frozenset({"limit", "size", "per", "top", "take"})
_OFFSET = frozenset({"offset", "skip"})
_PAGE = frozenset({"page"})
_DEFAULT = re.compile(r"default(?:s to| is|:)?\s*(\d+)", re.IGNORECASE)
_FROM_ZERO = re.compile(r"\b(?:0|zero)[- ]based\b|from 0\b", re.IGNORECASE)


@dataclass(frozen=True)
class Page:
    """The records a paged search answers with: ``count`` of them (all when ``None``) from
    the ``start``-th (counted from 0) of those meeting every constraint."""

    start: int
    count: int | None

    def first(self, full: list[str]) -> list[str]:
        """``full`` with the page's records first (the others after them, in order)."""
        end = len(full) if self.count is None else self.start + self.count
        return full[self.start : end] + full[: self.start] + full[end:]

    def describe(self, total: int) -> str:
        """Which records the page holds, of ``total`` meeting them all ("" when all)."""
        end = total if self.count is None else min(total, self.start + self.count)
        if self.start >= total > 0:
            return f"the page asked for starts past them (at record {self.start + 1})"
        if self.start == 0 and end == total:
            return ""
        return f"the page asked for is records {self.start + 1} to {end} of them, shown first"


def _role(name: str) -> str | None:
    if not read_argument(name).control:
        return None
    words = set(tokens(name))
    if words & _OFFSET:
        return "offset"
    if words & _PAGE and not words & _SIZE and "size" not in words:
        return "page"
    if words & _SIZE or (words & _PAGE and "size" in words):
        return "size"
    return None


def _description(tool: ToolSpec | None, name: str) -> str:
    properties = tool.input_schema.get("properties") if tool is not None else None
    schema: Any = properties.get(name) if isinstance(properties, dict) else None
    text = schema.get("description") if isinstance(schema, dict) else None
    return text if isinstance(text, str) else ""


def page_asked(tool: ToolSpec | None, arguments: dict[str, Any]) -> Page | None:
    """The page ``arguments`` ask for, when they name one that is not simply the first
    records (an offset, a later page, or a size)."""
    found: dict[str, tuple[str, int]] = {}
    properties = tool.input_schema.get("properties") if tool is not None else None
    names = [*arguments, *(properties if isinstance(properties, dict) else {})]
    for name in dict.fromkeys(names):
        role = _role(name)
        value = arguments.get(name)
        if role is None or role in found:
            continue
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            found[role] = (name, value)
        elif role == "size" and (default := _DEFAULT.search(_description(tool, name))):
            found[role] = (name, int(default.group(1)))
    size = found["size"][1] if "size" in found else None
    if "offset" in found:
        return Page(found["offset"][1], size)
    if "page" in found and size:
        name, number = found["page"]
        first = 0 if _FROM_ZERO.search(_description(tool, name)) else 1
        return Page(max(0, number - first) * size, size)
    if size is not None and "size" in found and found["size"][0] in arguments:
        return Page(0, size)
    return None
