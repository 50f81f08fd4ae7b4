"""Records that refer to another by its title, not its id, and counts no record holds.

A seed that draws them gives most records a field naming an earlier record by its title
(``see_also: "Sea Breeze"``), as exports written for people do (a wiki's links, a playlist's
"based on"); a join answers, for a record, the records that title names (two hops: the record,
then the records whose title it is). And it offers a count of the records a search's filters
select (``{"totalCount": 17}``), a figure no record holds, as GraphQL's ``totalCount`` and
search APIs' ``resultSizeEstimate`` are."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

from benchmarks.zoo.kit import Answer, State, Tool
from benchmarks.zoo.random_shapes.offer import Offer

if TYPE_CHECKING:
    from benchmarks.zoo.random_shapes.reading import Reader
    from benchmarks.zoo.random_shapes.searches import RandomSearch

REFERRING = 0.75
"""The share of records (past the first) that name another by its title."""


def title_ref(rng: random.Random, titles: list[str]) -> str | None:
    """The title of one of the records made before (none for some records)."""
    if not titles or rng.random() >= REFERRING:
        return None
    return rng.choice(titles)


def _title(read: Reader, record: dict[str, Any]) -> Any:
    return read.value(record, read.primary.fields[0].name)


def title_join(read: Reader) -> Offer:
    """The records a record's title reference names, with their first fields."""
    design, surface = read.design, read.design.surface
    named = design.formats.title_ref or "see_also"
    key, id_arg = design.spell(named), surface.arg(surface.id_arg)
    id_key, found_key = design.stores["primary"].id_key, design.spell(design.domain.primary.plural)
    title_key = design.path(read.primary.fields[0])[-1]

    def run(state: State, args: dict[str, Any]) -> Answer:
        title = read.record(state, "primary", args[id_arg]).get(key)
        found = [
            {id_key: read.ident("primary", r), title_key: title}
            | {design.path(f)[-1]: read.value(r, f.name) for f in read.primary.fields[1:3]}
            for r in read.records(state, "primary")
            if title is not None and _title(read, r) == title
        ]
        return {id_key: args[id_arg], key: title, found_key: found}, []

    def plan(rng: random.Random, state: State) -> dict[str, Any]:
        keys = design.stores["primary"].keys(state)
        for ident in rng.sample(keys, min(len(keys), 40)):
            if read.record(state, "primary", ident).get(key) is not None:
                break
        return {id_arg: read.arg_id("primary", ident)}

    singular = design.domain.primary.singular
    tool = Tool(
        surface.tool_name("get", singular, named),
        f"The {design.domain.primary.plural} a {singular}'s {key} names (by title).",
        {id_arg: read.id_schema("primary")},
        run,
        (id_arg,),
    )
    return Offer("join", tool, plan, "title_ref")


def count_offer(search: RandomSearch) -> Offer:
    """How many records the search's filters select, and nothing else."""
    design = search.read.design
    properties = dict(search.tool().properties)
    paging = search.paging_args()
    properties = {k: v for k, v in properties.items() if k not in paging}

    def run(state: State, args: dict[str, Any]) -> Answer:
        args = search.parsed(args)
        return {"totalCount": len(search.matching(state, args))}, []

    def plan(rng: random.Random, state: State) -> dict[str, Any]:
        return {k: v for k, v in search.plan(rng, state).items() if k not in paging}

    tool = Tool(
        design.surface.tool_name("find", "count", design.domain.primary.plural),
        f"How many {design.domain.primary.plural} the filters select (a totalCount).",
        properties,
        run,
    )
    return Offer("aggregate", tool, plan, "count")
