"""The aggregate calls over a seed's sub-items (:mod:`.sub_items`): a tally of the sub-items
of one value of each category, and a party's total over its records' sub-items of one value at
a price at least a bound; every constraint tied to one sub-item. The planners draw the values
from a record holding two sub-items where it can, one value from each, so that a reading per
record (not per sub-item) answers otherwise."""

from __future__ import annotations

import random
from typing import Any

from benchmarks.zoo.kit import Answer, State, Tool, prop
from benchmarks.zoo.random_shapes.offer import Offer
from benchmarks.zoo.random_shapes.reading import Reader
from benchmarks.zoo.random_shapes.sub_items import SubItems, meeting


class SubItemOffers:
    def __init__(self, read: Reader, style: SubItems) -> None:
        self.read, self.style, self.design = read, style, read.design
        spell, arg = self.design.spell, self.design.surface.arg
        self.key = spell(style.key)
        self.first, self.second = spell(style.first), spell(style.second)
        self.count, self.price = spell(style.count), spell(style.price)
        self.args = {"first": arg(style.first), "second": arg(style.second)}
        self.args |= {
            "party": arg(f"{read.secondary.singular}_id"),
            "least": arg(f"min_{style.price}"),
        }

    def items(self, record: dict[str, Any]) -> list[dict[str, Any]]:
        held = record.get(self.key)
        return held if isinstance(held, list) else []

    def _sample(self, rng: random.Random, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """A record's sub-items: of one holding two or more where some record does."""
        rich = [r for r in records if len(self.items(r)) >= 2]
        return self.items(rng.choice(rich or records))

    def tally(self) -> Offer:
        style, first, second = self.style, self.args["first"], self.args["second"]
        plural = self.read.primary.plural

        def run(state: State, args: dict[str, Any]) -> Answer:
            tests = [
                lambda i: i.get(self.first) == args[first],
                lambda i: i.get(self.second) == args[second],
            ]
            held = [meeting(self.items(r), tests) for r in self.read.records(state, "primary")]
            found = [i for items in held for i in items]
            return {
                self.first: args[first],
                self.second: args[second],
                self.design.spell(f"{style.key}_count"): len(found),
                self.design.spell(f"{plural}_holding"): sum(1 for items in held if items),
                self.design.spell(f"total_{style.count}"): sum(
                    i.get(self.count) or 0 for i in found
                ),
            }, []

        def plan(rng: random.Random, state: State) -> dict[str, Any]:
            items = self._sample(rng, self.read.records(state, "primary"))
            one, other = (rng.sample(items, 2) if len(items) >= 2 else (items * 2)[:2]) or [{}, {}]
            if rng.random() < 0.3:
                other = one
            return {
                first: one.get(self.first, style.first_values[0]),
                second: other.get(self.second, style.second_values[0]),
            }

        tool = Tool(
            self.design.surface.arg(f"count_{style.key}"),
            f"How many {style.key.replace('_', ' ')} (across all {plural}) are of one "
            f"{style.first} and one {style.second} (both of the same one); how many {plural} "
            f"hold such, and their total {style.count}.",
            {
                first: prop("string", "", enum=list(style.first_values)),
                second: prop("string", "", enum=list(style.second_values)),
            },
            run,
            (first, second),
        )
        return Offer("aggregate", tool, plan, "sub_tally")

    def _linked(self, state: State, party: str) -> list[dict[str, Any]]:
        """The records the party's links refer to, each once, in state order."""
        ids = dict.fromkeys(
            self.design.referred("primary", link)
            for link in self.read.links_of(state, "secondary", party)
        )
        return [self.read.record(state, "primary", i) for i in ids]

    def party_total(self) -> Offer:
        style, first, party, least = (
            self.style,
            self.args["first"],
            self.args["party"],
            self.args["least"],
        )
        singular, plural = self.read.secondary.singular, self.read.primary.plural
        id_key = self.design.stores["primary"].id_key

        def run(state: State, args: dict[str, Any]) -> Answer:
            tests = [
                lambda i: i.get(self.first) == args[first],
                lambda i: (i.get(self.price) or 0) >= args[least],
            ]
            held = [
                (r, meeting(self.items(r), tests)) for r in self._linked(state, str(args[party]))
            ]
            found = [i for _, items in held for i in items]
            return {
                party: args[party],
                self.first: args[first],
                least: args[least],
                self.design.spell(f"{style.key}_count"): len(found),
                self.design.spell(f"total_{style.count}"): sum(
                    i.get(self.count) or 0 for i in found
                ),
                self.design.spell(plural): [r[id_key] for r, items in held if items],
            }, []

        def plan(rng: random.Random, state: State) -> dict[str, Any]:
            link = self.read.record(state, "link", self.read.any_key(rng, state, "link"))
            key = self.design.referred("secondary", link)
            items = self._sample(rng, self._linked(state, key)) or [{}]
            one, other = rng.choice(items), rng.choice(items)
            bound = float(int(other.get(self.price, 50.0))) if rng.random() < 0.7 else 0.0
            return {
                party: self.read.arg_id("secondary", key),
                first: one.get(self.first, style.first_values[0]),
                least: bound,
            }

        tool = Tool(
            self.design.surface.arg(f"{singular}_{style.key}_total"),
            f"Over the {plural} a {singular}'s links refer to: how many {style.key.replace('_', ' ')} "
            f"are of one {style.first} at a {style.price} of at least a bound (both of the same "
            f"one), their total {style.count}, and which {plural} hold them.",
            {
                party: self.read.id_schema("secondary"),
                first: prop("string", "", enum=list(style.first_values)),
                least: prop("number", f"The least {style.price}."),
            },
            run,
            (party, first, least),
        )
        return Offer("aggregate", tool, plan, "sub_party_total")


def sub_item_offers(read: Reader) -> list[Offer]:
    """The calls over the seed's sub-items (none where it draws none)."""
    style = read.design.formats.sub_items
    if style is None:
        return []
    made = SubItemOffers(read, style)
    return [made.tally(), made.party_total()]
