"""The ``neo4j`` shape's data: a research graph as ``CALL apoc.export.json.all('all.json',
{useTypes: true})`` writes it, one JSON line per node (``{"type": "node", "id", "labels",
"properties"}``) and per relationship (``{"type": "relationship", "id", "label",
"properties", "start": {"id", "labels"}, "end": {...}}``), nodes and relationships numbered
apart, a node's links held only by the relationship lines that name its internal id, and facts
kept on relationships (an author's position, an affiliation's role and years, a paper's volume
and pages)."""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

from benchmarks.zoo.kit import CITIES, FIRST, LAST, WORDS, State, fill, size_of

FILE = "all.json"
TOPICS = ["graph databases", "query optimisation", "stream processing", "provenance"]
TOPICS += ["knowledge graphs", "entity resolution", "federated learning", "data cleaning"]
ROLES = ["Professor", "Postdoc", "PhD student", "Research Engineer", "Lecturer"]
COUNTRIES = ["DE", "NL", "FR", "IT", "SE", "CH", "GB", "ES"]
NOUNS = ["Indexing", "Joins", "Sampling", "Lineage", "Caching", "Partitioning", "Embeddings"]


def lines(state: State) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = state[FILE]
    return found


def nodes(state: State, label: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, node)`` of each node with that label."""
    for n, line in enumerate(lines(state)):
        if line["type"] == "node" and label in line["labels"]:
            yield n, line


def node_by(state: State, label: str, key: str, value: Any) -> tuple[int, dict[str, Any]] | None:
    return next(((n, x) for n, x in nodes(state, label) if x["properties"].get(key) == value), None)


def relationships(state: State, label: str) -> list[dict[str, Any]]:
    return [x for x in lines(state) if x["type"] == "relationship" and x["label"] == label]


def by_id(state: State) -> dict[str, dict[str, Any]]:
    """Nodes by their internal id."""
    return {x["id"]: x for x in lines(state) if x["type"] == "node"}


def outgoing(state: State, label: str) -> dict[str, list[dict[str, Any]]]:
    """A label's relationships by the internal id of the node they start at."""
    found: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for rel in relationships(state, label):
        found[rel["start"]["id"]].append(rel)
    return found


def incoming(state: State, label: str) -> dict[str, list[dict[str, Any]]]:
    found: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for rel in relationships(state, label):
        found[rel["end"]["id"]].append(rel)
    return found


def next_relationship_id(state: State) -> str:
    return str(
        max((int(x["id"]) for x in lines(state) if x["type"] == "relationship"), default=-1) + 1
    )


class _Graph:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.lines: list[dict[str, Any]] = []
        self.node_count = 0
        self.rel_count = 0
        self.of: dict[str, list[str]] = defaultdict(list)
        self.label_of: dict[str, str] = {}

    def node(self, label: str, properties: dict[str, Any]) -> str:
        ident = str(self.node_count)
        self.node_count += 1
        self.lines.append(
            {"type": "node", "id": ident, "labels": [label], "properties": properties}
        )
        self.of[label].append(ident)
        self.label_of[ident] = label
        return ident

    def link(self, start: str, label: str, end: str, properties: dict[str, Any]) -> None:
        ident = str(self.rel_count)
        self.rel_count += 1
        line = {"type": "relationship", "id": ident, "label": label, "properties": properties}
        starts, ends = self._label(start), self._label(end)
        line |= {"start": {"id": start, "labels": starts}, "end": {"id": end, "labels": ends}}
        self.lines.append(line)

    def _label(self, ident: str) -> list[str]:
        return [self.label_of[ident]]

    def base(self) -> None:
        rng = self.rng
        for name in TOPICS:
            self.node("Topic", {"name": name})
        for n in range(8):
            city = rng.choice(CITIES)
            ror = (
                "0"
                + "".join(rng.choice("abcdefghjkmnpqrstvwxyz0123456789") for _ in range(6))
                + f"{n:02d}"
            )
            props = {"ror": ror, "name": f"University of {city}", "country": rng.choice(COUNTRIES)}
            self.node("Institution", props | {"founded": rng.randint(1450, 1990)})
        for n in range(6):
            word = rng.choice(WORDS).title()
            issn = f"{rng.randint(1000, 9999)}-{rng.randint(100, 999)}{rng.choice('0123456789X')}"
            kind = rng.choice(["journal", "conference"])
            self.node(
                "Venue",
                {
                    "issn": issn,
                    "name": f"{word} {['Transactions', 'Symposium'][n % 2]} on Data",
                    "kind": kind,
                },
            )

    def researcher(self) -> None:
        rng = self.rng
        orcid = "-".join(f"{rng.randint(0, 9999):04d}" for _ in range(4))
        name = f"{rng.choice(FIRST)} {rng.choice(LAST)}"
        ident = self.node(
            "Researcher", {"orcid": orcid, "name": name, "h_index": rng.randint(1, 60)}
        )
        since = rng.randint(2005, 2020)
        for institution in rng.sample(self.of["Institution"], rng.randint(1, 2)):
            props = {"since": since, "role": rng.choice(ROLES)}
            self.link(ident, "AFFILIATED_WITH", institution, props)
            since += rng.randint(1, 4)

    def paper(self) -> None:
        rng = self.rng
        year = rng.randint(2012, 2025)
        topic = rng.randrange(len(TOPICS))
        title = f"{rng.choice(NOUNS)} for {rng.choice(WORDS).title()} {TOPICS[topic].title()}"
        doi = f"10.{rng.randint(1000, 9999)}/{rng.choice(WORDS)}.{year}.{self.node_count:05d}"
        ident = self.node("Paper", {"doi": doi, "title": title, "year": year})
        authors = rng.sample(
            self.of["Researcher"], min(len(self.of["Researcher"]), rng.randint(1, 4))
        )
        for position, author in enumerate(authors, start=1):
            self.link(author, "AUTHORED", ident, {"position": position})
        first = rng.randint(1, 300)
        venue = {
            "volume": str(rng.randint(1, 40)),
            "pages": f"{first}-{first + rng.randint(8, 20)}",
        }
        self.link(ident, "PUBLISHED_IN", rng.choice(self.of["Venue"]), venue)
        self.link(ident, "ABOUT", self.of["Topic"][topic], {})
        earlier = self.of["Paper"][:-1]
        for cited in rng.sample(earlier, min(len(earlier), rng.randint(0, 5))):
            self.link(ident, "CITES", cited, {})


def graph(rng: random.Random, target_bytes: int) -> State:
    built = _Graph(rng)
    built.base()
    for _ in range(6):
        built.researcher()
    state = {FILE: built.lines}
    step = [0]

    def add() -> None:
        step[0] += 1
        built.researcher() if step[0] % 3 == 0 else built.paper()

    fill(add, lambda: size_of(state), target_bytes)
    return state
