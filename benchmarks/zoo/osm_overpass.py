"""The Overpass API of the ``osm`` shape: an interpreter of a subset of Overpass QL, answering
as the Overpass API does (its own envelope with ``osm3s``; elements by type, then id): one
query statement of a type (``node``, ``way``, ``relation``, ``nwr``) and filters
(``["k"="v"]``, ``["k"!="v"]``, ``["k"]``, ``["k"~"^re"]``, ``(if: t["k"] >= n)``, a bounding
box ``(s,w,n,e)``, which a way is in where one of its nodes is), then ``out`` (``body``,
``tags``, ``meta``, ``count``), ``make stat`` with ``count()``, ``set()``, ``sum()``, ``min()``
and ``max()`` (tags as text, as Overpass writes them), or a ``for (t["k"])`` loop making one
element per value of a tag (elements without it grouped under ``""``)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from benchmarks.zoo.kit import Answer, State, ToolError
from benchmarks.zoo.osm_map import elements

META = ("timestamp", "version", "changeset", "user", "uid")


QUERY = re.compile(r"^(node|way|relation|nwr|nw)((?:\s*(?:\[[^\]]*\]|\([^)]*\)))*)\s*$")


FILTER = re.compile(
    r'\["([^"]+)"(?:(!=|=|~)"([^"]*)")?\]'
    r'|\(if:\s*t\["([^"]+)"\]\s*(>=|<=|>|<|==)\s*(-?[\d.]+)\)'
    r"|\((-?[\d.]+),(-?[\d.]+),(-?[\d.]+),(-?[\d.]+)\)"
)
TYPES: dict[str, tuple[str, ...]] = {"node": ("node",), "way": ("way",), "relation": ("relation",)}
TYPES |= {"nwr": ("node", "way", "relation"), "nw": ("node", "way")}
OVERPASS = {
    "version": 0.6,
    "generator": "Overpass API 0.7.62.4 2390de5a",
    "osm3s": {
        "timestamp_osm_base": "2026-11-27T09:12:41Z",
        "copyright": "The data included in this document is from www.openstreetmap.org. "
        "The data is made available under ODbL.",
    },
}


def _number(text: Any) -> float | None:
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


COMPARE: dict[str, Callable[[float, float], bool]] = {
    ">=": lambda a, b: a >= b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    "<": lambda a, b: a < b,
    "==": lambda a, b: a == b,
}


class Positions:
    """Where elements are, for bounding boxes: a node at its position; a way where any of its
    nodes is; a relation where any member is."""

    def __init__(self, state: State) -> None:
        self.index = {(e["type"], e["id"]): e for e in elements(state)}

    def inside(self, element: dict[str, Any], box: list[float], depth: int = 0) -> bool:
        south, west, north, east = box
        if element["type"] == "node":
            return bool(south <= element["lat"] <= north and west <= element["lon"] <= east)
        refs = [("node", n) for n in element.get("nodes", [])]
        refs += [(m["type"], m["ref"]) for m in element.get("members", []) if depth < 2]
        found = (self.index.get(ref) for ref in refs)
        return any(e is not None and self.inside(e, box, depth + 1) for e in found)


def _meets(element: dict[str, Any], parts: tuple[str, ...], where: Positions | None) -> bool:
    tags: dict[str, str] = element.get("tags", {})
    key, op, value, if_key, if_op, if_value, *box = parts
    if key:
        if not op:
            return key in tags
        if op == "=":
            return bool(tags.get(key) == value)
        if op == "!=":
            return bool(tags.get(key) != value)
        return key in tags and re.search(value, tags[key]) is not None
    if if_key:
        number = _number(tags.get(if_key))
        return number is not None and COMPARE[if_op](number, float(if_value))
    assert where is not None
    return where.inside(element, [float(b) for b in box])


def query(state: State, statement: str) -> list[dict[str, Any]]:
    """The elements one query statement selects, in the order Overpass prints them."""
    found = QUERY.match(statement.strip())
    if found is None:
        raise ToolError(f'line 1: parse error: Unknown type "{statement.split("[")[0]}"')
    kinds, filters = TYPES[found.group(1)], FILTER.findall(found.group(2))
    where = Positions(state) if any(parts[6] for parts in filters) else None
    return [
        e
        for e in elements(state)
        if e["type"] in kinds and all(_meets(e, parts, where) for parts in filters)
    ]


def _printed(element: dict[str, Any], verbosity: str) -> dict[str, Any]:
    shown = {"type": element["type"], "id": element["id"]}
    if verbosity != "tags":
        geometry = {"node": ("lat", "lon"), "way": ("nodes",), "relation": ("members",)}
        shown |= {k: element[k] for k in geometry[element["type"]]}
    if verbosity == "meta":
        shown |= {k: element[k] for k in META}
    return shown | ({"tags": element["tags"]} if "tags" in element else {})


def _text(number: float) -> str:
    return str(int(number)) if number == int(number) else str(number)


def _stat(group: list[dict[str, Any]], spec: str, value: str | None) -> dict[str, str]:
    """A ``make stat`` element's tags, in the order the statement names them."""
    tags: dict[str, str] = {}
    for name, expression in re.findall(r"(\w+)=(_\.val|\w+\([^)]*\))", spec):
        if expression == "_.val":
            tags[name] = value or ""
            continue
        function, argument = expression[:-1].split("(", 1)
        if function == "count":
            tags[name] = str(sum(1 for e in group if e["type"] in TYPES[argument.rstrip("s")]))
            continue
        key = re.fullmatch(r't\["([^"]+)"\]', argument.strip())
        wanted = key.group(1) if key else ""
        values = [e["tags"][wanted] for e in group if wanted in e.get("tags", {})]
        numbers = [n for n in map(_number, values) if n is not None]
        if function == "set":
            tags[name] = ";".join(sorted(set(values)))
        elif function == "sum":
            tags[name] = _text(sum(numbers))
        elif numbers and len(numbers) == len(values):
            tags[name] = _text(min(numbers) if function == "min" else max(numbers))
        else:
            tags[name] = (min(values) if function == "min" else max(values)) if values else ""
    return tags


