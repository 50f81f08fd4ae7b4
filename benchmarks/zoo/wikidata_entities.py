"""A Wikibase JSON dump (the ``wikidata`` shape's state): one array of entities as
``latest-all.json`` holds them, properties (``P…``) first, then items (``Q…``). An item's facts
are ``claims`` keyed by property id, each a list of statements whose ``mainsnak`` holds a typed
``datavalue`` (an item as ``{"entity-type": "item", "numeric-id": 5, "id": "Q5"}``, a time as
``"+1952-03-11T00:00:00Z"`` with a precision, a quantity as a signed decimal string with a unit
URI); statements carry a ``rank``, ``qualifiers`` keyed by property id in the same snak form, and
references. Labels and descriptions are keyed by language; what a property means is written
only in its own entity's labels."""

from __future__ import annotations

import hashlib
import json
import random
from typing import Any

from benchmarks.zoo.kit import CITIES, FIRST, LAST, WORDS, State, fill, size_of

ENTITY = "http://www.wikidata.org/entity/"
GREGORIAN = ENTITY + "Q1985727"
PROPERTIES = {
    "P31": ("instance of", "wikibase-item"),
    "P21": ("sex or gender", "wikibase-item"),
    "P27": ("country of citizenship", "wikibase-item"),
    "P569": ("date of birth", "time"),
    "P570": ("date of death", "time"),
    "P19": ("place of birth", "wikibase-item"),
    "P106": ("occupation", "wikibase-item"),
    "P108": ("employer", "wikibase-item"),
    "P69": ("educated at", "wikibase-item"),
    "P166": ("award received", "wikibase-item"),
    "P580": ("start time", "time"),
    "P582": ("end time", "time"),
    "P585": ("point in time", "time"),
    "P17": ("country", "wikibase-item"),
    "P159": ("headquarters location", "wikibase-item"),
    "P571": ("inception", "time"),
    "P1082": ("population", "quantity"),
    "P1128": ("employees", "quantity"),
    "P2046": ("area", "quantity"),
    "P856": ("official website", "url"),
    "P214": ("VIAF ID", "external-id"),
    "P854": ("reference URL", "url"),
    "P813": ("retrieved", "time"),
}
CLASSES = {
    "Q5": ("human", "common name of Homo sapiens"),
    "Q515": ("city", "large human settlement"),
    "Q6256": ("country", "distinct territorial body or political entity"),
    "Q3918": ("university", "academic institution for further education"),
    "Q4830453": ("business", "organization undertaking commercial activity"),
    "Q618779": ("award", "something given in recognition of an achievement"),
    "Q6581097": ("male", "to be used in sex or gender (P21)"),
    "Q6581072": ("female", "to be used in sex or gender (P21)"),
    "Q712226": ("square kilometre", "unit of area"),
    "Q82594": ("computer scientist", "scientist specialised in computer science"),
    "Q169470": ("physicist", "scientist who does research in physics"),
    "Q39631": ("physician", "professional who practices medicine"),
    "Q36180": ("writer", "person who uses written words"),
    "Q1028181": ("painter", "person who practices painting"),
    "Q42973": ("architect", "person trained in the planning of buildings"),
    "Q81096": ("engineer", "professional practitioner of engineering"),
    "Q1622272": ("university teacher", "person teaching at a university"),
}
OCCUPATIONS = ["Q82594", "Q169470", "Q39631", "Q36180", "Q1028181", "Q42973", "Q81096", "Q1622272"]
COUNTRIES = ["Norvania", "Estmark", "Calderra", "Lusovia", "Brenmark", "Tirania"]
DEMONYMS = ["Norvanian", "Estmarker", "Calderran", "Lusovian", "Brenmarker", "Tiranian"]
MODIFIED = "2025-11-20T04:12:33Z"


def _hash(value: Any) -> str:
    return hashlib.sha1(json.dumps(value, sort_keys=True).encode()).hexdigest()


def item_value(qid: str) -> dict[str, Any]:
    return {"entity-type": "item", "numeric-id": int(qid[1:]), "id": qid}


def time_value(day: str, precision: int = 11) -> dict[str, Any]:
    """A date (``YYYY-MM-DD``) as Wikibase writes a time: a year's precision zeroes the rest."""
    written = day if precision == 11 else f"{day[:4]}-00-00"
    return {"time": f"+{written}T00:00:00Z", "timezone": 0, "before": 0, "after": 0} | {
        "precision": precision,
        "calendarmodel": GREGORIAN,
    }


def quantity_value(amount: float, unit: str | None = None) -> dict[str, Any]:
    number = f"{amount:.0f}" if float(amount).is_integer() else f"{amount}"
    return {"amount": f"+{number}", "unit": "1" if unit is None else ENTITY + unit}


