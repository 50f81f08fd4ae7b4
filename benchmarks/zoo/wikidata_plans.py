"""The ``wikidata`` shape's calls: SPARQL queries as a Wikidata user writes them (a triple or a
``FILTER`` a line, the label service last), narrowed until few items match, and the action
API's and REST API's calls by id."""

from __future__ import annotations

import json
import random
from typing import Any

from benchmarks.zoo.kit import Planned, State
from benchmarks.zoo.wikidata_entities import GREGORIAN, OCCUPATIONS
from benchmarks.zoo.wikidata_sparql import LABEL_SERVICE, run_query

SHOWN_AT_MOST = 20


def _of(entity: dict[str, Any], prop_id: str) -> list[str]:
    return [
        s["mainsnak"]["datavalue"]["value"]["id"]
        for s in entity["claims"].get(prop_id, [])
        if s["mainsnak"]["snaktype"] == "value"
    ]


def _year(entity: dict[str, Any]) -> int:
    return int(entity["claims"]["P569"][0]["mainsnak"]["datavalue"]["value"]["time"][1:5])


def people(state: State) -> list[dict[str, Any]]:
    return [e for e in state["entities"] if "P569" in e.get("claims", {})]


def _items(state: State, kind: str) -> list[dict[str, Any]]:
    return [e for e in state["entities"] if kind in _of(e, "P31")] if state else []


def query(select: str, body: list[str], tail: tuple[str, ...] = ()) -> str:
    lines = [f"SELECT {select} WHERE {{", *(f"  {line}" for line in body), f"  {LABEL_SERVICE}"]
    return "\n".join([*lines, "}", *tail])


def search(rng: random.Random, state: State) -> Planned:
    """People meeting 1 to 4 constraints, or cities of a country in a population range."""
    if rng.random() < 0.25:
        city = rng.choice(_items(state, "Q515"))
        country = _of(city, "P17")[0]
        preferred = next(s for s in city["claims"]["P1082"] if s["rank"] == "preferred")
        amount = int(preferred["mainsnak"]["datavalue"]["value"]["amount"][1:])
        body = ["?city wdt:P31 wd:Q515 .", f"?city wdt:P17 wd:{country} ."]
        body += ["?city wdt:P1082 ?population .", f"FILTER(?population >= {amount // 2})"]
        text = query("?city ?cityLabel ?population", body, ("ORDER BY DESC(?population)",))
        return Planned("search", "sparql_query", {"query": text})
    person = rng.choice(people(state))
    year = _year(person)
    pool = [
        f"?item wdt:{p} wd:{rng.choice(_of(person, p))} ."
        for p in ("P106", "P27", "P21", "P19", "P69")
    ]
    pool += [
        f"FILTER(YEAR(?born) >= {year - rng.randint(0, 6)})",
        f"FILTER(YEAR(?born) <= {year + rng.randint(0, 6)})",
    ]
    prefix = person["labels"]["en"]["value"][: rng.randint(2, 4)]
    pool.append(f'FILTER(STRSTARTS(?name, "{prefix}"))')
    rng.shuffle(pool)
    base = ["?item wdt:P31 wd:Q5 .", "?item wdt:P569 ?born ."]
    chosen: list[str] = []
    for line in pool:
        chosen.append(line)
        named = (
            ["?item rdfs:label ?name .", 'FILTER(LANG(?name) = "en")']
            if any("?name" in c for c in chosen)
            else []
        )
        body = base[:1] + sorted(c for c in chosen if c.startswith("?")) + base[1:] + named
        body += [c for c in chosen if c.startswith("FILTER")]
        text = query("?item ?itemLabel ?born", body, ("ORDER BY ?itemLabel",))
        enough = len(chosen) >= rng.randint(1, 4)
        if enough and len(run_query(state, text)["results"]["bindings"]) <= SHOWN_AT_MOST:
            break
    return Planned("search", "sparql_query", {"query": text})


def join(rng: random.Random, state: State) -> Planned:
    """A person's employers and where they are based, or people born in a country's cities
    of an occupation: answers that name other items by their labels."""
    person = rng.choice(people(state))
    if rng.random() < 0.5:
        body = [f"wd:{person['id']} wdt:P108 ?employer .", "?employer wdt:P159 ?city ."]
        text = query("?employer ?employerLabel ?city ?cityLabel", body)
        return Planned("join", "sparql_query", {"query": text})
    place = next(e for e in state["entities"] if e["id"] == _of(person, "P19")[0])
    body = ["?item wdt:P19 ?place .", f"?place wdt:P17 wd:{_of(place, 'P17')[0]} ."]
    body.append(f"?item wdt:P106 wd:{_of(person, 'P106')[0]} .")
    body.append(f"?item wdt:P69 wd:{_of(person, 'P69')[0]} .")
    text = query("?item ?itemLabel ?place ?placeLabel", body, ("ORDER BY ?itemLabel",))
    return Planned("join", "sparql_query", {"query": text})


