"""The parts every zoo shape is made of: tools run by code over the state, declarative attribute
searches and aggregates, and the filler that grows a state to a target size.

A tool's code never changes the state it is given: a write answers with its response and the
RFC 6902 patch it makes, and the episode runner applies the patch. So a patch is exactly the
change, with no diffing of a multi-MB state.
"""

from __future__ import annotations

import json
import math
import random
import statistics
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

State = dict[str, Any]
Patch = list[dict[str, Any]]
Answer = tuple[Any, Patch]
"""A tool's answer: the response (a string is sent as it is, anything else as JSON text) and
its patch (``[]`` for a read)."""

KINDS = (
    "lookup",
    "nested_lookup",
    "search",
    "join",
    "aggregate",
    "write",
    "read_after_write",
    "empty",
)


class ToolError(Exception):
    """A tool's refusal; its response is ``Error: <message>``."""


def prop(type_: str, description: str, **extra: Any) -> dict[str, Any]:
    return {"type": type_, "description": description, **extra}


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    properties: dict[str, dict[str, Any]]
    run: Callable[[State, dict[str, Any]], Answer]
    required: tuple[str, ...] = ()
    effect: str = "read"
    output: dict[str, Any] | None = None
    """The tool's output schema, if it declares one."""

    def spec(self) -> dict[str, Any]:
        schema: dict[str, Any] = {"type": "object", "properties": self.properties}
        if self.required:
            schema["required"] = list(self.required)
        spec = {
            "name": self.name,
            "description": self.description,
            "input_schema": schema,
            "effect": self.effect,
        }
        return spec if self.output is None else spec | {"output_schema": self.output}


@dataclass(frozen=True)
class Planned:
    """A call a planner chose: its kind (for the benchmark's figures), tool and arguments."""

    kind: str
    tool: str
    arguments: dict[str, Any]


def note_tool(name: str, arg: str, description: str) -> Tool:
    """A tool whose real answer is the empty string (a scratchpad or log), which changes
    nothing."""
    return Tool(
        name, description, {arg: prop("string", "The text.")}, lambda s, a: ("", []), (arg,)
    )


NOTES = [
    "Customer asked twice; check the earlier answer before replying.",
    "Plan: look the record up, then confirm the change with the user.",
    "The numbers do not add up yet; recount before answering.",
    "Remember to mention the deadline in the reply.",
]