def snak(prop: str, value: Any) -> dict[str, Any]:
    """A ``value`` snak of ``prop``, its datavalue typed as the property's datatype says."""
    datatype = PROPERTIES[prop][1]
    kind = {
        "wikibase-item": "wikibase-entityid",
        "time": "time",
        "quantity": "quantity",
        "url": "string",
        "external-id": "string",
    }[datatype]
    made = {"snaktype": "value", "property": prop, "datavalue": {"value": value, "type": kind}}
    return {**made, "hash": _hash(made), "datatype": datatype}


def statement(
    rng: random.Random,
    qid: str,
    prop: str,
    value: Any,
    qualifiers: tuple[tuple[str, Any], ...] = (),
    rank: str = "normal",
) -> dict[str, Any]:
    guid = "-".join(f"{rng.getrandbits(4 * n):0{n}X}" for n in (8, 4, 4, 4, 12))
    made: dict[str, Any] = {"mainsnak": snak(prop, value), "type": "statement"}
    if qualifiers:
        by_prop: dict[str, list[dict[str, Any]]] = {}
        for name, held in qualifiers:
            by_prop.setdefault(name, []).append(snak(name, held))
        made |= {"qualifiers": by_prop, "qualifiers-order": list(by_prop)}
    made |= {"id": f"{qid}${guid}", "rank": rank}
    if rng.random() < 0.4:
        page = f"https://{rng.choice(WORDS)}.example.org/{qid.lower()}"
        snaks = {"P854": [snak("P854", page)], "P813": [snak("P813", time_value("2024-06-01"))]}
        made["references"] = [{"hash": _hash(snaks), "snaks": snaks, "snaks-order": list(snaks)}]
    return made


def _texts(value: str, languages: tuple[str, ...] = ("en", "de")) -> dict[str, Any]:
    return {lang: {"language": lang, "value": value} for lang in languages}


def entity(
    qid: str,
    label: str,
    description: str,
    claims: list[dict[str, Any]],
    aliases: tuple[str, ...] = (),
) -> dict[str, Any]:
    by_prop: dict[str, list[dict[str, Any]]] = {}
    for made in claims:
        by_prop.setdefault(made["mainsnak"]["property"], []).append(made)
    return {
        "type": "item",
        "id": qid,
        "labels": _texts(label),
        "descriptions": {"en": {"language": "en", "value": description}},
        "aliases": {"en": [{"language": "en", "value": a} for a in aliases]} if aliases else {},
        "claims": by_prop,
        "sitelinks": {},
        "lastrevid": 2_100_000_000 + int(qid[1:]) % 90_000_000,
        "modified": MODIFIED,
    }


