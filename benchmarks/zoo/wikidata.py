"""``wikidata``: a Wikibase JSON dump of people, cities, organisations and awards, whose facts
are statements under property ids (``P108``) with typed snak values, qualifiers and ranks, and
whose property names live only in the properties' own entities. Tools are the Wikibase action
API's (``wbgetentities`` with ``|``-joined ids, ``wbgetclaims``, ``wbsearchentities``,
``wbcreateclaim`` and ``wbsetqualifier`` taking the datavalue as JSON text), the REST API's
statements (another encoding of the same statements) and the Query Service's SPARQL, whose
answers write items as URIs and times without their ``+``; searches, joins over linked items
and aggregates are SPARQL queries, as a Wikidata user writes them."""

from __future__ import annotations

import hashlib
import json
import random
from typing import Any

from benchmarks.zoo import wikidata_plans as plans
from benchmarks.zoo.kit import Answer, Planned, State, Tool, ToolError, note_tool, pointer, prop
from benchmarks.zoo.shape import Shape
from benchmarks.zoo.wikidata_entities import ENTITY, PROPERTIES, dump, item_value, snak
from benchmarks.zoo.wikidata_sparql import run_query

EDITED = "2025-12-01T09:00:00Z"
FIELDS = {
    "time": {"time", "timezone", "before", "after", "precision", "calendarmodel"},
    "quantity": {"amount", "unit"},
}
"""What a datavalue of a type must hold: Wikibase refuses one without them."""
UNKNOWN_NAMES = ["Beatrix Holloway", "Cosmo Vantablack", "Delphine Oyelaran", "Evander Quill"]
SPARQL_EXAMPLE = (
    "SELECT ?item ?itemLabel ?born WHERE { ?item wdt:P31 wd:Q5 . ?item wdt:P569 ?born . "
    "?item rdfs:label ?name . ?city wdt:P1082 ?population . ?city ... ?cityLabel }"
)


def _entities(state: State) -> dict[str, tuple[int, dict[str, Any]]]:
    return {e["id"]: (n, e) for n, e in enumerate(state["entities"])}


def _get(state: State, ident: str) -> tuple[int, dict[str, Any]]:
    found = _entities(state).get(ident)
    if found is None:
        raise ToolError(f'no-such-entity: Could not find an entity with the ID "{ident}".')
    return found


def _rest_value(held: dict[str, Any]) -> dict[str, Any]:
    """A snak as the REST API writes it: an item as its bare id, a time without bounds."""
    if held["snaktype"] != "value":
        return {"type": held["snaktype"]}
    value = held["datavalue"]["value"]
    if isinstance(value, dict) and "id" in value:
        value = value["id"]
    elif isinstance(value, dict) and "time" in value:
        value = {k: value[k] for k in ("time", "precision", "calendarmodel")}
    return {"type": "value", "content": value}


def _rest_part(held: dict[str, Any]) -> dict[str, Any]:
    kind = {"id": held["property"], "data_type": held["datatype"]}
    return {"property": kind, "value": _rest_value(held)}


def _rest_statement(made: dict[str, Any]) -> dict[str, Any]:
    qualifiers = [
        _rest_part(q) for p in made.get("qualifiers-order", []) for q in made["qualifiers"][p]
    ]
    references = [
        {
            "hash": r["hash"],
            "parts": [_rest_part(s) for p in r["snaks-order"] for s in r["snaks"][p]],
        }
        for r in made.get("references", [])
    ]
    shown = {"id": made["id"], "rank": made["rank"], "qualifiers": qualifiers}
    return shown | {"references": references} | _rest_part(made["mainsnak"])


