"""A random shape's aggregates, by seed (one to three of them): figures of the records of one
category (two to five of count, total, largest, smallest, mean and distinct values), a count
per value of a category, the distinct values of a field over all records, the top N records by
a number, and the count and total of a party's links. Every answer is computed from the state,
never held by one record."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from benchmarks.zoo.kit import Answer, State, Tool, prop, summary
from benchmarks.zoo.random_shapes.offer import Offer, object_schema
from benchmarks.zoo.random_shapes.reading import Reader

STAT_FIELDS = {"count": None, "sum": 0, "mean": 0, "max": -1, "min": -1, "distinct": -1}
"""Which field an operation reads: none, the first number, the last number, the last category."""
STAT_NAMES = {"sum": "total_{}", "mean": "average_{}", "max": "max_{}", "min": "min_{}"}


class Aggregates:
    def __init__(self, read: Reader) -> None:
        self.read, self.design, self.surface = read, read.design, read.design.surface
        fields = read.primary.fields
        self.categories = [f for f in fields if f.kind == "category"]
        self.numbers = [f for f in fields if f.numeric]
        self.spell = self.design.spell

    def _output(self, keys: list[str]) -> dict[str, Any] | None:
        return object_schema(keys) if self.surface.schemas else None

    def stats(self) -> Offer:
        group, plural = self.categories[0], self.read.primary.plural
        arg = self.surface.arg(group.name)
        ops = self.surface.stats_ops
        named = {op: self._stat_name(op) for op in ops}

        def run(state: State, args: dict[str, Any]) -> Answer:
            chosen = [
                r
                for r in self.read.records(state, "primary")
                if self.read.value(r, group.name) == args[arg]
            ]
            answer: dict[str, Any] = {self.spell(group.name): args[arg]}
            for op in ops:
                if op == "count":
                    answer[named[op]] = len(chosen)
                    continue
                field = self._stat_field(op)
                answer[named[op]] = summary(op, [self.read.value(r, field) for r in chosen])
            return answer, []

        described = ", ".join(named[op].replace("_", " ") for op in ops)
        tool = Tool(
            self.surface.tool_name("get", self.read.primary.singular, "stats"),
            f"Figures ({described}) of the {plural} of one {group.name}.",
            {arg: prop("string", "", enum=list(group.values))},
            run,
            (arg,),
            output=self._output([self.spell(group.name)]),
        )
        return Offer("aggregate", tool, lambda rng, state: {arg: rng.choice(group.values)})

    def _stat_field(self, op: str) -> str:
        at = STAT_FIELDS[op]
        assert at is not None
        return (self.categories if op == "distinct" else self.numbers)[at].name

    def _stat_name(self, op: str) -> str:
        if op == "count":
            return self.spell("count")
        if op == "distinct":
            return self.spell(f"{self._stat_field(op)}_values")
        return self.spell(STAT_NAMES[op].format(self._stat_field(op)))

    def per_value(self) -> Offer:
        """How many records have each value of a category (optionally of one other's value)."""
        counted, within = self.categories[-1], self.categories[0]
        arg = self.surface.arg(within.name)

        def run(state: State, args: dict[str, Any]) -> Answer:
            values = [
                self.read.value(r, counted.name)
                for r in self.read.records(state, "primary")
                if arg not in args or self.read.value(r, within.name) == args[arg]
            ]
            counts = Counter(v for v in values if v is not None)
            return {self.spell(f"{counted.name}_counts"): dict(sorted(counts.items()))}, []

        def plan(rng: random.Random, state: State) -> dict[str, Any]:
            return {arg: rng.choice(within.values)} if rng.random() < 0.5 else {}

        tool = Tool(
            self.surface.arg(f"count_{self.read.primary.plural}_by_{counted.name}"),
            f"How many {self.read.primary.plural} there are of each {counted.name} "
            f"(of one {within.name} if given).",
            {arg: prop("string", "", enum=list(within.values))},
            run,
            output=self._output([self.spell(f"{counted.name}_counts")]),
        )
        return Offer("aggregate", tool, plan)

    def distinct(self) -> Offer:
        """The distinct values of a field over all records."""
        choices = [f for f in self.read.primary.fields if f.kind in ("city", "category")]
        field = random.Random(f"distinct/{self.design.seed}").choice(choices)
        key = self.spell(f"{field.name}_values")

        def run(state: State, args: dict[str, Any]) -> Answer:
            values = [self.read.value(r, field.name) for r in self.read.records(state, "primary")]
            return {key: summary("distinct", values)}, []

        tool = Tool(
            self.surface.arg(f"list_{field.name}_values"),
            f"Every {field.name.replace('_', ' ')} any {self.read.primary.singular} has (each once, sorted).",
            {},
            run,
            output=self._output([key]),
        )
        return Offer("aggregate", tool, lambda rng, state: {})

    def top(self) -> Offer:
        """The N records with the largest (or smallest) value of a number."""
        field = self.numbers[-1]
        n_arg, order_arg = self.surface.arg("n"), self.surface.arg("order")
        store = self.design.stores["primary"]
        title = self.design.path(self.read.primary.fields[0])[-1]
        stored = self.design.path(field)[-1]

        def run(state: State, args: dict[str, Any]) -> Answer:
            valued = [
                (self.read.value(r, field.name), r) for r in self.read.records(state, "primary")
            ]
            present = [(v, r) for v, r in valued if v is not None]
            ascending = args.get(order_arg, "desc") == "asc"
            present.sort(key=lambda pair: pair[0], reverse=not ascending)
            return [
                {
                    store.id_key: r[store.id_key],
                    title: self.read.value(r, self.read.primary.fields[0].name),
                    stored: v,
                }
                for v, r in present[: int(args[n_arg])]
            ], []

        def plan(rng: random.Random, state: State) -> dict[str, Any]:
            chosen: dict[str, Any] = {n_arg: rng.randint(3, 8)}
            return chosen | ({order_arg: "asc"} if rng.random() < 0.3 else {})

        tool = Tool(
            self.surface.arg(f"top_{self.read.primary.plural}_by_{field.name}"),
            f"The n {self.read.primary.plural} with the largest {field.name} (smallest with order asc).",
            {
                n_arg: prop("integer", "How many."),
                order_arg: prop("string", "", enum=["desc", "asc"]),
            },
            run,
            (n_arg,),
        )
        return Offer("aggregate", tool, plan)

    def link_total(self) -> Offer:
        """How many links a party has, and their total and mean of a number."""
        link = self.design.domain.link
        number = next(f for f in link.fields if f.numeric)
        stored = self.spell(f"{link.singular}.{number.name}")
        arg = self.surface.arg(f"{self.read.secondary.singular}_id")

        def run(state: State, args: dict[str, Any]) -> Answer:
            mine = self.read.links_of(state, "secondary", str(args[arg]))
            values = [r.get(stored) for r in mine]
            return {
                self.spell(arg): args[arg],
                self.spell(f"{link.singular}_count"): len(mine),
                self.spell(f"total_{number.name}"): summary("sum", values),
                self.spell(f"average_{number.name}"): summary("mean", values),
            }, []

        def plan(rng: random.Random, state: State) -> dict[str, Any]:
            chosen = self.read.record(state, "link", self.read.any_key(rng, state, "link"))
            return {arg: self.read.arg_id("secondary", self.design.referred("secondary", chosen))}

        tool = Tool(
            self.surface.arg(f"{self.read.secondary.singular}_{link.singular}_totals"),
            f"A {self.read.secondary.singular}'s number of {link.plural}, their total and "
            f"average {number.name}.",
            {arg: self.read.id_schema("secondary")},
            run,
            (arg,),
            output=self._output([self.spell(f"{link.singular}_count")]),
        )
        return Offer("aggregate", tool, plan)


def aggregate_offers(read: Reader) -> list[Offer]:
    made = Aggregates(read)
    makers: dict[str, Callable[[], Offer]] = {
        "stats": made.stats,
        "per_value": made.per_value,
        "distinct": made.distinct,
        "top": made.top,
        "link_total": made.link_total,
    }
    return [replace(makers[name](), variant=name) for name in read.design.surface.aggregates]
