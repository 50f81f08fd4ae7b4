"""Checking the calls of the classes of real formats random zoo shapes draw
(``benchmarks/zoo/random_shapes/formats.py``) against the state, read without the tools'
code: statements of large records, name/value pairs, pages of a connection, records named by
title, counts of a filtered set and searches by a query string."""

from __future__ import annotations

from typing import Any

from benchmarks.zoo.kit import State, dig
from benchmarks.zoo.random_shapes.offer import Offer
from benchmarks.zoo.random_shapes.query_language import parse
from benchmarks.zoo.random_shapes.world import RandomShape
from tests.fidelity.zoo_query_objects import holds, meets_query

__all__ = ["VARIANTS", "check_format_call", "holds"]

VARIANTS = ("claim", "claims", "pairs", "comments", "title_ref", "count")
"""The offers' variants the classes add (a search by query string is a search)."""


def _records(shape: RandomShape, state: State) -> dict[str, dict[str, Any]]:
    return dict(shape.design.stores["primary"].items(state))


def _title(shape: RandomShape, record: dict[str, Any]) -> Any:
    design = shape.design
    return dig(record, ".".join(design.path(design.domain.primary.fields[0])))


def check_format_call(shape: RandomShape, state: State, offer: Offer, args: dict[str, Any]) -> None:
    """That ``offer``'s answer to ``args`` is what the state holds."""
    design, formats = shape.design, shape.design.formats
    answer, patch = offer.tool.run(state, args)
    assert patch == []
    records = _records(shape, state)
    given = list(args.values())
    if offer.variant == "claim":
        record = records[given[0].split("$")[0]]
        (statements,) = [
            s
            for ss in record[design.spell(formats.claims or "")].values()
            for s in ss
            if s["id"] == given[0]
        ]
        assert answer == statements
    elif offer.variant == "claims":
        key = design.spell(formats.claims or "")
        held = records[str(given[0])][key]
        assert answer == {key: {str(given[1]): held[str(given[1])]}}
        assert set(held) <= set(design.stores["secondary"].keys(state))
    elif offer.variant == "pairs":
        listed, name, _ = formats.pairs or ("", "", "")
        held = records[str(given[0])][design.spell(listed)]
        names = given[1] if len(given) > 1 else [p[name] for p in held]
        (chosen,) = [v for v in answer.values() if isinstance(v, list)]
        assert chosen == [p for p in held if p[name] in names] and chosen
    elif offer.variant == "comments":
        _check_page(shape, records[str(given[0])], args, answer)
    elif offer.variant == "title_ref":
        title = records[str(given[0])][design.spell(formats.title_ref or "")]
        named = [k for k, r in records.items() if _title(shape, r) == title]
        (found,) = [v for v in answer.values() if isinstance(v, list)]
        id_key = design.stores["primary"].id_key
        assert [str(r[id_key]) for r in found] == named and named
    elif offer.variant == "count":
        search, style = shape.code.search, design.formats.objects
        wanted = parse(search.constraints, args[search.query]) if search.query else args
        meeting = [
            r
            for r in records.values()
            if all(
                c.arg not in wanted or holds(c.op, c.get(r), wanted[c.arg])
                for c in search.constraints
            )
        ]
        if style is not None:  # the records meeting the query object, as its family reads it
            meeting = [r for r in records.values() if meets_query(style, args[style.arg], r)]
        assert answer == {"totalCount": len(meeting)}


def _check_page(
    shape: RandomShape, record: dict[str, Any], args: dict[str, Any], answer: Any
) -> None:
    held = record[shape.design.spell(shape.design.formats.relay or "")]
    edges = held["edges"]
    assert answer["totalCount"] == held["totalCount"] == len(edges)
    after = args.get("after")
    start = [e["cursor"] for e in edges].index(after) + 1 if after else 0
    assert answer["edges"] == edges[start : start + args.get("first", 5)]
    assert answer["pageInfo"]["hasNextPage"] == (start + len(answer["edges"]) < len(edges))
    assert all(e["node"]["__typename"] for e in answer["edges"])
