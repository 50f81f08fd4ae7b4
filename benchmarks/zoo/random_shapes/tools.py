"""A random shape's core tools, run by code over the state as its design lays it out: a record
by id, a calendar entry by id and date, a write of a calendar entry (and the read of what it
wrote) and a note tool answering nothing (``""``, ``null`` or ``{}``, by seed); and the offers
of every kind, gathered from :mod:`.lookups`, :mod:`.searches`, :mod:`.joins` and
:mod:`.aggregates` as the seed's surface chooses."""

from __future__ import annotations

import random
from typing import Any

from benchmarks.zoo.kit import Answer, Planned, State, Tool, ToolError, day, prop
from benchmarks.zoo.random_shapes.aggregates import aggregate_offers
from benchmarks.zoo.random_shapes.aggregation_offers import request_offers
from benchmarks.zoo.random_shapes.big_records import claims_offers, pairs_offer
from benchmarks.zoo.random_shapes.design import Design
from benchmarks.zoo.random_shapes.filter_search import filter_searches
from benchmarks.zoo.random_shapes.joins import empty_join_offers, join_offers
from benchmarks.zoo.random_shapes.lookups import empty_offers, lookup_offers, nested_offers
from benchmarks.zoo.random_shapes.object_search import ObjectSearch
from benchmarks.zoo.random_shapes.offer import Offer, object_schema
from benchmarks.zoo.random_shapes.reading import Reader
from benchmarks.zoo.random_shapes.relay import comments_offer
from benchmarks.zoo.random_shapes.searches import RandomSearch
from benchmarks.zoo.random_shapes.sub_item_offers import sub_item_offers
from benchmarks.zoo.random_shapes.title_refs import count_offer, title_join