def _parsed_value(prop_id: str, text: str) -> Any:
    """The ``value`` argument (JSON text) as the datavalue the statement holds."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise ToolError("invalid-snak: Invalid snak data.") from error
    if PROPERTIES[prop_id][1] == "wikibase-item":
        if not isinstance(value, dict) or "numeric-id" not in value:
            raise ToolError("invalid-snak: Invalid snak data.")
        return item_value(f"Q{value['numeric-id']}")
    needed = FIELDS.get(PROPERTIES[prop_id][1], set())
    if needed and not (isinstance(value, dict) and needed <= set(value)):
        raise ToolError("invalid-snak: Invalid snak data.")
    return value


class Wikidata(Shape):
    name = "wikidata"
    title = "Research assistant over a Wikibase knowledge graph"
    description = (
        "A Wikibase instance of people, cities, organisations and awards, as its JSON dump "
        "holds them, served through the Wikibase action API, its REST API and a SPARQL "
        "query service. Errors are text starting with 'Error:' and the API's error code."
    )

    def build(self, rng: random.Random, target_bytes: int) -> State:
        return dump(rng, target_bytes)

    def tools(self) -> list[Tool]:
        return [*self._reads(), *self._writes()]

    def _reads(self) -> list[Tool]:
        entity = prop("string", "Entity id, e.g. Q42.")
        property_id = prop("string", "Property id, e.g. P569.")
        return [
            Tool(
                "wbgetentities",
                "Entities by id: labels, descriptions, aliases, claims, sitelinks and info.",
                {
                    "ids": prop("string", "Entity ids separated by |, e.g. Q42|Q64."),
                    "props": prop("string", "Parts to return, |-separated (default all)."),
                    "languages": prop("string", "Languages of terms, |-separated."),
                },
                self._entities,
                ("ids",),
            ),
            Tool(
                "wbgetclaims",
                "Statements of an entity, optionally of one property, or one statement by GUID.",
                {"entity": entity, "property": property_id, "claim": prop("string", "GUID.")},
                self._claims,
            ),
            Tool(
                "get_item_statements",
                "REST API: GET /v1/entities/items/{item_id}/statements?property=…",
                {"item_id": entity, "property": property_id},
                self._statements,
                ("item_id",),
            ),
            Tool(
                "wbsearchentities",
                "Entities whose label or alias starts with the text.",
                {
                    "search": prop("string", "Text to look for."),
                    "language": prop("string", "Language of the text, e.g. en."),
                    "limit": prop("integer", "Most results (default 7)."),
                },
                self._search,
                ("search", "language"),
            ),
            Tool(
                "sparql_query",
                "Run a SPARQL query on the query service (JSON results); truthy statements as "
                "wdt:P…, labels by the label service, e.g. " + SPARQL_EXAMPLE,
                {"query": prop("string", "SPARQL SELECT query.")},
                lambda s, a: (run_query(s, a["query"]), []),
                ("query",),
            ),
        ]

    def _writes(self) -> list[Tool]:
        entity = prop("string", "Entity id, e.g. Q42.")
        property_id = prop("string", "Property id, e.g. P569.")
        value = prop("string", 'The datavalue as JSON, e.g. {"entity-type":"item","numeric-id":5}.')
        return [
            Tool(
                "wbcreateclaim",
                "Add a statement with a value to an entity.",
                {
                    "entity": entity,
                    "property": property_id,
                    "snaktype": prop("string", "value"),
                    "value": value,
                },
                self._create,
                ("entity", "property", "snaktype", "value"),
                effect="write",
            ),
            Tool(
                "wbsetqualifier",
                "Add a qualifier to a statement.",
                {"claim": prop("string", "Statement GUID."), "property": property_id}
                | {"snaktype": prop("string", "value"), "value": value},
                self._qualify,
                ("claim", "property", "snaktype", "value"),
                effect="write",
            ),
            note_tool("think", "thought", "Think out loud (answers nothing)."),
        ]

    def _entities(self, state: State, args: dict[str, Any]) -> Answer:
        known = _entities(state)
        parts = args.get("props", "info|sitelinks|aliases|labels|descriptions|claims|datatype")
        languages = args.get("languages")
        shown: dict[str, Any] = {}
        for ident in args["ids"].split("|"):
            if ident not in known:
                shown[ident] = {"id": ident, "missing": ""}
                continue
            found = known[ident][1]
            made: dict[str, Any] = {k: found[k] for k in ("type", "id") if k in found}
            if "info" in parts:
                made |= {k: found[k] for k in ("lastrevid", "modified") if k in found}
            for part in ("labels", "descriptions", "aliases", "claims", "sitelinks"):
                if part in parts and part in found:
                    held = found[part]
                    if languages and part in ("labels", "descriptions", "aliases"):
                        held = {k: v for k, v in held.items() if k in languages.split("|")}
                    made[part] = held
            shown[ident] = made
        return {"entities": shown, "success": 1}, []

    def _claims(self, state: State, args: dict[str, Any]) -> Answer:
        if "claim" in args:
            found = _get(state, args["claim"].split("$")[0])[1]
            made = [s for ss in found["claims"].values() for s in ss if s["id"] == args["claim"]]
            if not made:
                raise ToolError("no-such-claim: Could not find the claim")
            return {"claims": {made[0]["mainsnak"]["property"]: made}}, []
        claims = _get(state, args["entity"])[1]["claims"]
        if "property" in args:
            claims = {args["property"]: claims.get(args["property"], [])}
        return {"claims": claims}, []

    def _statements(self, state: State, args: dict[str, Any]) -> Answer:
        claims = _get(state, args["item_id"])[1]["claims"]
        chosen = [args["property"]] if "property" in args else list(claims)
        return {p: [_rest_statement(s) for s in claims.get(p, [])] for p in chosen}, []

    def _search(self, state: State, args: dict[str, Any]) -> Answer:
        text, lang = args["search"].lower(), args["language"]
        found = []
        for made in state["entities"]:
            label = made["labels"].get(lang, {}).get("value", "")
            aliases = [a["value"] for a in made.get("aliases", {}).get(lang, [])]
            matched = [("label", label)] if label.lower().startswith(text) else []
            matched += [("alias", a) for a in aliases if a.lower().startswith(text)]
            if matched and made["type"] == "item":
                kind, shown = matched[0]
                description = made["descriptions"].get(lang, {}).get("value")
                entry = {"id": made["id"], "title": made["id"], "repository": "wikidata"}
                entry |= {"url": f"//www.wikidata.org/wiki/{made['id']}"}
                entry["concepturi"] = ENTITY + made["id"]
                display = {"label": {"value": label, "language": lang}}
                if description is not None:
                    display["description"] = {"value": description, "language": lang}
                entry |= {"display": display, "label": label, "description": description}
                entry["match"] = {"type": kind, "language": lang, "text": shown}
                found.append(entry)
        limit = args.get("limit", 7)
        answer: dict[str, Any] = {"searchinfo": {"search": args["search"]}, "search": found[:limit]}
        if len(found) > limit:
            answer["search-continue"] = limit
        return answer | {"success": 1}, []

    def _edited(self, n: int, found: dict[str, Any]) -> tuple[int, list[dict[str, Any]]]:
        revision = found["lastrevid"] + 1
        return revision, [
            {"op": "replace", "path": pointer("entities", n, "lastrevid"), "value": revision},
            {"op": "replace", "path": pointer("entities", n, "modified"), "value": EDITED},
        ]

    def _create(self, state: State, args: dict[str, Any]) -> Answer:
        n, found = _get(state, args["entity"])
        prop_id = args["property"]
        if prop_id not in PROPERTIES:
            raise ToolError(f'no-such-entity: Could not find an entity with the ID "{prop_id}".')
        held = snak(prop_id, _parsed_value(prop_id, args["value"]))
        digest = hashlib.sha1(f"{found['id']}/{prop_id}/{found['lastrevid']}".encode()).hexdigest()
        guid = "-".join(
            digest[a:b].upper() for a, b in ((0, 8), (8, 12), (12, 16), (16, 20), (20, 32))
        )
        made = {
            "mainsnak": held,
            "type": "statement",
            "id": f"{found['id']}${guid}",
            "rank": "normal",
        }
        revision, patch = self._edited(n, found)
        here = pointer("entities", n, "claims", prop_id)
        patch.append(
            {"op": "add", "path": here + "/-", "value": made}
            if prop_id in found["claims"]
            else {"op": "add", "path": here, "value": [made]}
        )
        return {"pageinfo": {"lastrevid": revision}, "success": 1, "claim": made}, patch

    def _qualify(self, state: State, args: dict[str, Any]) -> Answer:
        n, found = _get(state, args["claim"].split("$")[0])
        prop_id = args["property"]
        for key, made in found["claims"].items():
            for m, held in enumerate(made):
                if held["id"] == args["claim"]:
                    after = json.loads(json.dumps(held))
                    qualifier = snak(prop_id, _parsed_value(prop_id, args["value"]))
                    after.setdefault("qualifiers", {}).setdefault(prop_id, []).append(qualifier)
                    if prop_id not in after.setdefault("qualifiers-order", []):
                        after["qualifiers-order"].append(prop_id)
                    revision, patch = self._edited(n, found)
                    path = pointer("entities", n, "claims", key, m)
                    patch.append({"op": "replace", "path": path, "value": after})
                    return {
                        "pageinfo": {"lastrevid": revision},
                        "success": 1,
                        "claim": after,
                    }, patch
        raise ToolError("no-such-claim: Could not find the claim")

    def lookup(self, rng: random.Random, state: State) -> Planned:
        return plans.lookup(rng, state)

    def nested_lookup(self, rng: random.Random, state: State) -> Planned:
        return plans.nested_lookup(rng, state)

    def search(self, rng: random.Random, state: State) -> Planned:
        return plans.search(rng, state)

    def join(self, rng: random.Random, state: State) -> Planned:
        return plans.join(rng, state)

    def aggregate(self, rng: random.Random, state: State) -> Planned:
        return plans.aggregate(rng, state)

    def write(self, rng: random.Random, state: State) -> tuple[Planned, Planned]:
        return plans.write(rng, state)

    def no_match(self, rng: random.Random, state: State) -> Planned:
        args = {"search": rng.choice(UNKNOWN_NAMES), "language": "en"}
        return Planned("empty", "wbsearchentities", args)
