"""Reading a random shape's state as its design lays it out: records by role and id, a
field's value wherever the design put it (``None`` where a sparse record lacks it), the id a
link refers to, and an id as a tool's argument takes it."""

from __future__ import annotations

import random
from typing import Any

from benchmarks.zoo.kit import State, ToolError
from benchmarks.zoo.random_shapes.design import Design
from benchmarks.zoo.random_shapes.fields import Field


class Reader:
    def __init__(self, design: Design) -> None:
        self.design = design
        self.primary = design.domain.primary
        self.secondary = design.domain.secondary
        # Read for every record of every search, so worked out once.
        self.paths = {f.name: design.path(f) for f in self.primary.fields}

    def field(self, name: str) -> Field:
        return next(f for f in self.primary.fields if f.name == name)

    def arg_name(self, field: Field) -> str:
        """The name a search argument knows ``field`` by: its canonical name or, where the seed
        says so, another of its names, one the state does not store it under if it can."""
        design = self.design
        if not design.surface.synonyms or not field.alts:
            return field.name
        stored = design.path(field)[-1]
        others = [n for n in (field.name, *field.alts) if design.surface.arg(n) != stored]
        rng = random.Random(f"argument/{design.seed}/{field.name}")
        return rng.choice(others or [field.name])

    def value(self, record: dict[str, Any], name: str) -> Any:
        """A primary field's value (``None`` if the record lacks it)."""
        value: Any = record
        for part in self.paths[name]:
            if not isinstance(value, dict):
                return None
            value = value.get(part)
        return value

    def records(self, state: State, role: str) -> list[dict[str, Any]]:
        return [r for _, r in self.design.stores[role].items(state)]

    def record(self, state: State, role: str, ident: Any) -> dict[str, Any]:
        found = self.design.stores[role].get(state, str(ident))
        if found is None:
            raise ToolError(f"no {self.design.entity(role).singular} {ident}")
        return found

    def ident(self, role: str, record: dict[str, Any]) -> Any:
        return record[self.design.stores[role].id_key]

    def arg_id(self, role: str, key: str) -> Any:
        """An id (as text) as a tool's argument takes it."""
        return int(key) if self.design.id_styles[role] == "int" else key

    def any_key(self, rng: random.Random, state: State, role: str) -> str:
        return rng.choice(self.design.stores[role].keys(state))

    def links_of(self, state: State, role: str, key: str) -> list[dict[str, Any]]:
        """The links that refer to record ``key`` of ``role``, in state order."""
        design = self.design
        return [r for r in self.records(state, "link") if design.referred(role, r) == key]

    def id_schema(self, role: str) -> dict[str, Any]:
        entity = self.design.entity(role)
        example = self.design.make_id(role, 3)
        type_ = "integer" if isinstance(example, int) else "string"
        return {"type": type_, "description": f"The {entity.singular}'s id, e.g. {example}."}
