"""The Wikidata Query Service over the ``wikidata`` shape's dump, for the part of SPARQL its
tools' queries use: one triple pattern or ``FILTER`` a line, truthy ``wdt:`` statements (the
best-ranked values only), ``rdfs:label``, the label service's ``?xLabel``, ``GROUP BY`` with
``COUNT``/``SUM``/``MIN``/``MAX``, ``ORDER BY`` and ``LIMIT``. Answers are SPARQL 1.1 JSON
results: items as entity URIs, times as ``xsd:dateTime`` without the ``+`` (a year's precision
as January 1st), quantities as ``xsd:decimal`` text, every value a string."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from benchmarks.zoo.kit import State, ToolError
from benchmarks.zoo.wikidata_entities import ENTITY

XSD = "http://www.w3.org/2001/XMLSchema#"
Binding = dict[str, Any]
Row = dict[str, Binding]
LABEL_SERVICE = 'SERVICE wikibase:label { bd:serviceParam wikibase:language "en". }'


def _term(datavalue: dict[str, Any]) -> Binding:
    value, kind = datavalue["value"], datavalue["type"]
    if kind == "wikibase-entityid":
        return {"type": "uri", "value": ENTITY + value["id"]}
    if kind == "time":
        day = value["time"].lstrip("+").replace("-00-00T", "-01-01T")
        return {"datatype": XSD + "dateTime", "type": "literal", "value": day}
    if kind == "quantity":
        return {"datatype": XSD + "decimal", "type": "literal", "value": value["amount"][1:]}
    return {"type": "literal", "value": value}


def triples(state: State) -> Iterator[tuple[str, str, Binding]]:
    """``(subject id, predicate, object)``: each item's labels and its truthy statements."""
    for found in state["entities"]:
        for label in found.get("labels", {}).values():
            term = {"xml:lang": label["language"], "type": "literal", "value": label["value"]}
            yield found["id"], "rdfs:label", term
        for prop, made in found.get("claims", {}).items():
            ranked = [s for s in made if s["rank"] != "deprecated"]
            best = [s for s in ranked if s["rank"] == "preferred"] or ranked
            for held in best:
                if held["mainsnak"]["snaktype"] == "value":
                    yield found["id"], f"wdt:{prop}", _term(held["mainsnak"]["datavalue"])


def _entity(text: str) -> Binding:
    return {"type": "uri", "value": ENTITY + text.removeprefix("wd:")}


def _matches(pattern: str, term: Binding, row: Row) -> Row | None:
    if pattern.startswith("?"):
        bound = row.get(pattern[1:])
        if bound is None:
            return row | {pattern[1:]: term}
        return row if bound == term else None
    return row if _entity(pattern) == term else None


def _literal(value: str, kind: str) -> Binding:
    return {"datatype": XSD + kind, "type": "literal", "value": value}


def _number(term: Binding) -> float:
    return float(term["value"])


FILTERS = {
    r"FILTER\(YEAR\(\?(\w+)\) (>=|<=|=) (\d+)\)": "year",
    r"FILTER\(\?(\w+) (>=|<=|=) ([\d.]+)\)": "number",
    r'FILTER\(STRSTARTS\(\?(\w+), "([^"]*)"\)\)': "prefix",
    r'FILTER\(LANG\(\?(\w+)\) = "(\w+)"\)': "lang",
}


def _keep(line: str, row: Row) -> bool:
    for pattern, kind in FILTERS.items():
        found = re.fullmatch(pattern, line)
        if found is None:
            continue
        term = row.get(found[1])
        if term is None:
            return False
        if kind == "prefix":
            return str(term["value"]).startswith(found[2])
        if kind == "lang":
            return term.get("xml:lang") == found[2]
        actual = int(term["value"][:4]) if kind == "year" else _number(term)
        wanted = float(found[3])
        return {">=": actual >= wanted, "<=": actual <= wanted, "=": actual == wanted}[found[2]]
    raise ToolError(f"MalformedQueryException: cannot read {line!r}")


def _solve(state: State, body: list[str]) -> list[Row]:
    by_predicate: dict[str, list[tuple[str, Binding]]] = {}
    by_subject: dict[tuple[str, str], list[Binding]] = {}
    for subject, predicate, term in triples(state):
        by_predicate.setdefault(predicate, []).append((subject, term))
        by_subject.setdefault((predicate, subject), []).append(term)
    rows: list[Row] = [{}]
    for line in body:
        parts = line.removesuffix(" .").split()
        if len(parts) != 3:
            raise ToolError(f"MalformedQueryException: cannot read {line!r}")
        subject, predicate, target = parts
        joined = []
        for row in rows:
            bound = row.get(subject[1:]) if subject.startswith("?") else _entity(subject)
            candidates = (
                by_predicate.get(predicate, [])
                if bound is None
                else [
                    (bound["value"].removeprefix(ENTITY), t)
                    for t in by_subject.get((predicate, bound["value"].removeprefix(ENTITY)), [])
                ]
            )
            for held, term in candidates:
                after = _matches(subject, _entity(held), row)
                after = None if after is None else _matches(target, term, after)
                if after is not None:
                    joined.append(after)
        rows = joined
    return rows


