"""Large records with ids deep inside, and fields that are lists of name/value pairs.

A record drawn large holds statements, as a Wikibase entity does: under keys that are ids of
the parties (``claims: {"OW-00012": [..]}``), each statement with an id of its own (the
record's id, ``$``, a GUID), a main snak, qualifiers keyed by party ids too, and references
carrying hashes: a few KB a record. Tools answer the statements about one party of a record
and one statement by its id, as ``wbgetclaims`` does.

A name/value list is a field such as a Gmail message's ``headers: [{"name": "From", "value":
..}, ..]`` (or AWS-style ``tags: [{"Key": .., "Value": ..}]``), a name appearing more than
once in some; a tool answers a record's pairs, all or those of given names, in that form."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

from benchmarks.zoo.kit import Answer, State, Tool, ToolError, day, person, prop, words
from benchmarks.zoo.random_shapes.offer import Offer

if TYPE_CHECKING:
    from benchmarks.zoo.random_shapes.reading import Reader

MAIL = ("From", "To", "Subject", "Date", "Message-ID", "Received", "Reply-To", "X-Priority")
TAGS = ("env", "team", "owner", "tier", "region", "cost-center", "version", "stage")


def _hex(rng: random.Random, digits: int) -> str:
    return f"{rng.getrandbits(digits * 4):0{digits}x}"


def _snak(rng: random.Random, prop_id: str) -> dict[str, Any]:
    kind = rng.choice(("string", "quantity", "time"))
    value: Any = words(rng, 2)
    if kind == "quantity":
        value = {"amount": f"+{rng.randint(1, 5000)}", "unit": "1"}
    elif kind == "time":
        value = {"time": f"+{day(rng, rng.randint(1950, 2025))}T00:00:00Z", "precision": 11}
    datavalue = {"value": value, "type": kind}
    return {"snaktype": "value", "property": prop_id, "hash": _hex(rng, 40), "datavalue": datavalue}


def claims(rng: random.Random, ident: Any, parties: list[Any]) -> dict[str, Any]:
    """Statements of record ``ident`` under one to four of ``parties``' ids."""
    found: dict[str, Any] = {}
    for party in rng.sample(parties, rng.randint(1, 4)):
        key, statements = str(party), []
        for _ in range(rng.choice((1, 1, 2))):
            guid = f"{_hex(rng, 8)}-{_hex(rng, 4)}-{_hex(rng, 4)}-{_hex(rng, 4)}-{_hex(rng, 12)}"
            qualifier = str(rng.choice(parties))
            references = [
                {"hash": _hex(rng, 40), "snaks": {key: [_snak(rng, key)]}}
                for _ in range(rng.choice((1, 1, 2)))
            ]
            statements.append(
                {
                    "mainsnak": _snak(rng, key),
                    "type": "statement",
                    "qualifiers": {qualifier: [_snak(rng, qualifier)]}
                    if rng.random() < 0.4
                    else {},
                    "id": f"{ident}${guid.upper()}",
                    "rank": rng.choice(("normal", "normal", "preferred", "deprecated")),
                    "references": references,
                }
            )
        found[key] = statements
    return found


def pairs(rng: random.Random, name_key: str, value_key: str, mail: bool) -> list[dict[str, Any]]:
    """Four to eight name/value pairs, mail headers (one repeated) or tags."""
    names = list(rng.sample(MAIL if mail else TAGS, rng.randint(4, 7)))
    if mail and "Received" in names:
        names.insert(names.index("Received"), "Received")
    found = []
    for name in names:
        first, last = person(rng)
        value = {
            "From": f"{first} {last} <{first.lower()}.{last.lower()}@example.com>",
            "To": f"{last.lower()}@example.org",
            "Subject": words(rng, rng.randint(3, 6)).capitalize(),
            "Date": f"{day(rng, 2025)} {rng.randint(0, 23):02d}:{rng.randint(0, 59):02d} +0000",
            "Message-ID": f"<{_hex(rng, 16)}@mail.example.com>",
            "Received": f"from mx{rng.randint(1, 9)}.example.net by {words(rng, 1)}.example.com",
            "Reply-To": f"{first.lower()}@example.net",
            "X-Priority": str(rng.randint(1, 5)),
        }.get(name, f"{words(rng, 1)}-{rng.randint(1, 99)}")
        found.append({name_key: name, value_key: value})
    return found


