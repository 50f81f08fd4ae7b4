"""A random shape's searches where the seed draws query objects (:mod:`.query_objects`): one
argument holding the constraints as the family writes them (or the whole request body, the
page in it, for Elasticsearch and HubSpot), paged by the family's own arguments, and answered
as the family's API answers a search:

- Elasticsearch: ``{"hits": {"total": {"value", "relation"}, "hits": [{"_index", "_id",
  "_source"}]}}`` (as asked with ``filter_path`` to those fields);
- MongoDB (the Atlas Data API's ``find``): ``{"documents": [..]}``;
- GraphQL and Hasura: ``{"data": {"<collection>": [..]}}``; Prisma's ``findMany``: the list;
- a list of filters: ``{"total", "results"}``; HubSpot's CRM search: ``{"total", "results":
  [{"id", "properties"}]}`` and ``paging.next.after`` while more are left."""

from __future__ import annotations

import random
from dataclasses import dataclass, fields, replace
from typing import Any

from benchmarks.zoo.kit import Answer, State, Tool, ToolError, prop
from benchmarks.zoo.random_shapes.offer import object_schema
from benchmarks.zoo.random_shapes.query_object_parsing import parse
from benchmarks.zoo.random_shapes.query_objects import QueryStyle, Term, render
from benchmarks.zoo.random_shapes.searches import Constraint, RandomSearch, meets

HELP = {
    "elastic": "A search request: {query: {bool: {filter|must: [{term: {field: v}}, {terms: "
    "{field: [..]}}, {range: {field: {gte, lte}}}, {prefix: {field: {value}}}], must_not: "
    "[..]}}, size, from}.",
    "mongo": "A MongoDB filter document: {field: value, field: {$gte, $lte, $ne, $in, $regex}}"
    " or {$and: [..]}.",
    "graphql": "A where object: {field: {eq, ne, in, gte, lte, startsWith}}, sub-objects nested, "
    "or {AND: [..]}.",
    "hasura": "A Hasura bool expression: {field: {_eq, _neq, _in, _gte, _lte, _ilike}} or "
    "{_and: [..]}.",
    "prisma": "A Prisma where input: {field: {equals, not, in, gte, lte, startsWith, mode}} or "
    "{AND: [..]}.",
    "filters": "A list of filters, each a field, an operator and a value.",
    "hubspot": "A CRM search request: {filterGroups: [{filters: [{propertyName, operator (EQ, "
    "NEQ, IN with values, GTE, LTE, CONTAINS_TOKEN), value}]}], limit, after}.",
}

ANY_STYLE = QueryStyle("mongo", "filter")
"""The default style (every search made by :meth:`ObjectSearch.of` has its seed's)."""
ABSENT_UNLIKE = ("mongo", "elastic")
"""Families whose exclusions (``$ne``, ``must_not``) match records lacking the field, as a
document store's do (SQL-backed ones compare nothing with null)."""


