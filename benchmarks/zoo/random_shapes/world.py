"""A random shape: the state its design lays out and its tools' code and planners. Every seed
has the benchmark's kinds of call (lookups, nested lookups, searches, joins, aggregates,
writes and reads of what they wrote, empty answers); which calls of each kind it offers, and
so what they mean, is drawn by seed (:mod:`.surface`), and each planner picks one of them."""

from __future__ import annotations

import random
from typing import Any, ClassVar

from benchmarks.zoo.kit import WORDS, Planned, State, Tool, day, fill, size_of, words
from benchmarks.zoo.random_shapes.big_records import claims, pairs
from benchmarks.zoo.random_shapes.design import Design
from benchmarks.zoo.random_shapes.fields import Field
from benchmarks.zoo.random_shapes.relay import comments
from benchmarks.zoo.random_shapes.schema_links import add_document
from benchmarks.zoo.random_shapes.sub_items import sub_items
from benchmarks.zoo.random_shapes.title_refs import title_ref
from benchmarks.zoo.random_shapes.tools import RandomTools
from benchmarks.zoo.shape import Shape

SECONDARIES = 150


class RandomShape(Shape):
    """A shape drawn from a seed; :func:`benchmarks.zoo.random_shapes.random_shape` makes
    one, with its name, title, description and encoding as class attributes."""

    encoding: ClassVar[str] = "plain"
    """How the state encodes records (:mod:`.encodings`)."""
    structure: ClassVar[str] = "none"
    """The structures the seed draws, in words (:mod:`.structures`)."""

    def __init__(self, design: Design) -> None:
        self.design = design
        self.code = RandomTools(design)

    def build(self, rng: random.Random, target_bytes: int) -> State:
        design, state = self.design, State()
        for store in design.stores.values():
            store.place(state)
        secondary = [self._secondary(rng, n) for n in range(SECONDARIES)]
        for record in secondary:
            design.stores["secondary"].append(state, record)
        counts = {"primary": 0, "link": 0}
        refs = [record[design.stores["secondary"].id_key] for record in secondary]
        titles: list[str] = []

        def add() -> None:
            n = counts["primary"]
            ident = design.make_id("primary", n)
            counts["primary"] += 1
            record = self._primary(rng, n, ident, refs)
            record |= extras(design, n, ident, refs, titles)
            titles.append(record[design.path(design.domain.primary.fields[0])[0]])
            design.stores["primary"].append(state, record)
            for _ in range(rng.randint(0, 3)):
                link = self._link(rng, counts["link"], ident, rng.choice(refs))
                counts["link"] += 1
                design.stores["link"].append(state, link)

        fill(add, lambda: size_of(state), target_bytes)
        for store in design.stores.values():
            store.seal(state)
        add_document(design, state)
        return state

    def _values(self, rng: random.Random, role: str, fields: tuple[Field, ...]) -> dict[str, Any]:
        singular = self.design.entity(role).singular
        return {self.design.spell(f"{singular}.{f.name}"): f.draw(rng) for f in fields}

    def _secondary(self, rng: random.Random, n: int) -> dict[str, Any]:
        design = self.design
        record = {design.stores["secondary"].id_key: design.make_id("secondary", n)}
        record |= self._values(rng, "secondary", design.domain.secondary.fields)
        name = str(next(iter(record.values()))).split()[0].lower()
        return record | {design.spell("email"): f"{name}{n}@{design.domain.primary.plural}.example"}

    def _primary(self, rng: random.Random, n: int, ident: Any, refs: list[Any]) -> dict[str, Any]:
        design = self.design
        record: dict[str, Any] = {design.stores["primary"].id_key: ident}
        for field in design.domain.primary.fields:
            value = field.draw(rng)
            if field.name in design.sparse and rng.random() < 0.3:
                if not design.sparse_null:
                    continue
                value = None
            *group, name = design.path(field)
            holder = record
            for part in group:
                holder = holder.setdefault(part, {})
            holder[name] = value
        if design.code_key is not None:
            prefix = design.domain.primary.prefix
            record[design.code_key] = f"{prefix[0]}{chr(65 + n % 26)}-{(n * 37) % 100000:05d}"
        if design.roster_key is not None:
            record[design.roster_key] = rng.sample(refs, rng.choice((0, 0, 1, 2, 3)))
        dates = sorted({day(rng, 2025) for _ in range(rng.randint(1, 5))})
        entries = [self.code.slot(rng) for _ in dates]
        if design.calendar_list:
            calendar: Any = [
                {design.spell("date"): d, **e} for d, e in zip(dates, entries, strict=True)
            ]
        else:
            calendar = dict(zip(dates, entries, strict=True))
        record[design.spell(design.domain.calendar)] = calendar
        return record

    def _link(self, rng: random.Random, n: int, primary: Any, secondary: Any) -> dict[str, Any]:
        design = self.design
        link = {
            design.stores["link"].id_key: design.make_id("link", n),
            design.reference_key("primary"): design.refer("primary", primary),
            design.reference_key("secondary"): design.refer("secondary", secondary),
        } | self._values(rng, "link", design.domain.link.fields)
        if design.lines:
            link[design.lines[0]] = line_items(rng, design.lines[1:])
        return link

    def tools(self) -> list[Tool]:
        return self.code.tools()

    def _offered(self, kind: str, rng: random.Random, state: State) -> Planned:
        offer = rng.choice(self.code.offers[kind])
        return Planned(kind, offer.tool.name, offer.plan(rng, state))

    def lookup(self, rng: random.Random, state: State) -> Planned:
        return self._offered("lookup", rng, state)

    def nested_lookup(self, rng: random.Random, state: State) -> Planned:
        return self._offered("nested_lookup", rng, state)

    def search(self, rng: random.Random, state: State) -> Planned:
        return self._offered("search", rng, state)

    def join(self, rng: random.Random, state: State) -> Planned:
        return self._offered("join", rng, state)

    def aggregate(self, rng: random.Random, state: State) -> Planned:
        return self._offered("aggregate", rng, state)

    def write(self, rng: random.Random, state: State) -> tuple[Planned, Planned]:
        return self.code.write(rng, state)

    def no_match(self, rng: random.Random, state: State) -> Planned:
        return self._offered("empty", rng, state)


