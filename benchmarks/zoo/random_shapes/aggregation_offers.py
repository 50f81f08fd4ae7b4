"""The aggregate calls of a seed that draws aggregation requests (:mod:`.aggregation_requests`):
a tool taking the family's request (Prisma's two, ``groupBy`` and ``aggregate``), and the
calls it offers: records grouped by a category (not in Hasura, whose ``_aggregate`` answers
one group), figures of all the records meeting a filter, and (Elasticsearch, where records
have a date) a date histogram. The planner draws the request from a record of the state, so
that the filter meets at least that record."""

from __future__ import annotations

import random
import re
from typing import Any

from benchmarks.zoo.kit import Answer, State, Tool, prop
from benchmarks.zoo.random_shapes.aggregation_answers import answer, group
from benchmarks.zoo.random_shapes.aggregation_parsing import parse
from benchmarks.zoo.random_shapes.aggregation_requests import OPS, AggRequest, AggStyle, Metric
from benchmarks.zoo.random_shapes.aggregation_writing import Columns, write
from benchmarks.zoo.random_shapes.offer import Offer, Plan
from benchmarks.zoo.random_shapes.reading import Reader

HELP = {
    "elastic": "An Elasticsearch search body: {size: 0, query: {bool: {filter: [..]}}, aggs: "
    "{name: {terms: {field, size, order}, aggs: {name: {sum|avg|min|max|value_count|"
    "cardinality: {field}}}} | {date_histogram: {field, calendar_interval}}}}.",
    "mongo": "A MongoDB aggregation pipeline: [{$match: filter}, {$group: {_id: '$field', "
    "name: {$sum: 1}, name: {$sum|$avg|$min|$max: '$field'}}}, {$sort: {..}}, {$limit: n}].",
    "hasura": "A GraphQL query on <table>_aggregate(where: $where) { aggregate { count "
    "sum {..} avg {..} min {..} max {..} } }, its where in variables.",
    "prisma": "Prisma arguments: {by: [field], where, _count: {_all: true}, _sum|_avg|_min|"
    "_max: {field: true}, orderBy: [..], take}.",
    "sql": "One SQL SELECT statement (aggregates, WHERE, GROUP BY, ORDER BY, LIMIT).",
    "soql": "A SOQL query (COUNT(Id), SUM, AVG, MIN, MAX, COUNT_DISTINCT; GROUP BY; ORDER BY; "
    "LIMIT).",
}
TYPES = {"elastic": "object", "mongo": "array", "hasura": "string", "prisma": "object"}


