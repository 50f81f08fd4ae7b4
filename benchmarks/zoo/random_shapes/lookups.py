"""A random shape's other lookups, by seed: a record by its unique code, a party by email, a
link record (with its line items), a record described in plain text, one line item of a link;
and the calls whose real answer is empty: a search nothing meets (``[]`` or a wrapped empty
list), a lookup by an unknown code or email (``null``), a record's empty array of party ids
(``[]``)."""

from __future__ import annotations

import random
from typing import Any

from benchmarks.zoo.kit import Answer, State, Tool, ToolError, prop
from benchmarks.zoo.random_shapes.header_rows import range_offer
from benchmarks.zoo.random_shapes.offer import Offer, Plan, object_schema
from benchmarks.zoo.random_shapes.reading import Reader
from benchmarks.zoo.random_shapes.searches import RandomSearch


def _by_field(read: Reader, role: str, key: str, noun: str) -> Offer:
    """A record of ``role`` by a unique stored field ``key`` (its argument ``noun``)."""
    surface = read.design.surface
    entity = read.design.entity(role)
    arg = surface.arg(noun)
    null_on_miss = "miss" in surface.empties

    def run(state: State, args: dict[str, Any]) -> Answer:
        found = next((r for r in read.records(state, role) if r.get(key) == args[arg]), None)
        if found is None and not null_on_miss:
            raise ToolError(f"no {entity.singular} with {noun} {args[arg]}")
        return found, []

    def plan(rng: random.Random, state: State) -> dict[str, Any]:
        record = read.record(state, role, read.any_key(rng, state, role))
        return {arg: record[key]}

    description = f"The {entity.singular} with a given {noun}"
    description += " (null if there is none)." if null_on_miss else "."
    tool = Tool(
        surface.tool_name("get", entity.singular, "by", noun),
        description,
        {arg: prop("string", f"The {entity.singular}'s {noun}.")},
        run,
        (arg,),
    )
    return Offer("lookup", tool, plan, f"by_{noun}")


def _link(read: Reader) -> Offer:
    design = read.design
    link = design.domain.link
    arg = design.surface.arg(f"{link.singular}_id")
    id_key = design.stores["link"].id_key

    def plan(rng: random.Random, state: State) -> dict[str, Any]:
        return {arg: read.arg_id("link", read.any_key(rng, state, "link"))}

    tool = Tool(
        design.surface.tool_name("get", link.singular),
        f"One {link.singular}, with what it refers to"
        + (" and its line items." if design.lines else "."),
        {arg: read.id_schema("link")},
        lambda state, args: (read.record(state, "link", args[arg]), []),
        (arg,),
        output=object_schema([id_key]) if design.surface.schemas else None,
    )
    return Offer("lookup", tool, plan, "link")


def _text(read: Reader) -> Offer:
    surface, primary = read.design.surface, read.primary
    arg = surface.arg(surface.id_arg)

    def run(state: State, args: dict[str, Any]) -> Answer:
        record = read.record(state, "primary", args[arg])
        parts = [
            f"{f.name.replace('_', ' ')}: {value}"
            for f in primary.fields
            for value in [read.value(record, f.name)]
            if value is not None
        ]
        return f"{primary.singular.title()} {args[arg]}. " + "; ".join(parts) + ".", []

    def plan(rng: random.Random, state: State) -> dict[str, Any]:
        return {arg: read.arg_id("primary", read.any_key(rng, state, "primary"))}

    tool = Tool(
        surface.tool_name("get", primary.singular, "as_text"),
        f"A {primary.singular} described in a line of plain text.",
        {arg: read.id_schema("primary")},
        run,
        (arg,),
    )
    return Offer("lookup", tool, plan, "text")


def _unique(read: Reader) -> list[tuple[Offer, str]]:
    """The lookups by a unique field the seed offers, each with a value nothing has."""
    design, found = read.design, []
    if "by_code" in design.surface.lookups and design.code_key is not None:
        found.append((_by_field(read, "primary", design.code_key, "code"), "ZZ-99999"))
    if "by_email" in design.surface.lookups:
        email = design.spell("email")
        found.append((_by_field(read, "secondary", email, "email"), "nobody@nowhere.example"))
    return found


def lookup_offers(read: Reader) -> list[Offer]:
    design = read.design
    lookups = design.surface.lookups
    found = [offer for offer, _ in _unique(read)]
    if "link" in lookups:
        found.append(_link(read))
    if "text" in lookups:
        found.append(_text(read))
    return [*found, *filter(None, [range_offer(read)])]


def nested_offers(read: Reader) -> list[Offer]:
    """One line item of a link, by the item's code (where links have line items)."""
    design = read.design
    if "line" not in design.surface.nested or not design.lines:
        return []
    items, code = design.lines[0], design.lines[1]
    link = design.domain.link
    link_arg, code_arg = design.surface.arg(f"{link.singular}_id"), design.surface.arg("item_code")

    def run(state: State, args: dict[str, Any]) -> Answer:
        record = read.record(state, "link", args[link_arg])
        found = next((i for i in record[items] if i[code] == args[code_arg]), None)
        if found is None:
            raise ToolError(f"no item {args[code_arg]} on {link.singular} {args[link_arg]}")
        return found, []

    def plan(rng: random.Random, state: State) -> dict[str, Any]:
        key = read.any_key(rng, state, "link")
        item = rng.choice(read.record(state, "link", key)[items])
        return {link_arg: read.arg_id("link", key), code_arg: item[code]}

    tool = Tool(
        design.surface.tool_name("get", link.singular, "item"),
        f"One line item of a {link.singular}, by the item's code.",
        {link_arg: read.id_schema("link"), code_arg: prop("string", "The item's code.")},
        run,
        (link_arg, code_arg),
        output=object_schema([code]) if design.surface.schemas else None,
    )
    return [Offer("nested_lookup", tool, plan, "line")]


def empty_offers(read: Reader, search: RandomSearch, more: list[Offer]) -> list[Offer]:
    """Calls whose real answer is empty, as the seed offers them (a search nothing meets at
    least; ``more`` from the other modules)."""
    found = [Offer("empty", search.tool(), lambda rng, state: search.no_match(rng), "no_match")]
    if "miss" in read.design.surface.empties:
        for offer, unknown in _unique(read):
            found.append(Offer("empty", offer.tool, _constant(offer.tool, unknown), "miss"))
    return found + more


def _constant(tool: Tool, value: str) -> Plan:
    """A planner passing ``value`` as the tool's one argument."""
    arg = next(iter(tool.properties))
    return lambda rng, state: {arg: value}