def extras(
    design: Design, n: int, ident: Any, refs: list[Any], titles: list[str]
) -> dict[str, Any]:
    """The fields the seed's classes of real formats add to record ``n`` (:mod:`.formats`),
    drawn from a generator of their own (so the rest of the state is as it was)."""
    formats, spell = design.formats, design.spell
    rng = random.Random(f"formats/{design.seed}/{n}")
    found: dict[str, Any] = {}
    if formats.claims:
        found[spell(formats.claims)] = claims(rng, ident, refs)
    if formats.pairs:
        key, name, value = formats.pairs
        found[spell(key)] = pairs(rng, name, value, key == "headers")
    if formats.relay:
        found[spell(formats.relay)] = comments(rng, "Comment")
    if formats.title_ref:
        found[spell(formats.title_ref)] = title_ref(rng, titles)
    if formats.sub_items:
        found[spell(formats.sub_items.key)] = sub_items(design.seed, n, formats.sub_items, spell)
    if design.roster_key is not None and (formats.claims or formats.relay):
        # Large records are few in a small state: where the seed's calls need them, the first
        # lists nobody and the second two parties, so that one of each is there.
        surface = design.surface
        if n == 0 and "empty_list" in surface.empties:
            found[design.roster_key] = []
        if n == 1 and "listing" in surface.joins:
            found[design.roster_key] = rng.sample(refs, 2)
    return found


def line_items(rng: random.Random, names: tuple[str, ...]) -> list[dict[str, Any]]:
    """One to four line items (code, label, quantity, unit price), their codes distinct."""
    code, label, qty, price = names
    items: dict[str, dict[str, Any]] = {}
    for _ in range(rng.randint(1, 4)):
        key = f"{rng.choice(WORDS)[:4].upper()}-{rng.randint(100, 999)}"
        items[key] = {
            code: key,
            label: words(rng, 2),
            qty: rng.randint(1, 24),
            price: round(rng.uniform(2.0, 400.0), 2),
        }
    return list(items.values())
