"""Relay-style connections, as GraphQL APIs (GitHub's, Shopify's) answer lists: ``{"totalCount":
12, "pageInfo": {"hasNextPage": .., "endCursor": ..}, "edges": [{"cursor": .., "node": ..}]}``,
at several levels. A seed that draws them keeps its records and parties as connections (where
their collection is plain records of its own), every node carrying its ``__typename``, the ids
global ones (base64 of ``Type:number``, as GitHub's legacy node ids are), and each record holds
a connection of its comments, which a tool answers a page at a time (``first``, ``after``), the
``totalCount`` the whole connection's, not the page's; each comment holds the first page of
its reactions, their ``totalCount`` more than the page holds in some."""

from __future__ import annotations

import base64
import random
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from benchmarks.zoo.kit import Answer, State, Tool, ToolError, day, person, prop, words
from benchmarks.zoo.random_shapes.offer import Offer

if TYPE_CHECKING:
    from benchmarks.zoo.random_shapes.design import Design
    from benchmarks.zoo.random_shapes.reading import Reader

CONNECTED = ("primary", "secondary")
"""The collections a seed that draws connections keeps as connections (and gives global ids)."""


def gid(kind: str, number: int) -> str:
    """A global id: base64 of ``Type:number`` (URL-safe, so no ``/`` splits a reference)."""
    return base64.urlsafe_b64encode(f"{kind}:{number}".encode()).decode()


def cursor(n: int) -> str:
    return base64.urlsafe_b64encode(f"cursor:v2:{n}".encode()).decode()


def typename(singular: str) -> str:
    return "".join(w[:1].upper() + w[1:] for w in singular.split("_"))


def empty() -> dict[str, Any]:
    return {"totalCount": 0, "pageInfo": {"hasNextPage": False, "endCursor": None}, "edges": []}


def append(box: dict[str, Any], record: dict[str, Any], kind: str) -> None:
    """Add ``record`` to connection ``box`` as a node of type ``kind``."""
    at = cursor(len(box["edges"]))
    box["edges"].append({"cursor": at, "node": {"__typename": kind, **record}})
    box["pageInfo"]["endCursor"] = at
    box["totalCount"] += 1


def node(edge: dict[str, Any]) -> dict[str, Any]:
    """An edge's record, as the tools answer it (without the node's ``__typename``, where it
    has one)."""
    return {k: v for k, v in edge["node"].items() if k != "__typename"}


def connect(design: Design) -> None:
    """Keep the design's records and parties as connections where they are plain records of
    a collection of their own."""
    if design.formats.relay is None:
        return
    for role in CONNECTED:
        store = design.stores[role]
        apart = store.mixed is None and store.parents is None and store.envelope is None
        plain = store.codec.name == "plain" and store.container != "events"
        if apart and plain and role not in design.reshaping.roles:
            kind = typename(design.entity(role).singular)
            design.stores[role] = replace(store, container="relay", typename=kind, key_prefix="")


def comments(rng: random.Random, kind: str) -> dict[str, Any]:
    """A record's connection of zero to six comments."""
    edges = []
    for n in range(rng.choice((0, 1, 2, 3, 4, 6))):
        first, last = person(rng)
        node = {
            "__typename": kind,
            "id": gid(kind, rng.randint(10**8, 10**9)),
            "author": {"__typename": "User", "login": f"{first[0]}{last}".lower()},
            "body": words(rng, rng.randint(3, 6)).capitalize() + ".",
            "createdAt": f"{day(rng, 2025)}T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:00Z",
            "reactions": _reactions(rng),
        }
        edges.append({"cursor": cursor(n), "node": node})
    end = edges[-1]["cursor"] if edges else None
    info = {"hasNextPage": False, "endCursor": end}
    return {"totalCount": len(edges), "pageInfo": info, "edges": edges}


def _reactions(rng: random.Random) -> dict[str, Any]:
    """A comment's connection of reactions: its first page (of up to two), the total more in
    some (a count no node holds)."""
    edges = [
        {
            "cursor": cursor(n),
            "node": {
                "__typename": "Reaction",
                "content": rng.choice(("THUMBS_UP", "HEART", "ROCKET", "EYES", "LAUGH")),
                "user": {"__typename": "User", "login": "".join(person(rng)).lower()},
            },
        }
        for n in range(rng.choice((0, 1, 2)))
    ]
    more = rng.choice((0, 0, 3, 11)) if edges else 0
    end = edges[-1]["cursor"] if edges else None
    info = {"hasNextPage": more > 0, "endCursor": end}
    return {"totalCount": len(edges) + more, "pageInfo": info, "edges": edges}


def comments_offer(read: Reader) -> Offer:
    """A page of a record's comments (``first`` of them, ``after`` a cursor)."""
    design, surface = read.design, read.design.surface
    key = design.spell(design.formats.relay or "comments")
    id_arg, first_arg, after_arg = surface.arg(surface.id_arg), "first", "after"

    def run(state: State, args: dict[str, Any]) -> Answer:
        held = read.record(state, "primary", args[id_arg])[key]
        edges, after = held["edges"], args.get(after_arg)
        cursors = [e["cursor"] for e in edges]
        if after is not None and after not in cursors:
            raise ToolError(f"no cursor {after}")
        start = cursors.index(after) + 1 if after is not None else 0
        page = edges[start : start + int(args.get(first_arg, 5))]
        end = page[-1]["cursor"] if page else after
        info = {"hasNextPage": start + len(page) < len(edges), "endCursor": end}
        return {"totalCount": held["totalCount"], "pageInfo": info, "edges": page}, []

    def plan(rng: random.Random, state: State) -> dict[str, Any]:
        keys = design.stores["primary"].keys(state)
        for key_ in rng.sample(keys, min(len(keys), 40)):
            if read.record(state, "primary", key_)[key]["edges"]:
                break
        edges = read.record(state, "primary", key_)[key]["edges"]
        args: dict[str, Any] = {id_arg: read.arg_id("primary", key_)}
        args[first_arg] = rng.choice((2, 3, 5, 10))
        if len(edges) > 1 and rng.random() < 0.4:
            args[after_arg] = rng.choice(edges[:-1])["cursor"]
        return args

    singular = design.domain.primary.singular
    tool = Tool(
        surface.tool_name("find", singular, design.formats.relay or "comments"),
        f"A page of a {singular}'s {key} as a connection (totalCount, pageInfo, edges).",
        {
            id_arg: read.id_schema("primary"),
            first_arg: prop("integer", "At most this many (default 5)."),
            after_arg: prop("string", "The cursor to go on after."),
        },
        run,
        (id_arg,),
    )
    return Offer("nested_lookup", tool, plan, "comments")
