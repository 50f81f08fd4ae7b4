"""A random shape's tool surface, drawn from its seed: which calls it offers of each kind (and
so what they mean), how its tools and arguments are named, how its descriptions are worded,
how its answers are wrapped, whether its searches page, and which tools declare an output
schema."""

from __future__ import annotations

import random
from dataclasses import dataclass

from benchmarks.zoo.random_shapes.layout import spelt

LOOKUPS = ("by_code", "by_email", "link", "text")
"""Besides a record by id: a record by its unique code, a party by email, a link record (with
its line items where links have them), a record described in plain text."""
NESTED = ("line",)
"""Besides a calendar entry by id and date: one line item of a link, by its code."""
JOINS = ("of_secondary", "of_primary", "two_hop", "roster", "listing")
"""The records a party has links to; the parties a record has links to; a field of the records
two hops away (a party's links' records, or a record's links' parties); the parties a record
lists in its own array of ids; the records whose array lists a party."""
AGGREGATES = ("stats", "per_value", "distinct", "top", "link_total")
"""Figures of one category's records; a count per value of a category; the distinct values of
a field over all records; the top N records by a number; a party's links' total."""
STATS_OPS = ("count", "sum", "max", "min", "mean", "distinct")
EMPTIES = ("no_match", "miss", "empty_list")
"""Besides a note tool answering nothing: a search nothing meets; a lookup by an unknown code
or email answering ``null``; a record's array of ids that is empty."""
RANGES = {
    "min_max": ("min_{}", "max_{}"),
    "suffix": ("{}_min", "{}_max"),
    "from_to": ("{}_from", "{}_to"),
    "gte_lte": ("{}_gte", "{}_lte"),
}
VERBS = {
    "get": ("get", "fetch", "read", "lookup", "describe"),
    "find": ("search", "find", "list", "query", "filter"),
    "set": ("set", "put", "record", "save", "update"),
}


@dataclass(frozen=True)
class Surface:
    arg_case: str
    """The casing of argument and tool names (``snake`` or ``camel``)."""
    verbs: dict[str, str]
    wording: int
    """Which of the descriptions' phrasings (0-2)."""
    id_arg: str
    """The canonical name of a primary-id argument (``boat_id``, ``id`` or ``boat``)."""
    record_wrap: bool
    """A record lookup answers ``{boat: {...}}`` rather than the bare record."""
    write_text: bool
    """A write answers a sentence instead of the entry it wrote."""
    note_answer: str
    """The note tool's answer: ``""``, ``null`` or ``{}``."""
    page: str
    """The searches' paging arguments: none, ``limit``/``offset`` or ``page``/``page_size``."""
    ranges: str
    search_wrap: str
    """A search answers a bare list (``""``) or ``{results|items|matches: [...], total: n}``."""
    exclusions: bool
    """Searches take ``not`` and ``any of`` arguments on categories too."""
    synonyms: bool
    """Search arguments go by other names of their fields (``hull_type`` for ``hull``)."""
    schemas: bool
    """Tools answering objects declare output schemas."""
    lookups: tuple[str, ...]
    nested: tuple[str, ...]
    joins: tuple[str, ...]
    aggregates: tuple[str, ...]
    stats_ops: tuple[str, ...]
    empties: tuple[str, ...]
    link_search: bool

    def arg(self, name: str) -> str:
        """An argument's or tool's name, from its snake_case canonical name."""
        return spelt(self.arg_case, name)

    def range_args(self, name: str) -> tuple[str, str]:
        low, high = RANGES[self.ranges]
        return self.arg(low.format(name)), self.arg(high.format(name))

    def tool_name(self, verb: str, *words: str) -> str:
        return self.arg("_".join((self.verbs[verb], *words)))


def _some(rng: random.Random, pool: tuple[str, ...], low: int, high: int) -> tuple[str, ...]:
    chosen = set(rng.sample(pool, rng.randint(low, min(high, len(pool)))))
    return tuple(p for p in pool if p in chosen)


def draw_surface(rng: random.Random, singular: str) -> Surface:
    return Surface(
        arg_case=rng.choice(("snake", "snake", "camel")),
        verbs={role: rng.choice(pool) for role, pool in VERBS.items()},
        wording=rng.randrange(3),
        id_arg=rng.choice((f"{singular}_id", f"{singular}_id", "id", singular)),
        record_wrap=rng.random() < 0.3,
        write_text=rng.random() < 0.3,
        note_answer=rng.choice(("", "", "null", "{}")),
        page=rng.choice(("", "", "offset", "page")),
        ranges=rng.choice(sorted(RANGES)),
        search_wrap=rng.choice(("", "", "results", "items", "matches")),
        exclusions=rng.random() < 0.5,
        synonyms=rng.random() < 0.4,
        schemas=rng.random() < 0.5,
        lookups=_some(rng, LOOKUPS, 0, 3),
        nested=_some(rng, NESTED, 0, 1),
        joins=_some(rng, JOINS, 1, 3),
        aggregates=_some(rng, AGGREGATES, 1, 3),
        stats_ops=_some(rng, STATS_OPS, 2, 5),
        empties=_some(rng, EMPTIES, 1, 3),
        link_search=rng.random() < 0.5,
    )