@dataclass(frozen=True)
class ObjectSearch(RandomSearch):
    """A search taking its constraints in a query object of the seed's style."""

    style: QueryStyle = ANY_STYLE

    @classmethod
    def of(cls, search: RandomSearch, style: QueryStyle) -> ObjectSearch:
        made = {f.name: getattr(search, f.name) for f in fields(search)}
        made["constraints"] = _as_stored(search)
        return cls(**made, style=style)

    def pages(self) -> bool:
        return True

    def _paging(self) -> tuple[str, str]:
        return self.style.paging

    def _fields(self) -> str:
        named = dict.fromkeys(".".join(c.field) for c in self.constraints)
        return "Fields: " + ", ".join(named) + "."

    def tool(self) -> Tool:
        style, surface = self.style, self.read.design.surface
        type_ = "array" if style.family == "filters" else "object"
        properties = {style.arg: prop(type_, f"{HELP[style.family]} {self._fields()}")}
        if not style.body:
            size, at = self._paging()
            properties[size] = prop("integer", f"At most this many (default {self.limit}).")
            properties[at] = prop("integer", "How many matches to skip.")
        output = object_schema([]) if surface.schemas and style.family != "prisma" else None
        return Tool(self.name, self.description, properties, self.run, output=output)

    def queried(self, args: dict[str, Any]) -> dict[str, Any]:
        terms: list[Term] = [
            (c.field, c.op, args[c.arg]) for c in self.constraints if c.arg in args
        ]
        rest = {k: v for k, v in args.items() if k not in {c.arg for c in self.constraints}}
        held = render(self.style, terms)
        if self.style.body:
            return {self.style.arg: held | rest}
        return {self.style.arg: held} | rest

    def plan(self, rng: random.Random, state: State, most: int = 4) -> dict[str, Any]:
        args = super().plan(rng, state, most)
        if not self.style.body:
            return args
        paging = {k: args.pop(k) for k in self._paging() if k in args}
        return {self.style.arg: args[self.style.arg] | paging}

    def parsed(self, args: dict[str, Any]) -> dict[str, Any]:
        held = args.get(self.style.arg, [] if self.style.family == "filters" else {})
        found = {k: v for k, v in args.items() if k != self.style.arg}
        if self.style.body:
            found |= {k: held[k] for k in self._paging() if k in held}
            held = {k: v for k, v in held.items() if k not in self._paging()}
        for path, op, value in parse(self.style, held):
            chosen = next((c for c in self.constraints if c.field == path and c.op == op), None)
            if chosen is None:
                raise ToolError(f"unknown field {'.'.join(path)} for {op}")
            found[chosen.arg] = value
        return found

    def matching(self, state: State, args: dict[str, Any]) -> list[dict[str, Any]]:
        active = [c for c in self.constraints if c.arg in args]
        absent_unlike = self.style.family in ABSENT_UNLIKE

        def meeting(c: Constraint, record: dict[str, Any]) -> bool:
            actual = c.get(record)
            if actual is None and c.op == "ne":
                return absent_unlike
            return meets(c.op, actual, args[c.arg])

        return [
            r for r in self.read.records(state, self.role) if all(meeting(c, r) for c in active)
        ]

    def _page(self, rng: random.Random, total: int) -> dict[str, Any]:
        size_arg, at_arg = self._paging()
        size = rng.choice((3, 5, 10))
        later = total > size and rng.random() < 0.5
        start = size if later else 0
        return {size_arg: size, at_arg: str(start) if self.style.family == "hubspot" else start}

    def run(self, state: State, args: dict[str, Any]) -> Answer:
        args = self.parsed(args)
        size, at = self._paging()
        matched = self.matching(state, args)
        count = min(int(args.get(size, self.limit)), self.limit)
        start = int(args.get(at, 0))
        page = matched[start : start + count]
        return self._answer(page, len(matched), start + count), []

    def _answer(self, page: list[dict[str, Any]], total: int, end: int) -> Any:
        design, family = self.read.design, self.style.family
        id_key, entity = design.stores[self.role].id_key, design.entity(self.role)
        shown = [self.show(r) for r in page]
        if family == "elastic":
            hits = [
                {"_index": entity.plural, "_id": str(r[id_key]), "_source": s}
                for r, s in zip(page, shown, strict=True)
            ]
            return {"hits": {"total": {"value": total, "relation": "eq"}, "hits": hits}}
        if family == "mongo":
            return {"documents": shown}
        if family in ("graphql", "hasura"):
            return {"data": {design.spell(entity.plural): shown}}
        if family == "prisma":
            return shown
        if family == "filters":
            return {"total": total, "results": shown}
        results = [
            {"id": str(r[id_key]), "properties": s} for r, s in zip(page, shown, strict=True)
        ]
        more = {"paging": {"next": {"after": str(end)}}} if end < total else {}
        return {"total": total, "results": results} | more

    def hits(self, answer: Any) -> list[dict[str, Any]]:
        family = self.style.family
        if family == "elastic":
            return [h["_source"] for h in answer["hits"]["hits"]]
        if family == "hubspot":
            return [r["properties"] for r in answer["results"]]
        if family in ("graphql", "hasura"):
            found: list[dict[str, Any]] = next(iter(answer["data"].values()))
            return found
        if family == "prisma":
            listed: list[dict[str, Any]] = answer
            return listed
        return list(answer["documents" if family == "mongo" else "results"])


def _as_stored(search: RandomSearch) -> list[Constraint]:
    """The search's constraints, a link's party compared as the link stores its reference
    (``/owners/OW-1``, ``urn:owner:OW-1``, an object's ``id``): a query object names the
    stored field, so it gives the stored value."""
    if search.role != "link":
        return search.constraints
    design = search.read.design
    sample = design.refer("secondary", design.make_id("secondary", 0))
    inner = ("id" if "id" in sample else "reference",) if isinstance(sample, dict) else ()
    path = (design.reference_key("secondary"), *inner)

    def get(record: dict[str, Any]) -> Any:
        value: Any = record
        for part in path:
            value = value.get(part) if isinstance(value, dict) else None
        return value

    first, *rest = search.constraints
    return [replace(first, get=get, field=path), *rest]
