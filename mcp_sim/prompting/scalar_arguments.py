"""A call's arguments as the ``(name, value)`` pairs a search reads as constraints.

Each argument holding a scalar or a list of scalars is one pair; a nested object's entries go
by their own names (a ``min``/``max`` entry under its parent's name). An argument holding a
**label selector** written as a string, as Kubernetes' ``-l``/``labelSelector`` takes it
(``"app=web,tier!=db,env in (prod,staging)"``; the name's last word ``selector``, ``labels``
or ``tags``), is read as one pair per requirement, each named by its label's key: ``app`` =
``web``, ``tier_not`` = ``db`` (a value ruled out), ``env`` = any of ``prod``, ``staging``
(``notin``: none of them). The search then ties each key to the label field it names, as it
ties any argument (``app`` ↔ ``labels/app``, ``app.kubernetes.io/name`` ↔ its own key).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from mcp_sim.prompting.field_names import tokens

_SELECTOR_NAMES = frozenset(["selector", "label", "labels", "tag", "tags"])
_KEY = r"[A-Za-z0-9][A-Za-z0-9._/-]*"
_REQUIREMENT = re.compile(
    rf"^\s*(?P<key>{_KEY})\s*(?:(?P<op>==|!=|=)\s*(?P<value>[A-Za-z0-9._-]*)"
    rf"|\s+(?P<set>in|notin)\s*\((?P<values>[^)]*)\))\s*$"
)
_PARTS = re.compile(r",(?![^(]*\))")
"""The commas between requirements, not those inside a set's parentheses."""


def selector_requirements(text: str) -> list[tuple[str, Any]] | None:
    """``text`` read as a label selector: one ``(name, value)`` per requirement (see the
    module); ``None`` when it is none (a plain value, or a requirement on a label's presence
    alone, which no equality says)."""
    found: list[tuple[str, Any]] = []
    for part in _PARTS.split(text):
        match = _REQUIREMENT.match(part)
        if match is None:
            return None
        key = match["key"]
        if match["op"] is not None:
            found.append((f"{key}_not" if match["op"] == "!=" else key, match["value"]))
            continue
        values = [v.strip() for v in match["values"].split(",") if v.strip()]
        found.append((f"{key}_not" if match["set"] == "notin" else key, values))
    return found or None


def scalar_arguments(arguments: dict[str, Any], parent: str = "") -> Iterator[tuple[str, Any]]:
    """``(name, value)`` per argument with a scalar or a list of scalars; a nested object's
    entries by their own names (a ``min``/``max`` entry under its parent's name); a label
    selector's requirements each by its key (see the module)."""
    for name, value in arguments.items():
        if isinstance(value, dict):
            yield from scalar_arguments(value, name)
            continue
        if isinstance(value, list) and not all(
            not isinstance(v, dict | list) and v is not None for v in value
        ):
            continue
        if value is None or isinstance(value, bool) or value in ("", []):
            continue
        bare = tokens(name)
        if isinstance(value, str) and bare and bare[-1] in _SELECTOR_NAMES:
            requirements = selector_requirements(value)
            if requirements is not None:
                yield from requirements
                continue
        yield (f"{parent}_{name}" if parent and bare and bare[0] in ("min", "max") else name), value
