"""The ``neo4j`` shape's Cypher: the parameterised queries the graph is asked with, each
answered as ``mcp-neo4j-cypher`` answers (a list of records as ``Record.data()`` gives them,
nodes as their property maps), and the writes' update counters and patches; a query text the
graph is not asked with is refused as Neo4j refuses a syntax error."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from statistics import fmean
from typing import Any

from benchmarks.zoo.kit import Answer, State, ToolError, pointer
from benchmarks.zoo.neo4j_graph import (
    FILE,
    by_id,
    incoming,
    next_relationship_id,
    node_by,
    nodes,
    outgoing,
)

Rows = list[dict[str, Any]]

RESEARCHER = "MATCH (r:Researcher {orcid: $orcid}) RETURN r"
PAPER = "MATCH (p:Paper {doi: $doi}) RETURN p"
VENUE_OF = (
    "MATCH (p:Paper {doi: $doi})-[pub:PUBLISHED_IN]->(v:Venue) "
    "RETURN p.title AS title, v.name AS venue, v.issn AS issn, pub.volume AS volume, "
    "pub.pages AS pages"
)
AFFILIATIONS = (
    "MATCH (r:Researcher {orcid: $orcid})-[a:AFFILIATED_WITH]->(i:Institution) "
    "RETURN i.name AS institution, i.country AS country, a.since AS since, a.role AS role "
    "ORDER BY since"
)
PAPERS_LIKE = (
    "MATCH (p:Paper) WHERE p.year >= $from AND p.year <= $to "
    "AND toLower(p.title) CONTAINS toLower($word) "
    "RETURN p.doi AS doi, p.title AS title, p.year AS year ORDER BY year DESC, doi LIMIT 25"
)
ON_TOPIC = (
    "MATCH (p:Paper)-[:ABOUT]->(t:Topic {name: $topic}) WHERE p.year >= $from "
    "RETURN p.doi AS doi, p.title AS title, p.year AS year ORDER BY year DESC, doi LIMIT 25"
)
RESEARCHERS_LIKE = (
    "MATCH (r:Researcher) WHERE r.name STARTS WITH $prefix AND r.h_index >= $min_h "
    "RETURN r.orcid AS orcid, r.name AS name, r.h_index AS h_index "
    "ORDER BY h_index DESC, orcid LIMIT 25"
)
AUTHORS = (
    "MATCH (r:Researcher)-[a:AUTHORED]->(p:Paper {doi: $doi}) "
    "RETURN r.name AS name, r.orcid AS orcid, a.position AS position ORDER BY position"
)
WORKS = (
    "MATCH (r:Researcher {orcid: $orcid})-[:AUTHORED]->(p:Paper)-[:PUBLISHED_IN]->(v:Venue) "
    "RETURN p.title AS title, p.year AS year, v.name AS venue ORDER BY year DESC, title LIMIT 25"
)
CITING = (
    "MATCH (c:Paper)-[:CITES]->(p:Paper {doi: $doi}) "
    "RETURN c.doi AS doi, c.title AS title, c.year AS year ORDER BY year, doi LIMIT 25"
)
PER_YEAR = (
    "MATCH (p:Paper)-[:PUBLISHED_IN]->(v:Venue {issn: $issn}) "
    "RETURN p.year AS year, count(p) AS papers ORDER BY year"
)
MOST_CITED = (
    "MATCH (r:Researcher {orcid: $orcid})-[:AUTHORED]->(p:Paper)<-[:CITES]-(c:Paper) "
    "RETURN p.title AS title, count(c) AS cited_by ORDER BY cited_by DESC, title LIMIT 10"
)
STAFF = (
    "MATCH (r:Researcher)-[:AFFILIATED_WITH]->(i:Institution {ror: $ror}) "
    "RETURN count(r) AS researchers, avg(r.h_index) AS mean_h_index, "
    "max(r.h_index) AS max_h_index"
)
SET_H = "MATCH (r:Researcher {orcid: $orcid}) SET r.h_index = $h_index"
AFFILIATE = (
    "MATCH (r:Researcher {orcid: $orcid}), (i:Institution {ror: $ror}) "
    "CREATE (r)-[:AFFILIATED_WITH {since: $since, role: $role}]->(i)"
)


def _one(state: State, label: str, key: str, value: Any) -> list[tuple[int, dict[str, Any]]]:
    found = node_by(state, label, key, value)
    return [] if found is None else [found]


def _paper_rows(papers: list[dict[str, Any]], newest: bool) -> Rows:
    rows = [{"doi": p["doi"], "title": p["title"], "year": p["year"]} for p in papers]
    rows.sort(key=lambda r: r["doi"])
    rows.sort(key=lambda r: r["year"], reverse=newest)
    return rows[:25]


def _linked(
    state: State, label: str, ident: str, rel: str, out: bool = True
) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """``(relationship, node at its other end)`` of ``rel`` from (or to) a node."""
    ids = by_id(state)
    side, other = ("start", "end") if out else ("end", "start")
    links = (outgoing if out else incoming)(state, rel).get(ident, [])
    return [(r, ids[r[other]["id"]]["properties"]) for r in links if r[side]["id"] == ident]


def _venue_of(state: State, p: dict[str, Any]) -> Rows:
    rows = []
    for _, paper in _one(state, "Paper", "doi", p["doi"]):
        for rel, venue in _linked(state, "Paper", paper["id"], "PUBLISHED_IN"):
            shown = {"title": paper["properties"]["title"], "venue": venue["name"]}
            rows.append(shown | {"issn": venue["issn"]} | rel["properties"])
    return rows


def _affiliations(state: State, p: dict[str, Any]) -> Rows:
    rows = []
    for _, person in _one(state, "Researcher", "orcid", p["orcid"]):
        for rel, place in _linked(state, "Researcher", person["id"], "AFFILIATED_WITH"):
            shown = {"institution": place["name"], "country": place["country"]}
            rows.append(
                shown | {"since": rel["properties"]["since"], "role": rel["properties"]["role"]}
            )
    return sorted(rows, key=lambda r: r["since"])


def _papers_like(state: State, p: dict[str, Any]) -> Rows:
    papers = [x["properties"] for _, x in nodes(state, "Paper")]
    met = [
        x
        for x in papers
        if p["from"] <= x["year"] <= p["to"] and p["word"].lower() in x["title"].lower()
    ]
    return _paper_rows(met, newest=True)


def _on_topic(state: State, p: dict[str, Any]) -> Rows:
    topic = node_by(state, "Topic", "name", p["topic"])
    if topic is None:
        return []
    papers = [n for r, n in _linked(state, "Topic", topic[1]["id"], "ABOUT", out=False)]
    return _paper_rows([x for x in papers if x["year"] >= p["from"]], newest=True)


def _researchers_like(state: State, p: dict[str, Any]) -> Rows:
    rows = [
        {"orcid": x["orcid"], "name": x["name"], "h_index": x["h_index"]}
        for _, n in nodes(state, "Researcher")
        if (x := n["properties"])["name"].startswith(p["prefix"]) and x["h_index"] >= p["min_h"]
    ]
    rows.sort(key=lambda r: r["orcid"])
    return sorted(rows, key=lambda r: -r["h_index"])[:25]


def _authors(state: State, p: dict[str, Any]) -> Rows:
    rows = []
    for _, paper in _one(state, "Paper", "doi", p["doi"]):
        for rel, person in _linked(state, "Paper", paper["id"], "AUTHORED", out=False):
            rows.append({"name": person["name"], "orcid": person["orcid"]} | rel["properties"])
    return sorted(rows, key=lambda r: r["position"])


def _works(state: State, p: dict[str, Any]) -> Rows:
    rows = []
    for _, person in _one(state, "Researcher", "orcid", p["orcid"]):
        for _, paper in _linked(state, "Researcher", person["id"], "AUTHORED"):
            ident = node_by(state, "Paper", "doi", paper["doi"])
            assert ident is not None
            for _, venue in _linked(state, "Paper", ident[1]["id"], "PUBLISHED_IN"):
                rows.append(
                    {"title": paper["title"], "year": paper["year"], "venue": venue["name"]}
                )
    rows.sort(key=lambda r: r["title"])
    return sorted(rows, key=lambda r: -r["year"])[:25]


def _citing(state: State, p: dict[str, Any]) -> Rows:
    found = node_by(state, "Paper", "doi", p["doi"])
    if found is None:
        return []
    citing = [n for _, n in _linked(state, "Paper", found[1]["id"], "CITES", out=False)]
    return _paper_rows(citing, newest=False)


def _per_year(state: State, p: dict[str, Any]) -> Rows:
    venue = node_by(state, "Venue", "issn", p["issn"])
    if venue is None:
        return []
    years = Counter(
        n["year"] for _, n in _linked(state, "Venue", venue[1]["id"], "PUBLISHED_IN", out=False)
    )
    return [{"year": year, "papers": years[year]} for year in sorted(years)]


def _most_cited(state: State, p: dict[str, Any]) -> Rows:
    rows = []
    for _, person in _one(state, "Researcher", "orcid", p["orcid"]):
        cites = incoming(state, "CITES")
        for _, paper in _linked(state, "Researcher", person["id"], "AUTHORED"):
            node = node_by(state, "Paper", "doi", paper["doi"])
            assert node is not None
            count = len(cites.get(node[1]["id"], []))
            if count:
                rows.append({"title": paper["title"], "cited_by": count})
    rows.sort(key=lambda r: r["title"])
    return sorted(rows, key=lambda r: -r["cited_by"])[:10]


def _staff(state: State, p: dict[str, Any]) -> Rows:
    place = node_by(state, "Institution", "ror", p["ror"])
    people = (
        []
        if place is None
        else _linked(state, "Institution", place[1]["id"], "AFFILIATED_WITH", out=False)
    )
    scores = [n["h_index"] for _, n in people]
    mean = round(fmean(scores), 2) if scores else None
    return [
        {"researchers": len(scores), "mean_h_index": mean, "max_h_index": max(scores, default=None)}
    ]


READS: dict[str, Callable[[State, dict[str, Any]], Rows]] = {
    RESEARCHER: lambda s, p: [
        {"r": n["properties"]} for _, n in _one(s, "Researcher", "orcid", p["orcid"])
    ],
    PAPER: lambda s, p: [{"p": n["properties"]} for _, n in _one(s, "Paper", "doi", p["doi"])],
    VENUE_OF: _venue_of,
    AFFILIATIONS: _affiliations,
    PAPERS_LIKE: _papers_like,
    ON_TOPIC: _on_topic,
    RESEARCHERS_LIKE: _researchers_like,
    AUTHORS: _authors,
    WORKS: _works,
    CITING: _citing,
    PER_YEAR: _per_year,
    MOST_CITED: _most_cited,
    STAFF: _staff,
}


def _syntax(query: str) -> ToolError:
    return ToolError(
        f"Neo4jError: Neo.ClientError.Statement.SyntaxError: Invalid input in {query[:40]!r}"
    )


def read(state: State, args: dict[str, Any]) -> Answer:
    query = args["query"]
    if query not in READS:
        raise _syntax(query)
    return READS[query](state, args.get("params", {})), []


def _counters(**changed: int) -> dict[str, Any]:
    """``vars(summary.counters)`` as the server answers it: the counters the query changed,
    and ``_contains_updates``; ``{}`` when it changed nothing."""
    return {"_contains_updates": True} | changed if changed else {}


def write(state: State, args: dict[str, Any]) -> Answer:
    query, p = args["query"], args.get("params", {})
    person = node_by(state, "Researcher", "orcid", p.get("orcid"))
    if query == SET_H:
        if person is None:
            return _counters(), []
        path = pointer(FILE, person[0], "properties", "h_index")
        return _counters(properties_set=1), [{"op": "replace", "path": path, "value": p["h_index"]}]
    if query == AFFILIATE:
        place = node_by(state, "Institution", "ror", p.get("ror"))
        if person is None or place is None:
            return _counters(), []
        line: dict[str, Any] = {
            "type": "relationship",
            "id": next_relationship_id(state),
            "label": "AFFILIATED_WITH",
        }
        line["properties"] = {"since": p["since"], "role": p["role"]}
        line["start"] = {"id": person[1]["id"], "labels": ["Researcher"]}
        line["end"] = {"id": place[1]["id"], "labels": ["Institution"]}
        patch = [{"op": "add", "path": pointer(FILE, "-"), "value": line}]
        return _counters(properties_set=2, relationships_created=1), patch
    raise _syntax(query)
