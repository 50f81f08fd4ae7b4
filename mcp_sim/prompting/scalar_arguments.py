"""A call's arguments as the ``(name, value)`` pairs a search reads as constraints.

Each argument holding a scalar (a boolean too: see :mod:`mcp_sim.prompting.truth_fields`) or
a list of scalars is one pair; a nested object's entries go by their own names (a
``min``/``max`` entry under its parent's name). An argument holding a
**label selector** written as a string, as Kubernetes' ``-l``/``labelSelector`` takes it
(``"app=web,tier!=db,env in (prod,staging)"``; the name's last word ``selector``, ``labels``
or ``tags``), is read as one pair per requirement, each named by its label's key: ``app`` =
``web``, ``tier_not`` = ``db`` (a value ruled out), ``env`` = any of ``prod``, ``staging``
(``notin``: none of them). The search then ties each key to the label field it names, as it
ties any argument (``app`` ↔ ``labels/app``, ``app.kubernetes.io/name`` ↔ its own key).

Any other string written as a **query** (see :mod:`mcp_sim.prompting.query_operands`:
``from:alice subject:"q3 report" -in:trash``, ``?item wdt:P31 wd:Q5``, ``up{job="api"}``) is
read the same way, one pair per operand, named so that :func:`read_argument` reads its
operation back: ``from_matches`` (the field's value or a part of it), ``in_not``,
``created_max``, ``instance_prefix``; a term standing alone is a pair without a name (a value
some field holds, whichever), or named ``text`` when it is a word to find; a literal that
constrains no field (a language tag) is none. A query written as a nested object (an
Elasticsearch body, a MongoDB filter, a GraphQL where-input, a list of filters: see
:mod:`mcp_sim.prompting.query_objects`) is read so too, one pair per operand.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from mcp_sim.prompting.field_names import read_argument, tokens
from mcp_sim.prompting.query_objects import object_operands
from mcp_sim.prompting.query_operands import Operand, query_operands
from mcp_sim.prompting.record_fields import magnitude

_SELECTOR_NAMES = frozenset(["selector", "label", "labels", "tag", "tags"])
_KEY = r"[A-Za-z0-9][A-Za-z0-9._/-]*"
_REQUIREMENT = re.compile(
    rf"^\s*(?P<key>{_KEY})\s*(?:(?P<op>==|!=|=)\s*(?P<value>[A-Za-z0-9._-]*)"
    rf"|\s+(?P<set>in|notin)\s*\((?P<values>[^)]*)\))\s*$"
)
_SUFFIXES = {
    "ne": "_not",
    "min": "_min",
    "max": "_max",
    "prefix": "_prefix",
    "contains": "_contains",
    "match": "_matches",
}
"""How a query operand's operation is written after its field's name (see the module)."""
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


def query_arguments(text: str) -> list[tuple[str, Any]] | None:
    """``text`` read as a query: one ``(name, value)`` per operand (see the module), each
    once; ``None`` when it is no query."""
    operands = query_operands(text)
    if operands is None:
        return None
    pairs = [(operand_name(o), o.value) for o in operands if o.op != "literal"]
    return [p for i, p in enumerate(pairs) if p not in pairs[:i]]


def operand_name(operand: Operand) -> str:
    """The name a query's operand goes by as an argument (see the module)."""
    if not operand.field:
        return "text" if operand.op == "text" else ""
    how = read_argument(operand.field)
    if how.control and operand.op in ("eq", "match"):
        # ``sort:created-desc`` shapes the answer, as ``sort`` would; a field so named that is
        # ruled out or bounded (``{"format": {"$ne": "jazz"}}``) is compared all the same.
        return operand.field
    # ``after:2025-01-03`` bounds, as ``after`` would; ``from:alice`` names a sender.
    bound = not how.ambiguous_bound or magnitude(operand.value) is not None
    if operand.op == "match" and how.op in ("min", "max") and bound:
        return operand.field
    return operand.field + _SUFFIXES.get(operand.op, "")


def scalar_arguments(arguments: dict[str, Any], parent: str = "") -> Iterator[tuple[str, Any]]:
    """``(name, value)`` per argument with a scalar or a list of scalars; a query object's
    operands each by its field, any other nested object's entries by their own names (a
    ``min``/``max`` entry under its parent's name); a label selector's requirements each by
    its key, a query's operands each by its field (see the module)."""
    for name, value in arguments.items():
        nested = isinstance(value, dict) or (
            isinstance(value, list) and any(isinstance(v, dict | list) for v in value)
        )
        operands = object_operands(value, name) if nested else None
        if operands is not None:  # a query written as an object
            pairs = [(operand_name(o), o.value) for o in operands if o.op != "literal"]
            yield from (p for i, p in enumerate(pairs) if p not in pairs[:i])
            continue
        if isinstance(value, dict):
            yield from scalar_arguments(value, name)
            continue
        if isinstance(value, list) and not all(
            not isinstance(v, dict | list) and v is not None for v in value
        ):
            continue
        if value is None or value in ("", []):
            continue
        bare = tokens(name)
        if isinstance(value, str) and bare and bare[-1] in _SELECTOR_NAMES:
            requirements = selector_requirements(value)
            if requirements is not None:
                yield from requirements
                continue
        texts = value if isinstance(value, list) else [value]
        queries = [q for t in texts if isinstance(t, str) and (q := query_arguments(t))]
        if queries:  # a query, or a list of them (a metrics API's ``match[]`` selectors)
            yield from (pair for query in queries for pair in query)
            continue
        yield (f"{parent}_{name}" if parent and bare and bare[0] in ("min", "max") else name), value
