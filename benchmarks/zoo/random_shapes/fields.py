"""What a random shape's domains are made of: fields (a canonical name, how values are drawn,
the other names a service might give the field), entities and domains (three collections each:
the records the calls are about, the parties they belong to, and the links between the two,
with a per-record calendar)."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from benchmarks.zoo.kit import CITIES, day, person, words


@dataclass(frozen=True)
class Field:
    """A field: its canonical (snake_case) name, which the tools' arguments use; how its
    values are drawn; and other names a service may store it under."""

    name: str
    kind: str
    """``category``, ``int``, ``decimal``, ``date``, ``title``, ``city``, ``person``."""
    values: tuple[Any, ...] = ()
    """The categories, or the (low, high) of a number or year range."""
    alts: tuple[str, ...] = ()

    def draw(self, rng: random.Random) -> Any:
        if self.kind == "category":
            return rng.choice(self.values)
        if self.kind == "int":
            return rng.randint(*self.values)
        if self.kind == "decimal":
            return round(rng.uniform(*self.values), 2)
        if self.kind == "date":
            return day(rng, rng.randint(*self.values))
        if self.kind == "title":
            return words(rng, 2).title()
        if self.kind == "city":
            return rng.choice(CITIES)
        return " ".join(person(rng))

    @property
    def numeric(self) -> bool:
        return self.kind in ("int", "decimal")


@dataclass(frozen=True)
class Entity:
    singular: str
    plural: str
    prefix: str
    """Of prefixed ids (``BT-00042``)."""
    fields: tuple[Field, ...]


@dataclass(frozen=True)
class Domain:
    title: str
    about: str
    primary: Entity
    secondary: Entity
    link: Entity
    calendar: str
    """The name of a primary record's per-date sub-records."""
    slots: tuple[Field, ...]
    """A calendar entry's fields."""


def cat(name: str, values: str, *alts: str) -> Field:
    return Field(name, "category", tuple(values.split()), alts)


def num(name: str, low: float, high: float, *alts: str) -> Field:
    kind = "int" if isinstance(low, int) and isinstance(high, int) else "decimal"
    return Field(name, kind, (low, high), alts)


def of(name: str, kind: str, *alts: str, years: tuple[int, int] = (2015, 2025)) -> Field:
    return Field(name, kind, years if kind == "date" else (), alts)


PARTY = (of("name", "person", "full_name", "display_name"), cat("country", "NO SE DE FR JP BR"))
LINK = (of("date", "date", "on", "booked_on", years=(2025, 2025)),)