class AggregationOffers:
    def __init__(self, read: Reader, style: AggStyle) -> None:
        self.read, self.style, design = read, style, read.design
        fields = read.primary.fields
        kinds = {f.name: f.kind for f in fields}
        self.groupable = [
            f.name for f in fields if f.kind in ("category", "city") and f.name not in design.sparse
        ]
        self.categories = [f.name for f in fields if f.kind in ("category", "city")]
        self.numbers = [f.name for f in fields if f.numeric]
        self.dates = [f.name for f in fields if f.kind == "date"]
        text = frozenset(self.categories)
        plural = design.spell(read.primary.plural)
        self.columns = Columns.of(
            style.family,
            {
                n: read.paths[n]
                for n in kinds
                if kinds[n] in ("category", "city", "int", "decimal", "date")
            },
            text,
            plural,
            keyword=style.naming % 2 == 1,
        )
        self._unique()

    def _unique(self) -> None:
        """Leave out a field whose written name another's already is (a table's column is
        its stored name, and two nested fields may share one)."""
        seen: set[str] = set()
        for name, written in list(self.columns.written.items()):
            if written in seen:
                for pool in (self.groupable, self.categories, self.numbers, self.dates):
                    if name in pool:
                        pool.remove(name)
            seen.add(written)

    def _tool(self, op: str = "") -> Tool:
        style, surface = self.style, self.read.design.surface
        singular, plural = self.read.primary.singular, self.read.primary.plural
        name = surface.arg(
            style.tool.format(plural=plural, singular=singular, op=op).removesuffix("_")
        )
        fields = ", ".join(self.columns.written[n] for n in self.columns.written)
        about = f"{HELP[style.family]} Table/index {self.columns.table}; fields: {fields}."
        properties = {style.arg: prop(TYPES.get(style.family, "string"), about)}
        if style.family == "hasura":
            properties["variables"] = prop("object", "The query's variables: {where: {..}}.")
        return Tool(name, f"Aggregates over the {plural}.", properties, self._run, (style.arg,))

    def _run(self, state: State, args: dict[str, Any]) -> Answer:
        request = parse(self.style, args, self.columns)
        records = self.read.records(state, "primary")
        found = group(request, records, self.read.value)
        return answer(self.style, request, found, self.columns, self.read.value), []

    def offers(self) -> list[Offer]:
        family = self.style.family
        grouped = self._tool("group_by") if family == "prisma" else self._tool()
        totals = self._tool("aggregate") if family == "prisma" else grouped
        found = [Offer("aggregate", totals, self._planner("totals"), "request_totals")]
        if self.style.grouping and self.groupable:
            found.append(Offer("aggregate", grouped, self._planner("grouped"), "request_grouped"))
        if family == "elastic" and self.dates:
            found.append(
                Offer("aggregate", grouped, self._planner("histogram"), "request_histogram")
            )
        return found

    def _planner(self, kind: str) -> Plan:
        def plan(rng: random.Random, state: State) -> dict[str, Any]:
            return write(self.style, self.request(rng, state, kind), self.columns)

        return plan

    def request(self, rng: random.Random, state: State, kind: str) -> AggRequest:
        """A request of ``kind`` (``totals``, ``grouped``, ``histogram``) whose filter meets
        a record drawn from the state."""
        value, family = self.read.value, self.style.family
        sample = rng.choice(self.read.records(state, "primary"))
        by = (
            rng.choice(self.dates if kind == "histogram" else self.groupable)
            if kind != "totals"
            else None
        )
        filters: list[tuple[str, str, Any]] = []
        held = [c for c in self.categories if c != by and value(sample, c) is not None]
        if held and rng.random() < 0.75:
            chosen = rng.choice(held)
            wanted = value(sample, chosen)
            other = self.read.field(chosen).draw(rng)
            use_in = rng.random() < 0.25 and other != wanted
            filters.append((chosen, "in", [wanted, other]) if use_in else (chosen, "eq", wanted))
        numbers = [n for n in self.numbers if value(sample, n) is not None]
        if numbers and rng.random() < 0.4:
            chosen = rng.choice(numbers)
            filters.append((chosen, rng.choice(("ge", "le")), value(sample, chosen)))
        if kind == "histogram" and by is not None:
            filters += self._window(rng, by, value(sample, by))
        metrics = self._metrics(rng, kind)
        order, descending = "count", True
        if kind == "grouped":
            ordered = [
                m
                for m in metrics
                if m.op in ("sum", "avg", "min", "max") and m.field not in self.read.design.sparse
            ]
            roll = rng.random()
            if roll < 0.25:
                order, descending = "key", rng.random() < 0.3
            elif roll < 0.45 and ordered:
                order = rng.choice(ordered).name
            descending = descending if order == "key" else rng.random() < 0.85
        size = None
        if kind == "grouped":
            size = rng.choice((3, 5, 10) if family == "elastic" else (None, 3, 5, 10))
        interval = None
        if kind == "histogram":
            interval, order, descending = self._interval(filters), "key", False
        name = self.style.bucket_name(self._leaf(by)) if by and family == "elastic" else ""
        return AggRequest(tuple(filters), by, metrics, order, descending, size, interval, name)

    @staticmethod
    def _window(rng: random.Random, field: str, day: Any) -> list[tuple[str, str, Any]]:
        """A window of dates around a record's (a month histogram's one year, a year
        histogram's five), so that the buckets, empty ones too, stay few."""
        if day is None:
            return []
        year = int(str(day)[:4])
        first = year - rng.randrange(5) if rng.random() < 0.6 else year
        last = first + 4 if first != year or rng.random() < 0.5 else year
        return [(field, "ge", f"{first}-01-01"), (field, "le", f"{last}-12-31")]

    @staticmethod
    def _interval(filters: list[tuple[str, str, Any]]) -> str:
        """Months within one year's window, else years."""
        bounds = [str(v)[:4] for _, op, v in filters if op in ("ge", "le") and isinstance(v, str)]
        return "month" if len(bounds) == 2 and bounds[0] == bounds[1] else "year"

    def _leaf(self, field: str) -> str:
        return re.sub(r"\W", "_", self.columns.written[field].split(".")[-1])

    def _metrics(self, rng: random.Random, kind: str) -> tuple[Metric, ...]:
        style, family = self.style, self.style.family
        pairs = []
        for op in OPS[family]:
            pool = self.categories if op == "cardinality" else self.numbers
            pairs += [(op, f) for f in pool]
        most = 3 if kind == "totals" and family == "elastic" else 2
        chosen = rng.sample(
            pairs, min(len(pairs), rng.randint(1 if family == "elastic" else 0, most))
        )
        firsts = list(dict.fromkeys(op for op, _ in chosen))
        chosen.sort(key=lambda pair: firsts.index(pair[0]))
        if family != "elastic":
            chosen.insert(0, ("count", ""))
        made = []
        for n, (op, field) in enumerate(chosen):
            if family == "soql" and not style.wrapped:
                name = f"expr{n}"
            elif not style.named:
                name = "count" if op == "count" else f"{op}:{field}"
            else:
                name = style.metric_name(op, self._leaf(field) if field else "")
            made.append(Metric(name, op, field or None))
        return tuple(made)


def request_offers(read: Reader) -> list[Offer]:
    """The aggregate calls of the seed's aggregation requests (none where it draws none)."""
    style = read.design.formats.requests
    return [] if style is None else AggregationOffers(read, style).offers()