def _labelled(state: State, rows: list[Row], names: list[str]) -> None:
    labels = {e["id"]: e["labels"]["en"]["value"] for e in state["entities"] if "en" in e["labels"]}
    for row in rows:
        for name in names:
            term = row.get(name.removesuffix("Label"))
            if term is not None and name.endswith("Label"):
                text = term["value"].removeprefix(ENTITY)
                shown = labels.get(text, text) if term["type"] == "uri" else text
                row[name] = {"xml:lang": "en", "type": "literal", "value": shown}


AGGREGATE = r"\((COUNT|SUM|MIN|MAX)\((DISTINCT )?\?(\w+)\) AS \?(\w+)\)"


def _grouped(rows: list[Row], keys: list[str], select: str) -> list[Row]:
    groups: dict[str, tuple[Row, list[Row]]] = {}
    for row in rows:
        key = repr([row.get(k) for k in keys])
        groups.setdefault(key, ({k: row[k] for k in keys if k in row}, []))[1].append(row)
    if not keys and not groups:
        groups[""] = ({}, [])  # an aggregate over nothing is still one row (a count of 0)
    made = []
    for head, members in groups.values():
        for op, distinct, var, name in re.findall(AGGREGATE, select):
            terms = [m[var] for m in members if var in m]
            if distinct:
                terms = [t for n, t in enumerate(terms) if t not in terms[:n]]
            if op == "COUNT":
                head = head | {name: _literal(str(len(terms)), "integer")}
            elif not terms and op != "SUM":
                continue  # MIN or MAX of nothing is unbound
            elif terms and terms[0].get("datatype") == XSD + "dateTime":
                # Times compare as their text: the earliest or latest date itself.
                pick = min if op == "MIN" else max
                head = head | {name: pick(terms, key=lambda t: str(t["value"]))}
            else:
                numbers = [_number(t) for t in terms]
                total = (
                    (sum(numbers) if op == "SUM" else min(numbers) if op == "MIN" else max(numbers))
                    if numbers
                    else 0
                )
                shown = f"{total:g}" if total % 1 else str(int(total))
                head = head | {name: _literal(shown, "decimal")}
        made.append(head)
    return made


def _ordered(rows: list[Row], order: str) -> list[Row]:
    for term in reversed(order.split()):
        descending = term.startswith("DESC(")
        name = term.removeprefix("DESC(").rstrip(")").lstrip("?")

        def key(row: Row, name: str = name) -> tuple[int, Any]:
            term = row.get(name, {})
            numeric = term.get("datatype", "").endswith(("integer", "decimal"))
            return (0, float(term["value"])) if numeric else (1, str(term.get("value", "")))

        rows = sorted(rows, key=key, reverse=descending)
    return rows


QUERY = re.compile(
    r"SELECT (?P<select>.+?) WHERE \{\n(?P<body>.*?)\n\}"
    r"(?:\nGROUP BY (?P<group>[^\n]+))?(?:\nORDER BY (?P<order>[^\n]+))?(?:\nLIMIT (?P<limit>\d+))?",
    re.S,
)


def run_query(state: State, query: str) -> dict[str, Any]:
    """The query's SPARQL JSON results."""
    found = QUERY.fullmatch(query.strip())
    if found is None:
        raise ToolError("MalformedQueryException: Encountered unexpected input")
    select = found["select"]
    lines = [line.strip() for line in found["body"].splitlines() if line.strip()]
    body = [line for line in lines if line != LABEL_SERVICE]
    names = re.findall(r"(?<!AS )\?(\w+)", re.sub(AGGREGATE, "", select))
    rows = _solve(state, [line for line in body if not line.startswith("FILTER")])
    _labelled(state, rows, names + [n + "Label" for n in names])
    rows = [r for r in rows if all(_keep(f, r) for f in body if f.startswith("FILTER"))]
    if re.search(AGGREGATE, select):
        keys = [] if found["group"] is None else [k.lstrip("?") for k in found["group"].split()]
        rows = _grouped(rows, keys, select)
        names += [m[3] for m in re.findall(AGGREGATE, select)]
    if found["order"]:
        rows = _ordered(rows, found["order"])
    shown = [{n: row[n] for n in names if n in row} for row in rows]
    if found["limit"]:
        shown = shown[: int(found["limit"])]
    return {"head": {"vars": names}, "results": {"bindings": shown}}