def aggregate(rng: random.Random, state: State) -> Planned:
    """Occupations counted for a country's citizens; a country's cities' population; an
    organisation's staff over time."""
    person = rng.choice(people(state))
    country = _of(person, "P27")[0]
    pick = rng.randrange(3)
    if pick == 0:
        body = [f"?item wdt:P27 wd:{country} .", "?item wdt:P106 ?occupation ."]
        select = "?occupation ?occupationLabel (COUNT(?item) AS ?count)"
        tail: tuple[str, ...] = (
            "GROUP BY ?occupation ?occupationLabel",
            "ORDER BY DESC(?count) ?occupationLabel",
        )
    elif pick == 1:
        body = [
            "?city wdt:P31 wd:Q515 .",
            f"?city wdt:P17 wd:{country} .",
            "?city wdt:P1082 ?population .",
        ]
        select = (
            "(COUNT(?city) AS ?cities) (SUM(?population) AS ?total) (MAX(?population) AS ?largest)"
        )
        tail = ()
    else:
        employer = rng.choice(_of(person, "P108"))
        body = [f"?item wdt:P108 wd:{employer} .", "?item wdt:P569 ?born ."]
        select = (
            "(COUNT(DISTINCT ?item) AS ?staff) (MIN(?born) AS ?oldest) (MAX(?born) AS ?youngest)"
        )
        tail = ()
    return Planned("aggregate", "sparql_query", {"query": query(select, body, tail)})


def lookup(rng: random.Random, state: State) -> Planned:
    chosen = rng.sample(people(state), rng.choice([1, 1, 2]))
    args: dict[str, Any] = {"ids": "|".join(e["id"] for e in chosen)}
    if rng.random() < 0.5:
        args["props"] = rng.choice(["labels|descriptions|claims", "labels|aliases|sitelinks|info"])
        args["languages"] = "en"
    return Planned("lookup", "wbgetentities", args)


def nested_lookup(rng: random.Random, state: State) -> Planned:
    person = rng.choice(people(state))
    chosen = rng.choice(["P108", "P108", "P569", "P166" if "P166" in person["claims"] else "P69"])
    if rng.random() < 0.5:
        return Planned("nested_lookup", "wbgetclaims", {"entity": person["id"], "property": chosen})
    return Planned(
        "nested_lookup", "get_item_statements", {"item_id": person["id"], "property": chosen}
    )


def write(rng: random.Random, state: State) -> tuple[Planned, Planned]:
    """An award or occupation added to a person, or an end date set on an employment."""
    person = rng.choice(people(state))
    open_jobs = [s for s in person["claims"]["P108"] if "P582" not in s.get("qualifiers", {})]
    if open_jobs and rng.random() < 0.5:
        claim = rng.choice(open_jobs)["id"]
        end = {"time": "+2025-11-30T00:00:00Z", "timezone": 0, "before": 0, "after": 0}
        end |= {"precision": 11, "calendarmodel": GREGORIAN}
        args = {"claim": claim, "property": "P582", "snaktype": "value", "value": json.dumps(end)}
        reread = Planned("read_after_write", "wbgetclaims", {"claim": claim})
        return Planned("write", "wbsetqualifier", args), reread
    if rng.random() < 0.5:
        awards = [e["id"] for e in _items(state, "Q618779")]
        prop_id, target = "P166", rng.choice(awards)
    else:
        prop_id, target = (
            "P106",
            rng.choice([o for o in OCCUPATIONS if o not in _of(person, "P106")]),
        )
    value = json.dumps({"entity-type": "item", "numeric-id": int(target[1:])})
    args = {"entity": person["id"], "property": prop_id, "snaktype": "value", "value": value}
    reread = (
        Planned("read_after_write", "wbgetclaims", {"entity": person["id"], "property": prop_id})
        if rng.random() < 0.5
        else Planned(
            "read_after_write",
            "get_item_statements",
            {"item_id": person["id"], "property": prop_id},
        )
    )
    return Planned("write", "wbcreateclaim", args), reread