def claims_offers(read: Reader) -> list[Offer]:
    """A record's statements about one party, and one statement by its id."""
    design, surface = read.design, read.design.surface
    key = design.spell(design.formats.claims or "claims")
    singular, party = design.domain.primary.singular, design.domain.secondary.singular
    id_arg, party_arg, claim_arg = (
        surface.arg(n) for n in (surface.id_arg, f"{party}_id", "claim")
    )

    def about(state: State, args: dict[str, Any]) -> Answer:
        held = read.record(state, "primary", args[id_arg])[key]
        return {key: {str(args[party_arg]): held.get(str(args[party_arg]), [])}}, []

    def plan_about(rng: random.Random, state: State) -> dict[str, Any]:
        ident = read.any_key(rng, state, "primary")
        chosen = rng.choice(sorted(read.record(state, "primary", ident)[key]))
        return {id_arg: read.arg_id("primary", ident), party_arg: read.arg_id("secondary", chosen)}

    def one(state: State, args: dict[str, Any]) -> Answer:
        claim = str(args[claim_arg])
        held = read.record(state, "primary", claim.split("$")[0])[key]
        found = next((s for ss in held.values() for s in ss if s["id"] == claim), None)
        if found is None:
            raise ToolError(f"no claim {claim}")
        return found, []

    def plan_one(rng: random.Random, state: State) -> dict[str, Any]:
        held = read.record(state, "primary", read.any_key(rng, state, "primary"))[key]
        return {claim_arg: rng.choice(held[rng.choice(sorted(held))])["id"]}

    by_party = Tool(
        surface.tool_name("get", singular, design.formats.claims or "claims"),
        f"A {singular}'s {key} about one {party} (keyed by the {party}'s id).",
        {id_arg: read.id_schema("primary"), party_arg: read.id_schema("secondary")},
        about,
        (id_arg, party_arg),
    )
    by_id = Tool(
        surface.tool_name("get", "claim"),
        f"One statement of a {singular} by its id (the {singular}'s id, '$', a GUID).",
        {claim_arg: prop("string", "The statement's id.")},
        one,
        (claim_arg,),
    )
    return [
        Offer("nested_lookup", by_party, plan_about, "claims"),
        Offer("lookup", by_id, plan_one, "claim"),
    ]


def pairs_offer(read: Reader) -> Offer:
    """A record's name/value pairs, all of them or those of the given names."""
    design, surface = read.design, read.design.surface
    listed, name_key, _ = design.formats.pairs or ("headers", "name", "value")
    key = design.spell(listed)
    id_arg, names_arg = surface.arg(surface.id_arg), surface.arg(f"{listed}_names")
    id_key = design.stores["primary"].id_key

    def run(state: State, args: dict[str, Any]) -> Answer:
        held = read.record(state, "primary", args[id_arg])[key]
        names = args.get(names_arg)
        chosen = [p for p in held if names is None or p[name_key] in names]
        return {id_key: args[id_arg], key: chosen}, []

    def plan(rng: random.Random, state: State) -> dict[str, Any]:
        ident = read.any_key(rng, state, "primary")
        args: dict[str, Any] = {id_arg: read.arg_id("primary", ident)}
        held = sorted({p[name_key] for p in read.record(state, "primary", ident)[key]})
        if rng.random() < 0.6:
            args[names_arg] = rng.sample(held, min(len(held), rng.randint(1, 3)))
        return args

    singular = design.domain.primary.singular
    tool = Tool(
        surface.tool_name("get", singular, listed),
        f"A {singular}'s {key}, as {name_key}/value pairs (all, or those of the names given).",
        {
            id_arg: read.id_schema("primary"),
            names_arg: prop("array", "Only these names.", items={"type": "string"}),
        },
        run,
        (id_arg,),
    )
    return Offer("lookup", tool, plan, "pairs")
