"""``neo4j``: a research graph in Neo4j 5, its state the APOC JSON-lines export of nodes and
relationships (:mod:`.neo4j_graph`): researchers, papers, venues, institutions and topics,
linked by ``AUTHORED`` (with the author's position), ``AFFILIATED_WITH`` (role, since),
``PUBLISHED_IN`` (volume, pages), ``ABOUT`` and ``CITES``. Tools are those of the Neo4j MCP
server (``mcp-neo4j-cypher``): ``read_neo4j_cypher`` and ``write_neo4j_cypher`` taking a Cypher
query and its parameters (:mod:`.neo4j_cypher`), and ``get_neo4j_schema``."""

from __future__ import annotations

import random
from typing import Any

from benchmarks.zoo import neo4j_cypher as cypher
from benchmarks.zoo.kit import Answer, Planned, State, Tool, note_tool, prop
from benchmarks.zoo.neo4j_graph import ROLES, by_id, graph, lines, nodes
from benchmarks.zoo.shape import Shape

QUERY = {
    "query": prop("string", "The Cypher query."),
    "params": prop("object", "The query's parameters ($name → value)."),
}
SCHEMA = [
    {
        "label": "Researcher",
        "attributes": {"orcid": "STRING", "name": "STRING", "h_index": "INTEGER"},
    },
    {"label": "Paper", "attributes": {"doi": "STRING", "title": "STRING", "year": "INTEGER"}},
    {"label": "Venue", "attributes": {"issn": "STRING", "name": "STRING", "kind": "STRING"}},
    {
        "label": "Institution",
        "attributes": {
            "ror": "STRING",
            "name": "STRING",
            "country": "STRING",
            "founded": "INTEGER",
        },
    },
    {"label": "Topic", "attributes": {"name": "STRING"}},
]
RELATIONSHIPS = {
    "Researcher": {"AUTHORED": "Paper", "AFFILIATED_WITH": "Institution"},
    "Paper": {"PUBLISHED_IN": "Venue", "ABOUT": "Topic", "CITES": "Paper"},
}


def _schema(state: State, args: dict[str, Any]) -> Answer:
    """``get_neo4j_schema``: each label's properties and outgoing relationships, as the server
    summarises ``apoc.meta.schema``."""
    return [s | {"relationships": RELATIONSHIPS.get(str(s["label"]), {})} for s in SCHEMA], []


def _props(state: State, label: str) -> list[dict[str, Any]]:
    return [n["properties"] for _, n in nodes(state, label)]


