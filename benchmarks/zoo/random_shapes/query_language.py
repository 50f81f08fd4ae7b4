"""Searches that take one query string, as GitHub's, Gmail's and Jira's do, instead of one
argument per field: ``hull:sloop name:"Sea Breeze" -flag:NO length_m:>=12 built:<=1990
name:Se* hull:sloop,ketch``, a term per constraint (an equality, a negation, a lower or upper
bound, a prefix, any of a list), its value quoted where it has a space. The planner's
arguments are written into a query (:func:`render`) and the tool reads them back out of it
(:func:`parse`) to answer, so the answer is the one the arguments per field give."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Protocol

from benchmarks.zoo.kit import ToolError

_TERM = re.compile(r'(-?)([\w.]+):(>=|<=)?("[^"]*"|[^\s"*]+)(\*?)')
_SIGNS = {"ge": ">=", "le": "<="}


class Term(Protocol):
    """What a search constraint is to the query language."""

    @property
    def arg(self) -> str: ...
    @property
    def key(self) -> str: ...
    @property
    def op(self) -> str: ...


def _text(value: Any) -> str:
    text = str(value)
    return f'"{text}"' if not text or re.search(r'[\s",:*]', text) else text


def render(constraints: Sequence[Term], args: dict[str, Any]) -> str:
    """The query string holding ``args`` (the constraints' argument names → values)."""
    terms = []
    for c in constraints:
        if c.arg not in args:
            continue
        value = args[c.arg]
        if c.op == "in":
            terms.append(f"{c.key}:{','.join(_text(v) for v in value)}")
        elif c.op == "ne":
            terms.append(f"-{c.key}:{_text(value)}")
        elif c.op == "prefix":
            terms.append(f"{c.key}:{_text(value)}*")
        else:
            terms.append(f"{c.key}:{_SIGNS.get(c.op, '')}{_text(value)}")
    return " ".join(terms)


def _number(text: str) -> Any:
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            continue
    return text


def parse(constraints: Sequence[Term], query: str) -> dict[str, Any]:
    """The arguments a query string holds (an unknown term is an error)."""
    found: dict[str, Any] = {}
    for term in _TERM.finditer(query):
        negated, key, sign, raw, star = term.groups()
        quoted = raw.startswith('"')
        value = raw.strip('"')
        if negated:
            op = "ne"
        elif sign:
            op = "ge" if sign == ">=" else "le"
        elif star:
            op = "prefix"
        elif "," in raw and not quoted:
            op = "in"
        else:
            op = "eq"
        chosen = next((c for c in constraints if c.key == key and c.op == op), None)
        if chosen is None:
            raise ToolError(f"unknown term {term.group(0)}")
        if op == "in":
            found[chosen.arg] = [v.strip('"') for v in value.split(",")]
        else:
            found[chosen.arg] = _number(value) if sign and not quoted else value
    return found


def query_help(constraints: Sequence[Term]) -> str:
    """A query argument's description: its syntax and the fields it knows."""
    keys = ", ".join(dict.fromkeys(c.key for c in constraints))
    return (
        "A query: space-separated terms field:value (quote values with spaces), -field:value "
        "to exclude, field:>=n or field:<=n for bounds, field:abc* for a prefix, field:a,b for "
        f"any of. Fields: {keys}."
    )
