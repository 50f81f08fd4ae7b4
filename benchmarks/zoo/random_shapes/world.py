"""A random shape: the state its design lays out, its tools' code and its planners, with the
same kinds of call as the hand-written shapes (the design decides only how the data is held
and spelt, never which calls there are)."""

from __future__ import annotations

import random
from typing import Any

from benchmarks.zoo.kit import (
    Filter,
    Planned,
    Search,
    State,
    Tool,
    day,
    fill,
    prop,
    size_of,
)
from benchmarks.zoo.random_shapes.design import Design
from benchmarks.zoo.random_shapes.tools import RandomTools
from benchmarks.zoo.random_shapes.vocabulary import Field
from benchmarks.zoo.shape import Shape

SECONDARIES = 150


def filters(design: Design) -> list[Filter]:
    """The primary search's arguments (snake_case, as the tools are written) and the stored
    fields each constrains."""
    found = []
    for field in design.domain.primary.fields:
        path = ".".join(design.path(field))
        name, kind = field.name, field.kind
        if kind in ("category", "city"):
            found.append(Filter(name, path, "eq", prop("string", f"{name}.")))
        elif field.numeric:
            type_ = "integer" if kind == "int" else "number"
            found.append(Filter(f"min_{name}", path, "ge", prop(type_, f"Least {name}.")))
            found.append(Filter(f"max_{name}", path, "le", prop(type_, f"Most {name}.")))
        elif kind == "date":
            found.append(Filter(f"{name}_after", path, "ge", prop("string", "YYYY-MM-DD.")))
            found.append(Filter(f"{name}_before", path, "le", prop("string", "YYYY-MM-DD.")))
        elif kind == "title":
            found.append(Filter(f"{name}_starts", path, "prefix", prop("string", "Prefix.")))
    return found


class RandomShape(Shape):
    """A shape drawn from a seed; :func:`benchmarks.zoo.random_shapes.random_shape` makes
    one, with its name, title and description as class attributes."""

    def __init__(self, design: Design) -> None:
        self.design = design
        primary = design.stores["primary"]
        self.finder = Search(
            f"search_{design.domain.primary.plural}",
            f"Find {design.domain.primary.plural} by their attributes.",
            primary.items,
            filters(design),
            self._show,
            limit=search_limit(design.seed),
        )
        self.code = RandomTools(design, self.finder)

    def _show(self, key: str, record: dict[str, Any]) -> dict[str, Any]:
        scalars = {k: v for k, v in record.items() if not isinstance(v, dict | list)}
        return dict(list(scalars.items())[:5])

    def build(self, rng: random.Random, target_bytes: int) -> State:
        design, state = self.design, State()
        for store in design.stores.values():
            store.place(state)
        secondary = [self._secondary(rng, n) for n in range(SECONDARIES)]
        for record in secondary:
            design.stores["secondary"].append(state, record)
        counts = {"primary": 0, "link": 0}
        refs = [record[design.stores["secondary"].id_key] for record in secondary]

        def add() -> None:
            ident = design.make_id("primary", counts["primary"])
            counts["primary"] += 1
            design.stores["primary"].append(state, self._primary(rng, ident))
            for _ in range(rng.randint(0, 3)):
                link = self._link(rng, counts["link"], ident, rng.choice(refs))
                counts["link"] += 1
                design.stores["link"].append(state, link)

        fill(add, lambda: size_of(state), target_bytes)
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

    def _primary(self, rng: random.Random, ident: Any) -> dict[str, Any]:
        design = self.design
        record: dict[str, Any] = {design.stores["primary"].id_key: ident}
        for field in design.domain.primary.fields:
            *group, name = design.path(field)
            holder = record
            for part in group:
                holder = holder.setdefault(part, {})
            holder[name] = field.draw(rng)
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
        return {
            design.stores["link"].id_key: design.make_id("link", n),
            design.reference_key("primary"): design.refer("primary", primary),
            design.reference_key("secondary"): design.refer("secondary", secondary),
        } | self._values(rng, "link", design.domain.link.fields)

    def tools(self) -> list[Tool]:
        return self.code.tools(self.note)

    def _any(self, rng: random.Random, state: State, role: str) -> tuple[str, dict[str, Any]]:
        store = self.design.stores[role]
        key = rng.choice(store.keys(state))
        found = store.get(state, key)
        assert found is not None
        return key, found

    def _id_arg(self, key: str) -> Any:
        return int(key) if self.design.id_styles["primary"] == "int" else key

    def lookup(self, rng: random.Random, state: State) -> Planned:
        key, _ = self._any(rng, state, "primary")
        return Planned("lookup", self.code.names["get"], {self.code.id_arg: self._id_arg(key)})

    def nested_lookup(self, rng: random.Random, state: State) -> Planned:
        key, record = self._any(rng, state, "primary")
        date = rng.choice(self.code.dates(record))
        arguments = {self.code.id_arg: self._id_arg(key), "date": date}
        return Planned("nested_lookup", self.code.names["slot"], arguments)

    def search(self, rng: random.Random, state: State) -> Planned:
        return Planned("search", self.finder.name, self.finder.plan(rng, state))

    def join(self, rng: random.Random, state: State) -> Planned:
        _, link = self._any(rng, state, "link")
        ident = self.design.referred("secondary", link)
        if self.design.id_styles["secondary"] == "int":
            return Planned("join", self.code.names["join"], {self.code.by_arg: int(ident)})
        return Planned("join", self.code.names["join"], {self.code.by_arg: ident})

    def aggregate(self, rng: random.Random, state: State) -> Planned:
        field = self.code.group_field
        return Planned(
            "aggregate", self.code.names["stats"], {field.name: rng.choice(field.values)}
        )

    def write(self, rng: random.Random, state: State) -> tuple[Planned, Planned]:
        key, _ = self._any(rng, state, "primary")
        ident, date = self._id_arg(key), day(rng, 2026)
        slot = {f.name: f.draw(rng) for f in self.design.domain.slots}
        arguments = {self.code.id_arg: ident, "date": date, **slot}
        return Planned("write", self.code.names["set"], arguments), Planned(
            "read_after_write", self.code.names["slot"], {self.code.id_arg: ident, "date": date}
        )

    def no_match(self, rng: random.Random, state: State) -> Planned:
        numeric = next(f for f in self.design.domain.primary.fields if f.numeric)
        field = self.code.group_field
        arguments = {
            field.name: rng.choice(field.values),
            f"min_{numeric.name}": numeric.values[1] * 10,
        }
        return Planned("empty", self.finder.name, arguments)


def search_limit(seed: int) -> int:
    """How many records a search answers with at most (10 to 25, by seed)."""
    return random.Random(f"limit/{seed}").choice((10, 15, 20, 25))