class Dump:
    """Builds the dump: properties, classes, countries, cities, organisations and awards, then
    people until it is large enough."""

    def __init__(self, rng: random.Random, target_bytes: int) -> None:
        self.rng, self.next = rng, 1_000_001
        # Places and organisations grow with the dump, so that a small one is mostly people.
        places = min(len(CITIES), max(3, target_bytes // 200_000))
        self.entities: list[dict[str, Any]] = [
            {"type": "property", "datatype": kind, "id": pid, "labels": _texts(label)}
            | {"descriptions": {}, "aliases": {}, "claims": {}, "lastrevid": 2_000_000_000}
            for pid, (label, kind) in PROPERTIES.items()
        ]
        self.entities += [entity(q, *CLASSES[q], []) for q in CLASSES]
        self.countries = [self._add(n, "sovereign state", [("P31", "Q6256")]) for n in COUNTRIES]
        self.cities = [self._city(name) for name in CITIES[:places]]
        self.universities = [
            self._organisation(f"University of {c['labels']['en']['value']}", c, "Q3918")
            for c in self.cities[:8]
        ]
        suffixes = ["Systems", "Labs", "Works", "Group"] * 4
        self.businesses = [
            self._organisation(f"{w.title()} {s}", rng.choice(self.cities), "Q4830453")
            for w, s in zip(rng.sample(WORDS, min(14, places)), suffixes, strict=False)
        ]
        self.awards = [
            self._add(f"{w.title()} Prize", "award", [("P31", "Q618779"), ("P17", c["id"])])
            for w, c in ((w, rng.choice(self.countries)) for w in rng.sample(WORDS, min(8, places)))
        ]

    def _qid(self) -> str:
        self.next += self.rng.randint(1, 40)
        return f"Q{self.next}"

    def _add(
        self, label: str, description: str, facts: list[tuple[str, Any]], **extra: Any
    ) -> dict[str, Any]:
        qid = self._qid()
        claims = [
            statement(self.rng, qid, p, item_value(v) if PROPERTIES[p][1] == "wikibase-item" else v)
            for p, v in facts
        ]
        made = entity(qid, label, description, claims + extra.get("more", []))
        self.entities.append(made)
        return made

    def _city(self, name: str) -> dict[str, Any]:
        rng = self.rng
        country = rng.choice(self.countries)
        area = quantity_value(round(rng.uniform(20, 900), 1), "Q712226")
        facts = [("P31", "Q515"), ("P17", country["id"]), ("P2046", area)]
        place = self._add(name, f"city in {country['labels']['en']['value']}", facts)
        older = rng.randint(20_000, 900_000)
        newer = int(older * rng.uniform(0.9, 1.2))
        # The latest count is preferred: a truthy (``wdt:``) read gives it alone.
        place["claims"]["P1082"] = [
            statement(rng, place["id"], "P1082", quantity_value(amount), when, rank)
            for amount, when, rank in (
                (older, (("P585", time_value("2011-01-01", 9)),), "normal"),
                (newer, (("P585", time_value("2021-01-01", 9)),), "preferred"),
            )
        ]
        return place

    def _organisation(self, label: str, city: dict[str, Any], kind: str) -> dict[str, Any]:
        rng = self.rng
        country = city["claims"]["P17"][0]["mainsnak"]["datavalue"]["value"]["id"]
        facts: list[tuple[str, Any]] = [("P31", kind), ("P17", country), ("P159", city["id"])]
        facts.append(("P571", time_value(f"{rng.randint(1820, 2015)}-01-01", 9)))
        facts.append(("P856", f"https://www.{label.lower().replace(' ', '-')}.example"))
        if kind == "Q4830453":
            facts.append(("P1128", quantity_value(rng.randint(40, 25_000))))
        return self._add(label, "university" if kind == "Q3918" else "company", facts)

    def person(self) -> None:
        rng = self.rng
        first, last = rng.choice(FIRST), rng.choice(LAST)
        born = f"{rng.randint(1920, 1999)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
        country = rng.choice(self.countries)
        demonym = DEMONYMS[COUNTRIES.index(country["labels"]["en"]["value"])]
        jobs = rng.sample(OCCUPATIONS, rng.randint(1, 2))
        qid = self._qid()
        claims = [statement(rng, qid, "P31", item_value("Q5"))]
        claims.append(statement(rng, qid, "P21", item_value(rng.choice(["Q6581097", "Q6581072"]))))
        claims.append(statement(rng, qid, "P27", item_value(country["id"])))
        claims.append(statement(rng, qid, "P569", time_value(born, rng.choice([11, 11, 11, 9]))))
        if rng.random() < 0.2:
            died = (
                f"{int(born[:4]) + rng.randint(50, 95)}-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}"
            )
            claims.append(statement(rng, qid, "P570", time_value(died)))
        claims.append(statement(rng, qid, "P19", item_value(rng.choice(self.cities)["id"])))
        claims += [statement(rng, qid, "P106", item_value(j)) for j in jobs]
        claims.append(statement(rng, qid, "P69", item_value(rng.choice(self.universities)["id"])))
        start = int(born[:4]) + rng.randint(22, 30)
        for employer in rng.sample(self.businesses + self.universities, rng.randint(1, 3)):
            held: tuple[tuple[str, dict[str, Any]], ...] = (
                ("P580", time_value(f"{start}-01-01", 9)),
            )
            start += rng.randint(2, 12)
            if rng.random() < 0.6:
                held += (("P582", time_value(f"{start}-01-01", 9)),)
            claims.append(statement(rng, qid, "P108", item_value(employer["id"]), held))
        if rng.random() < 0.3:
            year = time_value(f"{start + rng.randint(0, 10)}-01-01", 9)
            award = item_value(rng.choice(self.awards)["id"])
            claims.append(statement(rng, qid, "P166", award, (("P585", year),)))
        if rng.random() < 0.7:
            claims.append(statement(rng, qid, "P214", str(rng.randint(10**7, 10**9))))
        nickname = (f"{first[0]}. {last}",) if rng.random() < 0.3 else ()
        label = f"{first} {last}"
        made = entity(qid, label, f"{demonym} {CLASSES[jobs[0]][0]}", claims, nickname)
        if rng.random() < 0.4:
            made["sitelinks"] = {"enwiki": {"site": "enwiki", "title": label, "badges": []}}
        self.entities.append(made)


def dump(rng: random.Random, target_bytes: int) -> State:
    built = Dump(rng, target_bytes)
    state: State = {"entities": built.entities}
    fill(built.person, lambda: size_of(state), target_bytes)
    return state