def pointer(*parts: object) -> str:
    """A JSON Pointer to ``parts`` (escaped as RFC 6901 says)."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def dig(record: Any, path: str) -> Any:
    """The value at a dotted path (``meta.tags``), or ``None``."""
    for part in path.split("."):
        if not isinstance(record, dict):
            return None
        record = record.get(part)
    return record


def test(op: str, actual: Any, wanted: Any) -> bool:
    if actual is None:
        return False
    if op == "eq":
        return bool(actual == wanted)
    if op == "ge":
        return bool(actual >= wanted)
    if op == "le":
        return bool(actual <= wanted)
    if op == "prefix":
        return str(actual).lower().startswith(str(wanted).lower())
    if op == "contains":
        return str(wanted).lower() in str(actual).lower()
    if op == "has":
        return isinstance(actual, list) and wanted in actual
    raise ValueError(op)


@dataclass(frozen=True)
class Filter:
    """One search argument: the field it constrains (``min_price`` → ``price``, ``ge``)."""

    arg: str
    path: str
    op: str
    schema: dict[str, Any]

    def value_from(self, rng: random.Random, actual: Any) -> Any:
        """An argument value that ``actual`` meets (a range a little wider than the value)."""
        if self.op in ("ge", "le") and isinstance(actual, int | float):
            spread = abs(actual) * rng.uniform(0.0, 0.15)
            # Rounded away from the value, so that the value still meets the bound.
            towards = math.floor if self.op == "ge" else math.ceil
            bound = actual - spread if self.op == "ge" else actual + spread
            return towards(bound) if isinstance(actual, int) else towards(bound * 100) / 100
        if self.op == "prefix":
            return str(actual)[: max(2, len(str(actual)) // 2)]
        if self.op == "contains":
            return rng.choice(str(actual).split())
        if self.op == "has":
            return rng.choice(actual)
        return actual


Records = Callable[[State], Iterable[tuple[str, dict[str, Any]]]]
"""``(key, record)`` for each record of a collection (the key as the state holds it)."""


@dataclass(frozen=True)
class Search:
    """An attribute search over one collection; the answer lists the matches, in state order,
    projected as the tool shows them, at most ``limit``."""

    name: str
    description: str
    records: Records
    filters: list[Filter]
    show: Callable[[str, dict[str, Any]], Any]
    limit: int = 20
    wrap: str | None = None
    """Answer ``{wrap: [...], "total": n}`` instead of a bare list."""
    extra: dict[str, dict[str, Any]] = field(default_factory=dict)

    def matches(self, state: State, arguments: dict[str, Any]) -> list[Any]:
        return [self.show(k, r) for k, r in self._meeting(self.records(state), arguments)]

    def _meeting(
        self, records: Iterable[tuple[str, dict[str, Any]]], arguments: dict[str, Any]
    ) -> list[tuple[str, dict[str, Any]]]:
        active = [f for f in self.filters if f.arg in arguments]
        return [
            (key, record)
            for key, record in records
            if all(test(f.op, dig(record, f.path), arguments[f.arg]) for f in active)
        ]

    def run(self, state: State, arguments: dict[str, Any]) -> Answer:
        found = self.matches(state, arguments)
        if self.wrap is None:
            return found[: self.limit], []
        return {self.wrap: found[: self.limit], "total": len(found)}, []

    def tool(self) -> Tool:
        properties = {f.arg: f.schema for f in self.filters} | self.extra
        return Tool(self.name, self.description, properties, self.run)

    def plan(self, rng: random.Random, state: State, most: int = 4) -> dict[str, Any]:
        """Arguments with 1 to ``most`` constraints that a random record meets, narrowed
        (more constraints) while more than ``limit`` records match."""
        records = list(self.records(state))
        _, record = rng.choice(records)
        usable = [f for f in self.filters if dig(record, f.path) not in (None, "", [])]
        rng.shuffle(usable)
        arguments: dict[str, Any] = {}
        for count, chosen in enumerate(usable[:most], start=1):
            arguments[chosen.arg] = chosen.value_from(rng, dig(record, chosen.path))
            if (
                count >= rng.randint(1, most)
                and len(self._meeting(records, arguments)) <= self.limit
            ):
                break
        return arguments


def clone(state: State) -> State:
    """A deep copy of JSON data (much faster than ``copy.deepcopy``)."""
    copied: State = json.loads(json.dumps(state))
    return copied


def size_of(value: Any) -> int:
    return len(json.dumps(value))


def fill(add: Callable[[], object], measure: Callable[[], int], target: int) -> None:
    """Call ``add`` (at least 4 times) until ``measure`` reaches ``target`` bytes, measuring
    after batches that halve the remaining gap (measuring a multi-MB state after every record
    would take minutes)."""
    start, added, batch = measure(), 0, 4
    while True:
        for _ in range(batch):
            add()
        added += batch
        size = measure()
        if size >= target:
            return
        per_add = max(1.0, (size - start) / added)
        batch = max(1, int((target - size) / per_add / 2))


def summary(op: str, values: list[Any]) -> Any:
    """An aggregate of ``values``: distinct (sorted), count, sum, min, max or mean."""
    present = [v for v in values if v is not None]
    if op == "distinct":
        return sorted({v for v in present if not isinstance(v, list)})
    if op == "count":
        return len(present)
    if not present:
        return None
    if op == "sum":
        total = sum(present)
        return round(total, 2) if isinstance(total, float) else total
    if op == "mean":
        return round(statistics.fmean(present), 2)
    return min(present) if op == "min" else max(present)


def names(text: str) -> list[str]:
    return text.split()


FIRST = names("Ana Bruno Chiara Dmitri Elif Farah Goran Hana Ines Jonas Kaito Lena Mateo Nadia")
FIRST += names("Omar Priya Quinn Rosa Sami Tariq Uma Viktor Wen Ximena Yusuf Zofia")
LAST = names("Abara Berg Castillo Dubois Eriksen Fontaine Gallo Haddad Ibsen Jensen Kovac Laine")
LAST += names("Moreau Novak Okafor Petrov Quist Rossi Sato Tanaka Urban Varga Weber Xu Yilmaz")
CITIES = names("Aldmouth Brimhaven Corran Dunmore Eastwick Fairport Glenarm Harrowby Islay")
CITIES += names("Jura Kellsey Larne Mallow Northcove Oban Portree Quayle Rosslare Stornoway")
WORDS = names("alpha amber basalt cedar delta ember fjord granite harbor indigo juniper kelp")
WORDS += names("lagoon meadow nimbus onyx pine quartz ridge saffron tidal umber vale willow")


def person(rng: random.Random) -> tuple[str, str]:
    return rng.choice(FIRST), rng.choice(LAST)


def words(rng: random.Random, count: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(count))


def day(rng: random.Random, year: int = 2025) -> str:
    return f"{year}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
