"""A random shape's joins, by seed (one to three of them): the records a party has links to,
the parties a record has links to, a field of the records two hops away (a record's links'
parties' emails, or a party's links' records' field), the parties a record lists in its own
array of ids, and the records whose array lists a party. The roster of a record that lists
nobody answers ``[]``: an empty answer."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from benchmarks.zoo.kit import Answer, State, Tool, ToolError, summary
from benchmarks.zoo.random_shapes.offer import Offer, object_schema
from benchmarks.zoo.random_shapes.reading import Reader

Run = Callable[[State, dict[str, Any]], Answer]
SHOWN = 25
"""A join lists at most this many records."""


class Joins:
    def __init__(self, read: Reader) -> None:
        self.read, self.design, self.surface = read, read.design, read.design.surface
        primary, secondary = read.primary, read.secondary
        self.by_arg = self.surface.arg(f"{secondary.singular}_id")
        self.id_arg = self.surface.arg(self.surface.id_arg)
        self.title = self.design.path(primary.fields[0])
        self.date = self.design.spell(f"{self.design.domain.link.singular}.date")
        self.party_name = self.design.spell(f"{secondary.singular}.{secondary.fields[0].name}")
        self.email = self.design.spell("email")

    def _tool(self, name: str, description: str, role: str, run: Run, keys: list[str]) -> Tool:
        arg = self.id_arg if role == "primary" else self.by_arg
        output = object_schema(keys) if self.surface.schemas else None
        schema = {arg: self.read.id_schema(role)}
        return Tool(self.surface.arg(name), description, schema, run, (arg,), output=output)

    def _from_link(self, role: str) -> Callable[[random.Random, State], dict[str, Any]]:
        """A planner choosing a record of ``role`` that some link refers to."""
        arg = self.id_arg if role == "primary" else self.by_arg

        def plan(rng: random.Random, state: State) -> dict[str, Any]:
            link = self.read.record(state, "link", self.read.any_key(rng, state, "link"))
            return {arg: self.read.arg_id(role, self.design.referred(role, link))}

        return plan

    def _label(self, record: dict[str, Any]) -> Any:
        return self.read.value(record, self.read.primary.fields[0].name)

    def of_secondary(self) -> Offer:
        primary, secondary = self.read.primary, self.read.secondary
        store = self.design.stores["primary"]

        def run(state: State, args: dict[str, Any]) -> Answer:
            mine = self.read.links_of(state, "secondary", str(args[self.by_arg]))
            if not mine:
                raise ToolError(f"no {self.design.domain.link.plural} for {args[self.by_arg]}")
            found = []
            for link in mine[:SHOWN]:
                record = self.read.record(state, "primary", self.design.referred("primary", link))
                found.append(
                    {
                        store.id_key: record[store.id_key],
                        self.title[-1]: self._label(record),
                        self.date: link[self.date],
                    }
                )
            return {self.design.spell(self.by_arg): args[self.by_arg], self._plural(): found}, []

        description = (
            f"The {primary.plural} a {secondary.singular} has {self.design.domain.link.plural}"
            f" for, with the {self.design.domain.link.singular}s' dates."
        )
        keys = [self._plural()]
        name = f"{primary.plural}_of_{secondary.singular}"
        return Offer(
            "join",
            self._tool(name, description, "secondary", run, keys),
            self._from_link("secondary"),
        )

    def of_primary(self) -> Offer:
        primary, secondary = self.read.primary, self.read.secondary
        store = self.design.stores["secondary"]

        def run(state: State, args: dict[str, Any]) -> Answer:
            mine = self.read.links_of(state, "primary", str(args[self.id_arg]))
            if not mine:
                raise ToolError(f"no {self.design.domain.link.plural} for {args[self.id_arg]}")
            found = []
            for link in mine[:SHOWN]:
                party = self.read.record(
                    state, "secondary", self.design.referred("secondary", link)
                )
                found.append(
                    {
                        store.id_key: party[store.id_key],
                        self.party_name: party[self.party_name],
                        self.date: link[self.date],
                    }
                )
            return {self.design.spell(self.id_arg): args[self.id_arg], self._parties(): found}, []

        description = (
            f"The {secondary.plural} with {self.design.domain.link.plural} for a "
            f"{primary.singular}, with the dates."
        )
        name = f"{secondary.plural}_of_{primary.singular}"
        tool = self._tool(name, description, "primary", run, [self._parties()])
        return Offer("join", tool, self._from_link("primary"))

    def two_hop(self, rng: random.Random) -> Offer:
        """Forward: a record → its links → their parties → each party's email. Backward: a
        party → its links → their records → one field of each (distinct values)."""
        if rng.random() < 0.5:
            return self._hop("primary", "secondary", self.email, "email")
        kinds = ("city", "title")
        fields = [f for f in self.read.primary.fields if f.kind in kinds]
        field = rng.choice([f for f in fields if f.name not in self.design.sparse])
        return self._hop("secondary", "primary", ".".join(self.design.path(field)), field.name)

    def _hop(self, start: str, end: str, path: str, name: str) -> Offer:
        arg = self.id_arg if start == "primary" else self.by_arg
        far, near = self.design.entity(end), self.design.entity(start)
        key = self.design.spell(f"{name}s")

        def value(record: dict[str, Any]) -> Any:
            found: Any = record
            for part in path.split("."):
                found = found.get(part) if isinstance(found, dict) else None
            return found

        def run(state: State, args: dict[str, Any]) -> Answer:
            mine = self.read.links_of(state, start, str(args[arg]))
            if not mine:
                raise ToolError(f"no {self.design.domain.link.plural} for {args[arg]}")
            ends = {self.design.referred(end, link) for link in mine}
            values = [value(self.read.record(state, end, ident)) for ident in ends]
            return {self.design.spell(arg): args[arg], key: summary("distinct", values)}, []

        description = (
            f"The {name.replace('_', ' ')}s of the {far.plural} a {near.singular} has "
            f"{self.design.domain.link.plural} with (each once, sorted)."
        )
        tool = self._tool(
            f"{far.singular}_{name}s_of_{near.singular}", description, start, run, [key]
        )
        return Offer("join", tool, self._from_link(start))

    def roster(self) -> Offer:
        """The parties a record lists in its array of ids (``[]`` if it lists nobody)."""
        primary, secondary = self.read.primary, self.read.secondary
        listed = self.design.roster_key or ""
        store = self.design.stores["secondary"]

        def run(state: State, args: dict[str, Any]) -> Answer:
            record = self.read.record(state, "primary", args[self.id_arg])
            parties = [self.read.record(state, "secondary", str(i)) for i in record[listed]]
            return [
                {
                    store.id_key: p[store.id_key],
                    self.party_name: p[self.party_name],
                    self.email: p[self.email],
                }
                for p in parties
            ], []

        def plan(rng: random.Random, state: State) -> dict[str, Any]:
            records = self.read.records(state, "primary")
            chosen = rng.choice([r for r in records if r[listed]] or records)
            return {self.id_arg: self.read.ident("primary", chosen)}

        name = f"listed_{secondary.plural}_of_{primary.singular}"
        description = f"The {secondary.plural} a {primary.singular}'s {listed} lists."
        tool = Tool(
            self.surface.arg(name),
            description,
            {self.id_arg: self.read.id_schema("primary")},
            run,
            (self.id_arg,),
        )
        return Offer("join", tool, plan)

    def empty_roster(self) -> Offer:
        """The roster of a record that lists nobody (any record, if all list someone)."""
        offer, listed = self.roster(), self.design.roster_key or ""

        def plan(rng: random.Random, state: State) -> dict[str, Any]:
            records = self.read.records(state, "primary")
            chosen = rng.choice([r for r in records if not r[listed]] or records)
            return {self.id_arg: self.read.ident("primary", chosen)}

        return Offer("empty", offer.tool, plan)

    def listing(self) -> Offer:
        """The records whose array of ids lists a party."""
        primary, secondary = self.read.primary, self.read.secondary
        listed = self.design.roster_key or ""
        store = self.design.stores["primary"]

        def run(state: State, args: dict[str, Any]) -> Answer:
            wanted = str(args[self.by_arg])
            found = [
                {store.id_key: r[store.id_key], self.title[-1]: self._label(r)}
                for r in self.read.records(state, "primary")
                if wanted in {str(i) for i in r[listed]}
            ]
            return {
                self.design.spell(self.by_arg): args[self.by_arg],
                self._plural(): found[:SHOWN],
            }, []

        def plan(rng: random.Random, state: State) -> dict[str, Any]:
            records = self.read.records(state, "primary")
            chosen = rng.choice([r for r in records if r[listed]])
            return {self.by_arg: rng.choice(chosen[listed])}

        name = f"{primary.plural}_listing_{secondary.singular}"
        description = f"The {primary.plural} whose {listed} include a {secondary.singular}."
        tool = self._tool(name, description, "secondary", run, [self._plural()])
        return Offer("join", tool, plan)

    def _parties(self) -> str:
        return self.design.spell(self.design.domain.secondary.plural)

    def _plural(self) -> str:
        return self.design.spell(self.design.domain.primary.plural)


def join_offers(read: Reader) -> list[Offer]:
    joins, chosen = Joins(read), read.design.surface.joins
    rng = random.Random(f"joins/{read.design.seed}")
    makers: dict[str, Callable[[], Offer]] = {
        "of_secondary": joins.of_secondary,
        "of_primary": joins.of_primary,
        "two_hop": lambda: joins.two_hop(rng),
        "roster": joins.roster,
        "listing": joins.listing,
    }
    return [
        replace(makers[name](), variant=name)
        for name in chosen
        if read.design.roster_key or name not in ("roster", "listing")
    ]


def empty_join_offers(read: Reader) -> list[Offer]:
    if "empty_list" in read.design.surface.empties and read.design.roster_key:
        return [replace(Joins(read).empty_roster(), variant="empty_list")]
    return []
