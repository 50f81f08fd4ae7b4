"""A random shape's searches: over its records (and, by seed, over its links), with 1-4
constraints of equality, ranges, prefixes and, by seed, ``not`` and ``any of`` lists; by seed
paged (``limit``/``offset`` or ``page``/``page_size``) and answering a bare list or a wrapped
one with the total."""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from benchmarks.zoo.kit import Answer, State, Tool, prop
from benchmarks.zoo.random_shapes.offer import Offer, object_schema
from benchmarks.zoo.random_shapes.query_language import parse, query_help, render
from benchmarks.zoo.random_shapes.reading import Reader

Getter = Callable[[dict[str, Any]], Any]


def meets(op: str, actual: Any, wanted: Any) -> bool:
    if actual is None:
        return False
    if op == "eq":
        return str(actual) == str(wanted)
    if op == "ne":
        return bool(actual != wanted)
    if op == "in":
        return actual in wanted
    if op == "ge":
        return bool(actual >= wanted)
    if op == "le":
        return bool(actual <= wanted)
    return str(actual).lower().startswith(str(wanted).lower())


@dataclass(frozen=True)
class Constraint:
    """One search argument: the value it reads from a record and how it tests it."""

    arg: str
    get: Getter
    op: str
    schema: dict[str, Any]
    choices: tuple[Any, ...] = ()
    key: str = ""
    """The field's name in a query string (:mod:`.query_language`)."""
    field: tuple[str, ...] = ()
    """Where the record stores the field (stored names), as a query object names it
    (:mod:`.query_objects`)."""

    def value_from(self, rng: random.Random, actual: Any) -> Any:
        """An argument value that ``actual`` meets."""
        if self.op in ("ge", "le") and isinstance(actual, int | float):
            spread = abs(actual) * rng.uniform(0.0, 0.15)
            towards = math.floor if self.op == "ge" else math.ceil
            bound = actual - spread if self.op == "ge" else actual + spread
            return towards(bound) if isinstance(actual, int) else towards(bound * 100) / 100
        if self.op == "prefix":
            return str(actual)[: max(2, len(str(actual)) // 2)]
        others = [c for c in self.choices if c != actual]
        if self.op == "ne":
            return rng.choice(others)
        if self.op == "in":
            return sorted([actual, *rng.sample(others, min(len(others), rng.randint(1, 2)))])
        return actual


def primary_constraints(read: Reader) -> list[Constraint]:
    """The record search's arguments, by the seed's naming, and what each constrains."""
    surface, found = read.design.surface, []
    for field in read.primary.fields:
        name, kind = read.arg_name(field), field.kind
        path = read.paths[field.name]

        def get(record: dict[str, Any], name: str = field.name) -> Any:
            return read.value(record, name)

        if kind in ("category", "city"):
            key = surface.arg(name)
            found.append(Constraint(key, get, "eq", prop("string", f"{name}."), (), key, path))
            if surface.exclusions and kind == "category":
                many = prop("array", f"Any of these {name} values.", items={"type": "string"})
                found.append(
                    Constraint(
                        surface.arg(f"{name}_not"),
                        get,
                        "ne",
                        prop("string", f"Not this {name}."),
                        field.values,
                        key,
                        path,
                    )
                )
                found.append(
                    Constraint(surface.arg(f"{name}_in"), get, "in", many, field.values, key, path)
                )
        elif field.numeric or kind == "date":
            type_ = {"int": "integer", "decimal": "number"}.get(kind, "string")
            low, high = surface.range_args(name)
            key = surface.arg(name)
            least, most = prop(type_, f"Least {name}."), prop(type_, f"Most {name}.")
            found.append(Constraint(low, get, "ge", least, key=key, field=path))
            found.append(Constraint(high, get, "le", most, key=key, field=path))
        elif kind == "title":
            starts, key = surface.arg(f"{name}_starts"), surface.arg(name)
            prefix = prop("string", "Prefix.")
            found.append(Constraint(starts, get, "prefix", prefix, key=key, field=path))
    return found


def link_constraints(read: Reader) -> list[Constraint]:
    design, surface = read.design, read.design.surface
    party = read.secondary.singular

    def referred(record: dict[str, Any]) -> Any:
        return read.arg_id("secondary", design.referred("secondary", record))

    key, held = surface.arg(f"{party}_id"), design.reference_key("secondary")
    # A reference held in an object is its id there (other forms: the reference's own key).
    path = (held, "id") if design.reference in ("nested", "typed") else (held,)
    found = [Constraint(key, referred, "eq", read.id_schema("secondary"), key=key, field=path)]
    for field in design.domain.link.fields:
        stored = design.spell(f"{design.domain.link.singular}.{field.name}")

        def get(record: dict[str, Any], stored: str = stored) -> Any:
            return record.get(stored)

        key = surface.arg(field.name)
        if field.kind == "category":
            found.append(Constraint(key, get, "eq", prop("string", ""), key=key, field=(stored,)))
        else:
            type_ = {"int": "integer", "decimal": "number"}.get(field.kind, "string")
            low, high = surface.range_args(field.name)
            least, most = prop(type_, f"Least {field.name}."), prop(type_, f"Most {field.name}.")
            found.append(Constraint(low, get, "ge", least, key=key, field=(stored,)))
            found.append(Constraint(high, get, "le", most, key=key, field=(stored,)))
    return found


@dataclass(frozen=True)
class RandomSearch:
    name: str
    description: str
    role: str
    read: Reader
    constraints: list[Constraint]
    show: Callable[[dict[str, Any]], Any]
    limit: int
    query: str | None = None
    """The argument taking a query string instead of one argument per constraint, if any."""

    @classmethod
    def primary(cls, read: Reader) -> RandomSearch:
        plural = read.primary.plural
        return cls(
            read.design.surface.tool_name("find", plural),
            (
                f"Find {plural} by their attributes.",
                f"Search the {plural}; every given argument must hold.",
                f"Lists {plural} matching all the filters given.",
            )[read.design.surface.wording],
            "primary",
            read,
            primary_constraints(read),
            _first_scalars,
            search_limit(read.design.seed),
            read.design.formats.query,
        )

    @classmethod
    def links(cls, read: Reader) -> list[RandomSearch]:
        """The search over the links, where the seed offers one."""
        if not read.design.surface.link_search:
            return []
        plural = read.design.domain.link.plural
        search = cls(
            read.design.surface.tool_name("find", plural),
            f"Find {plural} by {read.secondary.singular}, date or figures.",
            "link",
            read,
            link_constraints(read),
            lambda r: {k: v for k, v in r.items() if k not in read.design.lines[:1]},
            search_limit(read.design.seed),
            read.design.formats.query,
        )
        return [search]

    def _paging(self) -> tuple[str, str]:
        page = self.read.design.surface.page
        if page == "offset":
            return self.read.design.surface.arg("limit"), self.read.design.surface.arg("offset")
        return self.read.design.surface.arg("page_size"), self.read.design.surface.arg("page")

    def tool(self) -> Tool:
        properties = {c.arg: c.schema for c in self.constraints}
        if self.query is not None:
            properties = {self.query: prop("string", query_help(self.constraints))}
        surface = self.read.design.surface
        if self.pages():
            size, at = self._paging()
            properties[size] = prop("integer", f"At most this many (default {self.limit}).")
            first = "0-based offset" if surface.page == "offset" else "1-based page"
            properties[at] = prop("integer", f"The {first}.")
        output = None
        if surface.schemas and surface.search_wrap:
            output = object_schema([surface.search_wrap, "total"])
        return Tool(self.name, self.description, properties, self.run, output=output)

    def offer(self) -> Offer:
        return Offer("search", self.tool(), self.plan, f"{self.role}_search")

    def matching(self, state: State, args: dict[str, Any]) -> list[dict[str, Any]]:
        active = [c for c in self.constraints if c.arg in args]
        return [
            r
            for r in self.read.records(state, self.role)
            if all(meets(c.op, c.get(r), args[c.arg]) for c in active)
        ]

    def run(self, state: State, args: dict[str, Any]) -> Answer:
        args = self.parsed(args)
        found = [self.show(r) for r in self.matching(state, args)]
        surface = self.read.design.surface
        start, count = 0, self.limit
        if surface.page:
            size, at = self._paging()
            count = min(int(args.get(size, self.limit)), self.limit)
            start = int(args.get(at, 0 if surface.page == "offset" else 1))
            start = start if surface.page == "offset" else (start - 1) * count
        shown = found[start : start + count]
        if not surface.search_wrap:
            return shown, []
        return {surface.search_wrap: shown, "total": len(found)}, []

    def plan(self, rng: random.Random, state: State, most: int = 4) -> dict[str, Any]:
        """1 to ``most`` constraints that a random record meets, narrowed while more than
        ``limit`` records match; by seed, sometimes a page size and page."""
        records = self.read.records(state, self.role)
        record = rng.choice(records)
        usable = [c for c in self.constraints if c.get(record) not in (None, "", [])]
        rng.shuffle(usable)
        args: dict[str, Any] = {}
        meeting = records  # the records meeting every argument so far
        for count, chosen in enumerate(usable[:most], start=1):
            value = args[chosen.arg] = chosen.value_from(rng, chosen.get(record))
            meeting = [r for r in meeting if meets(chosen.op, chosen.get(r), value)]
            if count >= rng.randint(1, most) and len(meeting) <= self.limit:
                break
        args = self.queried(args)
        if self.pages() and rng.random() < 0.4:
            args |= self._page(rng, len(meeting))
        return args

    def pages(self) -> bool:
        """Whether the search takes a page size and where the page starts."""
        return bool(self.read.design.surface.page)

    def hits(self, answer: Any) -> list[dict[str, Any]]:
        """The records (as shown) an answer of the search lists."""
        found: list[dict[str, Any]] = (
            answer if isinstance(answer, list) else answer[self.read.design.surface.search_wrap]
        )
        return found

    def parsed(self, args: dict[str, Any]) -> dict[str, Any]:
        """``args`` with the terms of its query string (where the tool takes one) read out."""
        if self.query is None:
            return args
        return args | parse(self.constraints, str(args.get(self.query, "")))

    def paging_args(self) -> set[str]:
        """The paging arguments the search takes (none where it does not page)."""
        return set(self._paging()) if self.pages() else set()

    def queried(self, args: dict[str, Any]) -> dict[str, Any]:
        """``args`` as the tool takes them: in a query string, where it takes one."""
        return {self.query: render(self.constraints, args)} if self.query is not None else args

    def _page(self, rng: random.Random, total: int) -> dict[str, Any]:
        """A page size, and a page that still has some of the ``total`` matches."""
        size_arg, at_arg = self._paging()
        size = rng.choice((3, 5, 10))
        later = total > size and rng.random() < 0.5
        if self.read.design.surface.page == "offset":
            return {size_arg: size, at_arg: size if later else 0}
        return {size_arg: size, at_arg: 2 if later else 1}

    def no_match(self, rng: random.Random) -> dict[str, Any]:
        """Arguments nothing meets: a number far above its range."""
        numeric = next(f for f in self.read.primary.fields if f.numeric)
        surface, name = self.read.design.surface, self.read.arg_name
        low, _ = surface.range_args(name(numeric))
        category = next(f for f in self.read.primary.fields if f.kind == "category")
        return self.queried(
            {surface.arg(name(category)): rng.choice(category.values), low: numeric.values[1] * 10}
        )


def _first_scalars(record: dict[str, Any]) -> dict[str, Any]:
    scalars = {k: v for k, v in record.items() if not isinstance(v, dict | list)}
    return dict(list(scalars.items())[:5])


def search_limit(seed: int) -> int:
    """How many records a search answers with at most (10 to 25, by seed)."""
    return random.Random(f"limit/{seed}").choice((10, 15, 20, 25))