class Neo4j(Shape):
    name = "neo4j"
    title = "Research-graph assistant over Neo4j"
    description = (
        "A research graph in Neo4j 5 (researchers, papers, venues, institutions, topics), "
        "exported with apoc.export.json.all: one line per node and per relationship. Tools "
        "are the Neo4j MCP server's; answers are JSON lists of records; errors are text "
        "starting with 'Error:'."
    )
    note = ("scratchpad", "note")

    def build(self, rng: random.Random, target_bytes: int) -> State:
        return graph(rng, target_bytes)

    def tools(self) -> list[Tool]:
        return [
            Tool(
                "get_neo4j_schema",
                "List the node labels, properties and relationships.",
                {},
                _schema,
            ),
            Tool("read_neo4j_cypher", "Run a read Cypher query.", QUERY, cypher.read, ("query",)),
            Tool(
                "write_neo4j_cypher",
                "Run a write Cypher query; answers the update counters.",
                QUERY,
                cypher.write,
                ("query",),
                effect="write",
            ),
            note_tool("scratchpad", "note", "Keep a note (answers nothing)."),
        ]

    @staticmethod
    def _read(kind: str, query: str, **params: Any) -> Planned:
        return Planned(kind, "read_neo4j_cypher", {"query": query, "params": params})

    def lookup(self, rng: random.Random, state: State) -> Planned:
        if rng.random() < 0.5:
            orcid = rng.choice(_props(state, "Researcher"))["orcid"]
            return self._read("lookup", cypher.RESEARCHER, orcid=orcid)
        return self._read("lookup", cypher.PAPER, doi=rng.choice(_props(state, "Paper"))["doi"])

    def nested_lookup(self, rng: random.Random, state: State) -> Planned:
        if rng.random() < 0.5:
            orcid = rng.choice(_props(state, "Researcher"))["orcid"]
            return self._read("nested_lookup", cypher.AFFILIATIONS, orcid=orcid)
        doi = rng.choice(_props(state, "Paper"))["doi"]
        return self._read("nested_lookup", cypher.VENUE_OF, doi=doi)

    def search(self, rng: random.Random, state: State) -> Planned:
        choice = rng.random()
        paper = rng.choice(_props(state, "Paper"))
        if choice < 0.4:
            word = rng.choice(paper["title"].split()[::2])
            low, high = paper["year"] - rng.randint(0, 3), paper["year"] + rng.randint(0, 2)
            return self._read("search", cypher.PAPERS_LIKE, word=word, **{"from": low, "to": high})
        if choice < 0.7:
            about = rng.choice([x for x in lines(state) if x.get("label") == "ABOUT"])
            ids = by_id(state)
            topic = ids[about["end"]["id"]]["properties"]["name"]
            year = ids[about["start"]["id"]]["properties"]["year"]
            return self._read("search", cypher.ON_TOPIC, topic=topic, **{"from": year})
        person = rng.choice(_props(state, "Researcher"))
        low = max(0, person["h_index"] - rng.randint(0, 15))
        return self._read("search", cypher.RESEARCHERS_LIKE, prefix=person["name"][:2], min_h=low)

    def join(self, rng: random.Random, state: State) -> Planned:
        choice = rng.random()
        if choice < 0.35:
            return self._read("join", cypher.AUTHORS, doi=rng.choice(_props(state, "Paper"))["doi"])
        if choice < 0.7:
            orcid = rng.choice(_props(state, "Researcher"))["orcid"]
            return self._read("join", cypher.WORKS, orcid=orcid)
        cited = {x["end"]["id"] for x in lines(state) if x.get("label") == "CITES"}
        papers = [n["properties"] for _, n in nodes(state, "Paper") if n["id"] in cited]
        return self._read("join", cypher.CITING, doi=rng.choice(papers)["doi"])

    def aggregate(self, rng: random.Random, state: State) -> Planned:
        choice = rng.random()
        if choice < 0.35:
            issn = rng.choice(_props(state, "Venue"))["issn"]
            return self._read("aggregate", cypher.PER_YEAR, issn=issn)
        if choice < 0.7:
            ror = rng.choice(_props(state, "Institution"))["ror"]
            return self._read("aggregate", cypher.STAFF, ror=ror)
        orcid = rng.choice(_props(state, "Researcher"))["orcid"]
        return self._read("aggregate", cypher.MOST_CITED, orcid=orcid)

    def write(self, rng: random.Random, state: State) -> tuple[Planned, Planned]:
        person = rng.choice(_props(state, "Researcher"))
        orcid = person["orcid"]
        if rng.random() < 0.5:
            params = {"orcid": orcid, "h_index": person["h_index"] + rng.randint(1, 4)}
            write = Planned(
                "write", "write_neo4j_cypher", {"query": cypher.SET_H, "params": params}
            )
            return write, self._read("read_after_write", cypher.RESEARCHER, orcid=orcid)
        ror = rng.choice(_props(state, "Institution"))["ror"]
        params = {
            "orcid": orcid,
            "ror": ror,
            "since": rng.randint(2021, 2025),
            "role": rng.choice(ROLES),
        }
        write = Planned(
            "write", "write_neo4j_cypher", {"query": cypher.AFFILIATE, "params": params}
        )
        return write, self._read("read_after_write", cypher.AFFILIATIONS, orcid=orcid)

    def no_match(self, rng: random.Random, state: State) -> Planned:
        word = rng.choice(["zeppelin", "quokka", "marzipan"])
        return self._read("empty", cypher.PAPERS_LIKE, word=word, **{"from": 2012, "to": 2025})