def overpass(state: State, args: dict[str, Any]) -> Answer:
    text = re.sub(r"^(\s*\[[^\]]*\])+\s*;", "", args["data"].strip())
    statement, _, rest = text.partition(";")
    found = query(state, statement.strip())
    rest = rest.strip()
    if rest.startswith("out count"):
        counts = {k: sum(1 for e in found if e["type"] == k[:-1]) for k in ("nodes", "ways")}
        counts |= {"relations": sum(1 for e in found if e["type"] == "relation"), "areas": 0}
        tags = {k: str(v) for k, v in counts.items()} | {"total": str(len(found))}
        return OVERPASS | {"elements": [{"type": "count", "id": 0, "tags": tags}]}, []
    made = re.fullmatch(r"make\s+stat\s+([^;]*);\s*out;", rest)
    if made:
        return OVERPASS | {"elements": [_stats(1, _stat(found, made.group(1), None))]}, []
    loop = re.fullmatch(r'for\s*\(t\["([^"]+)"\]\)\s*\{\s*make\s+stat\s+([^;]*);\s*out;\s*\}', rest)
    if loop:
        key, spec = loop.groups()
        groups: dict[str, list[dict[str, Any]]] = {}
        for element in found:
            groups.setdefault(element.get("tags", {}).get(key, ""), []).append(element)
        shown = [_stats(n, _stat(groups[v], spec, v)) for n, v in enumerate(sorted(groups), 1)]
        return OVERPASS | {"elements": shown}, []
    verbosity = re.fullmatch(r"out(?:\s+(body|tags|meta))?;", rest)
    if verbosity is None:
        raise ToolError(f'line 2: parse error: unexpected statement "{rest[:30]}"')
    return OVERPASS | {"elements": [_printed(e, verbosity.group(1) or "body") for e in found]}, []


def _stats(ident: int, tags: dict[str, str]) -> dict[str, Any]:
    return {"type": "stat", "id": ident, "tags": tags}
