"""A random shape's searches taking their constraints as one query string of filters, as
PostgREST takes them: ``column=op.value`` joined by ``&`` (``eq``, ``neq``, ``gte``, ``lte``,
``in.(a,b)``, ``like.Ab*``), the column named as the record stores it; drawn with the links
named only in a schema document (:mod:`.schema_links`)."""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import quote, unquote

from benchmarks.zoo.kit import Tool, ToolError, prop
from benchmarks.zoo.random_shapes.design import Design
from benchmarks.zoo.random_shapes.searches import Constraint, RandomSearch

_OPS = {"eq": "eq", "ne": "neq", "ge": "gte", "le": "lte", "in": "in", "prefix": "like"}


def filter_searches(design: Design, searches: list[RandomSearch]) -> list[RandomSearch]:
    """The searches as the seed offers them: taking a query string of filters where it draws
    the class with them (and no other way of writing constraints)."""
    links, formats = design.schema_links, design.formats
    if links is None or links.filters is None or formats.objects or formats.query:
        return searches
    return [FilterSearch.of(s, links.filters) for s in searches]


@dataclass(frozen=True)
class FilterSearch(RandomSearch):
    """A search taking its constraints as PostgREST's query string of filters."""

    filters: str = "filter"

    @classmethod
    def of(cls, search: RandomSearch, arg: str) -> FilterSearch:
        return cls(**{f: getattr(search, f) for f in search.__dataclass_fields__}, filters=arg)

    def tool(self) -> Tool:
        made = super().tool()
        names = ", ".join(dict.fromkeys(_column(c) for c in self.constraints))
        about = (
            "Filters as a query string: column=op.value joined by & (eq, neq, gte, lte, "
            f"in.(a,b), like.Ab*). Columns: {names}."
        )
        kept = {k: v for k, v in made.properties.items() if k not in self._args()}
        return replace(made, properties={self.filters: prop("string", about)} | kept)

    def _args(self) -> set[str]:
        return {c.arg for c in self.constraints}

    def queried(self, args: dict[str, Any]) -> dict[str, Any]:
        parts = [_filter(c, args[c.arg]) for c in self.constraints if c.arg in args]
        rest = {k: v for k, v in args.items() if k not in self._args()}
        return {self.filters: "&".join(parts)} | rest

    def parsed(self, args: dict[str, Any]) -> dict[str, Any]:
        found = {k: v for k, v in args.items() if k != self.filters}
        for part in str(args.get(self.filters, "")).split("&"):
            column, _, condition = part.partition("=")
            op, _, text = condition.partition(".")
            chosen = next(
                (c for c in self.constraints if _column(c) == column and _op(c) == op), None
            )
            if chosen is None:
                raise ToolError(f"unknown filter {part}")
            found[chosen.arg] = _value(chosen, unquote(text))
        return found


def _column(constraint: Constraint) -> str:
    return ".".join(constraint.field) or constraint.key or constraint.arg


def _op(constraint: Constraint) -> str:
    return _OPS[constraint.op]


def _filter(constraint: Constraint, value: Any) -> str:
    if constraint.op == "in":
        listed = ",".join(quote(str(v), safe=" -_.:@") for v in value)
        return f"{_column(constraint)}=in.({listed})"
    text = quote(str(value), safe=" -_.:@")
    if constraint.op == "prefix":
        text += "*"
    return f"{_column(constraint)}={_op(constraint)}.{text}"


def _value(constraint: Constraint, text: str) -> Any:
    """A filter's operand as the argument held it: numbers as numbers, lists as lists."""
    if constraint.op == "in":
        return [_typed(constraint, v) for v in text.strip("()").split(",")]
    if constraint.op == "prefix":
        return text.rstrip("*")
    return _typed(constraint, text)


def _typed(constraint: Constraint, text: str) -> Any:
    kind = constraint.schema.get("type")
    if kind == "array":
        kind = constraint.schema.get("items", {}).get("type")
    if kind in ("integer", "number"):
        number: int | float = json.loads(text)
        return number
    return text