class RandomTools:
    def __init__(self, design: Design) -> None:
        self.design, self.read = design, Reader(design)
        surface, domain = design.surface, design.domain
        self.id_arg = surface.arg(surface.id_arg)
        self.date_arg = surface.arg("date")
        self.calendar = design.spell(domain.calendar)
        singular = domain.primary.singular
        self.names = {
            "get": surface.tool_name("get", singular),
            "slot": surface.tool_name("get", singular, domain.calendar, "entry"),
            "set": surface.tool_name("set", singular, domain.calendar, "entry"),
        }
        self.searches = [RandomSearch.primary(self.read), *RandomSearch.links(self.read)]
        style = design.formats.objects
        if style is not None:
            self.searches = [ObjectSearch.of(s, style) for s in self.searches]
        self.searches = filter_searches(design, self.searches)
        self.search = self.searches[0]
        core = [Offer("lookup", self._get_tool(), self._plan_id, "id")]
        core.append(Offer("nested_lookup", self._slot_tool(), self._plan_slot, "calendar"))
        self.offers: dict[str, list[Offer]] = {
            "lookup": core[:1] + lookup_offers(self.read),
            "nested_lookup": core[1:] + nested_offers(self.read),
            "search": [s.offer() for s in self.searches],
            "join": join_offers(self.read),
            "aggregate": aggregate_offers(self.read),
            "empty": empty_offers(self.read, self.search, empty_join_offers(self.read)),
        }
        for offer in format_offers(self.read, self.search):
            self.offers[offer.kind].append(offer)

    def tools(self) -> list[Tool]:
        seen = {o.tool.name: o.tool for offers in self.offers.values() for o in offers}
        return [*seen.values(), self._set_tool(), self.note_tool()]

    def _say(self, *phrasings: str) -> str:
        return phrasings[self.design.surface.wording % len(phrasings)]

    def _ident(self) -> dict[str, dict[str, Any]]:
        return {self.id_arg: self.read.id_schema("primary")}

    def _get_tool(self) -> Tool:
        primary = self.design.domain.primary
        id_key = self.design.stores["primary"].id_key
        wrap = self.design.spell(primary.singular)
        output = None
        if self.design.surface.schemas:
            output = object_schema([wrap if self.design.surface.record_wrap else id_key])
        return Tool(
            self.names["get"],
            self._say(
                f"A {primary.singular}'s record.",
                f"Returns one {primary.singular} by id, with all its fields.",
                f"Look up a {primary.singular}.",
            ),
            self._ident(),
            self._get,
            (self.id_arg,),
            output=output,
        )

    def _plan_id(self, rng: random.Random, state: State) -> dict[str, Any]:
        return {self.id_arg: self.read.arg_id("primary", self.read.any_key(rng, state, "primary"))}

    def _get(self, state: State, args: dict[str, Any]) -> Answer:
        found = self.read.record(state, "primary", args[self.id_arg])
        if self.design.surface.record_wrap:
            return {self.design.spell(self.design.domain.primary.singular): found}, []
        return found, []

    def _slot_tool(self) -> Tool:
        domain = self.design.domain
        return Tool(
            self.names["slot"],
            self._say(
                f"A {domain.primary.singular}'s {domain.calendar} entry on a date.",
                f"The {domain.calendar} of one {domain.primary.singular} for a given day.",
                f"Get the {domain.calendar} entry (by date) of a {domain.primary.singular}.",
            ),
            self._ident() | {self.date_arg: prop("string", "YYYY-MM-DD.")},
            self._slot,
            (self.id_arg, self.date_arg),
        )

    def _plan_slot(self, rng: random.Random, state: State) -> dict[str, Any]:
        key = self.read.any_key(rng, state, "primary")
        record = self.read.record(state, "primary", key)
        date = rng.choice(self.dates(record))
        return {self.id_arg: self.read.arg_id("primary", key), self.date_arg: date}

    def slot(self, rng: random.Random) -> dict[str, Any]:
        return {self.design.spell(f"slot.{f.name}"): f.draw(rng) for f in self.design.domain.slots}

    def dates(self, record: dict[str, Any]) -> list[str]:
        calendar = record[self.calendar]
        if isinstance(calendar, dict):
            return list(calendar)
        return [entry[self.design.spell("date")] for entry in calendar]

    def _slot(self, state: State, args: dict[str, Any]) -> Answer:
        ident, date = args[self.id_arg], args[self.date_arg]
        calendar = self.read.record(state, "primary", ident)[self.calendar]
        key = self.design.spell("date")
        if isinstance(calendar, dict):
            entry = calendar.get(date)
        else:
            entry = next((e for e in reversed(calendar) if e[key] == date), None)
        if entry is None:
            raise ToolError(f"no {self.design.domain.calendar} entry on {date}")
        return {self.design.stores["primary"].id_key: ident, key: date, **entry}, []

    def _slot_args(self) -> dict[str, str]:
        """Canonical slot name → argument name."""
        return {f.name: self.design.surface.arg(f.name) for f in self.design.domain.slots}

    def _set_tool(self) -> Tool:
        domain = self.design.domain
        slots = {arg: prop("number", f"{name}.") for name, arg in self._slot_args().items()}
        return Tool(
            self.names["set"],
            self._say(
                f"Set a {domain.primary.singular}'s {domain.calendar} entry on a date.",
                f"Writes the {domain.calendar} entry of a {domain.primary.singular} for a day "
                "(replacing any there).",
                f"Record {domain.calendar} figures for a {domain.primary.singular} and date.",
            ),
            self._ident() | {self.date_arg: prop("string", "YYYY-MM-DD.")} | slots,
            self._set,
            (self.id_arg, self.date_arg, *slots),
            effect="write",
        )

    def write(self, rng: random.Random, state: State) -> tuple[Planned, Planned]:
        ident = self.read.arg_id("primary", self.read.any_key(rng, state, "primary"))
        key = {self.id_arg: ident, self.date_arg: day(rng, 2026)}
        slot = {arg: f.draw(rng) for f in self.design.domain.slots for arg in [self._arg(f.name)]}
        return Planned("write", self.names["set"], key | slot), Planned(
            "read_after_write", self.names["slot"], key
        )

    def _arg(self, name: str) -> str:
        return self._slot_args()[name]

    def _set(self, state: State, args: dict[str, Any]) -> Answer:
        design = self.design
        ident, date = args[self.id_arg], args[self.date_arg]
        self.read.record(state, "primary", ident)
        entry = {design.spell(f"slot.{name}"): args[arg] for name, arg in self._slot_args().items()}
        key = design.spell("date")
        store = design.stores["primary"]
        if design.calendar_list:
            value: dict[str, Any] = {key: date, **entry}
            patch = store.adding(state, str(ident), (self.calendar, "-"), value)
        else:
            patch = store.adding(state, str(ident), (self.calendar, date), entry)
        if design.surface.write_text:
            figures = ", ".join(f"{k} {v}" for k, v in entry.items())
            return (
                f"Saved the {design.domain.calendar} entry of {ident} on {date}: {figures}.",
                patch,
            )
        return {store.id_key: ident, key: date, **entry}, patch

    def note_tool(self) -> Tool:
        name, arg = self.design.note
        answer: Any = {"": "", "null": None, "{}": {}}[self.design.surface.note_answer]
        return Tool(
            name,
            self._say(
                "Write a note to yourself (answers nothing).",
                "A scratchpad: keeps a thought; returns no data.",
                "Log a note for later.",
            ),
            {arg: prop("string", "The text.")},
            lambda s, a: (answer, []),
            (arg,),
        )


def format_offers(read: Reader, search: RandomSearch) -> list[Offer]:
    """The calls the seed's classes of real formats offer (:mod:`.formats`)."""
    formats, found = read.design.formats, []
    if formats.claims:
        found.extend(claims_offers(read))
    if formats.pairs:
        found.append(pairs_offer(read))
    if formats.relay:
        found.append(comments_offer(read))
    if formats.title_ref:
        found.extend((title_join(read), count_offer(search)))
    return found + request_offers(read) + sub_item_offers(read)
