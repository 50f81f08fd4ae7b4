"""A random shape's tools, run by code over the state as its design lays it out: a lookup by
id, a calendar entry by id and date, an attribute search, the records linked to a party (a
join through the links), a summary per category, and a write of a calendar entry."""

from __future__ import annotations

import random
from typing import Any

from benchmarks.zoo.kit import Answer, Search, State, Tool, ToolError, note_tool, prop, summary
from benchmarks.zoo.random_shapes.design import Design


class RandomTools:
    def __init__(self, design: Design, finder: Search) -> None:
        self.design, self.finder = design, finder
        domain = design.domain
        primary, secondary = domain.primary, domain.secondary
        self.id_arg, self.by_arg = f"{primary.singular}_id", f"{secondary.singular}_id"
        self.names = {
            "get": f"get_{primary.singular}",
            "slot": f"get_{primary.singular}_{domain.calendar}",
            "join": f"{primary.plural}_of_{secondary.singular}",
            "stats": f"{primary.singular}_stats",
            "set": f"set_{primary.singular}_{domain.calendar}",
        }
        categories = [f for f in primary.fields if f.kind == "category"]
        self.group_field, self.other_field = categories[0], categories[-1]
        numbers = [f for f in primary.fields if f.numeric]
        self.sum_field, self.max_field = numbers[0], numbers[-1]
        self.calendar = design.spell(domain.calendar)

    def _id_schema(self, role: str) -> dict[str, Any]:
        entity = self.design.entity(role)
        example = self.design.make_id(role, 3)
        type_ = "integer" if isinstance(example, int) else "string"
        return prop(type_, f"The {entity.singular}'s id, e.g. {example}.")

    def tools(self, note: tuple[str, str]) -> list[Tool]:
        domain, names = self.design.domain, self.names
        ident = {self.id_arg: self._id_schema("primary")}
        date = {"date": prop("string", "YYYY-MM-DD.")}
        slots = {f.name: prop("number", f"{f.name}.") for f in domain.slots}
        primary = domain.primary
        return [
            Tool(names["get"], f"A {primary.singular}'s record.", ident, self._get, (self.id_arg,)),
            Tool(
                names["slot"],
                f"A {primary.singular}'s {domain.calendar} entry on a date.",
                ident | date,
                self._slot,
                (self.id_arg, "date"),
            ),
            self.finder.tool(),
            Tool(
                names["join"],
                f"The {primary.plural} a {domain.secondary.singular} has "
                f"{domain.link.plural} for, with the {domain.link.singular}s' dates.",
                {self.by_arg: self._id_schema("secondary")},
                self._join,
                (self.by_arg,),
            ),
            Tool(
                names["stats"],
                f"Count, total {self.sum_field.name}, largest {self.max_field.name} and the "
                f"{self.other_field.name} values of the {primary.plural} of one "
                f"{self.group_field.name}.",
                {self.group_field.name: prop("string", "", enum=list(self.group_field.values))},
                self._stats,
                (self.group_field.name,),
            ),
            Tool(
                names["set"],
                f"Set a {primary.singular}'s {domain.calendar} entry on a date.",
                ident | date | slots,
                self._set,
                (self.id_arg, "date", *slots),
                effect="write",
            ),
            note_tool(*note, "Write a note to yourself (answers nothing)."),
        ]

    def slot(self, rng: random.Random) -> dict[str, Any]:
        return {self.design.spell(f"slot.{f.name}"): f.draw(rng) for f in self.design.domain.slots}

    def dates(self, record: dict[str, Any]) -> list[str]:
        calendar = record[self.calendar]
        if isinstance(calendar, dict):
            return list(calendar)
        return [entry[self.design.spell("date")] for entry in calendar]

    def _record(self, state: State, ident: Any) -> dict[str, Any]:
        found = self.design.stores["primary"].get(state, str(ident))
        if found is None:
            raise ToolError(f"no {self.design.domain.primary.singular} {ident}")
        return found

    def _get(self, state: State, args: dict[str, Any]) -> Answer:
        return self._record(state, args[self.id_arg]), []

    def _slot(self, state: State, args: dict[str, Any]) -> Answer:
        calendar = self._record(state, args[self.id_arg])[self.calendar]
        key = self.design.spell("date")
        if isinstance(calendar, dict):
            entry = calendar.get(args["date"])
        else:
            entry = next((e for e in reversed(calendar) if e[key] == args["date"]), None)
        if entry is None:
            raise ToolError(f"no {self.design.domain.calendar} entry on {args['date']}")
        id_key = self.design.stores["primary"].id_key
        return {id_key: args[self.id_arg], key: args["date"], **entry}, []

    def _join(self, state: State, args: dict[str, Any]) -> Answer:
        design = self.design
        wanted = str(args[self.by_arg])
        links = [r for _, r in design.stores["link"].items(state)]
        mine = [r for r in links if design.referred("secondary", r) == wanted]
        if not mine:
            raise ToolError(f"no {design.domain.link.plural} for {wanted}")
        primary = design.stores["primary"]
        records = dict(primary.items(state))
        name = design.path(design.domain.primary.fields[0])
        date = design.spell(f"{design.domain.link.singular}.date")
        found = []
        for link in mine[:25]:
            record = records[design.referred("primary", link)]
            label: Any = record
            for part in name:
                label = label[part]
            found.append(
                {primary.id_key: record[primary.id_key], name[-1]: label, date: link[date]}
            )
        return {
            design.spell(self.by_arg): args[self.by_arg],
            design.spell(primary.at[-1]): found,
        }, []

    def _stats(self, state: State, args: dict[str, Any]) -> Answer:
        design, value = self.design, args[self.group_field.name]
        chosen = [
            r
            for _, r in design.stores["primary"].items(state)
            if self._value(r, self.group_field.name) == value
        ]
        spell = design.spell
        return {
            spell(self.group_field.name): value,
            spell("count"): len(chosen),
            spell(f"total_{self.sum_field.name}"): summary(
                "sum", [self._value(r, self.sum_field.name) for r in chosen]
            ),
            spell(f"max_{self.max_field.name}"): summary(
                "max", [self._value(r, self.max_field.name) for r in chosen]
            ),
            spell(f"{self.other_field.name}_values"): summary(
                "distinct", [self._value(r, self.other_field.name) for r in chosen]
            ),
        }, []

    def _value(self, record: dict[str, Any], name: str) -> Any:
        field = next(f for f in self.design.domain.primary.fields if f.name == name)
        value: Any = record
        for part in self.design.path(field):
            value = value[part]
        return value

    def _set(self, state: State, args: dict[str, Any]) -> Answer:
        design = self.design
        ident = args[self.id_arg]
        self._record(state, ident)
        entry = {design.spell(f"slot.{f.name}"): args[f.name] for f in design.domain.slots}
        key = design.spell("date")
        store = design.stores["primary"]
        if design.calendar_list:
            value: dict[str, Any] = {key: args["date"], **entry}
            path = store.pointer(state, str(ident), self.calendar, "-")
        else:
            value, path = entry, store.pointer(state, str(ident), self.calendar, args["date"])
        id_key = store.id_key
        return {id_key: ident, key: args["date"], **entry}, [
            {"op": "add", "path": path, "value": value}
        ]
