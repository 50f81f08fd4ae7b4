"""The APIs of the ``osm`` shape: the editing API 0.6 (an element; a way with its nodes; the
relations an element is a member of; the ways a node is in; writes that open a changeset,
check the version the editor read and bump it), and an Overpass API interpreter answering a
subset of Overpass QL: one query statement of a type (``node``, ``way``, ``relation``,
``nwr``) and filters (``["k"="v"]``, ``["k"!="v"]``, ``["k"]``, ``["k"~"^re"]``, ``(if:
t["k"] >= n)``, a bounding box ``(s,w,n,e)`` of nodes), then ``out`` (``body``, ``tags``,
``meta``, ``count``), ``make stat`` with ``count()``, ``set()``, ``sum()``, ``min()`` and
``max()``, or a ``for (t["k"])`` loop grouping by a tag's value."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from typing import Any

from benchmarks.zoo.kit import Answer, State, ToolError, pointer
from benchmarks.zoo.osm_map import ENVELOPE, boundary, changesets, elements

OVERPASS = {
    "version": 0.6,
    "generator": "Overpass API 0.7.62.4 2390de5a",
    "osm3s": {
        "timestamp_osm_base": "2026-11-27T09:12:41Z",
        "copyright": "The data included in this document is from www.openstreetmap.org. "
        "The data is made available under ODbL.",
    },
}
META = ("timestamp", "version", "changeset", "user", "uid")
TYPES = {"node": ("node",), "way": ("way",), "relation": ("relation",)}
TYPES |= {"nwr": ("node", "way", "relation"), "nw": ("node", "way")}
FILTER = re.compile(
    r'\["([^"]+)"(?:(!=|=|~)"([^"]*)")?\]'
    r'|\(if:\s*t\["([^"]+)"\]\s*(>=|<=|>|<|==)\s*(-?[\d.]+)\)'
    r"|\((-?[\d.]+),(-?[\d.]+),(-?[\d.]+),(-?[\d.]+)\)"
)
QUERY = re.compile(r"^(node|way|relation|nwr|nw)((?:\s*(?:\[[^\]]*\]|\([^)]*\)))*)\s*$")


def _envelope(found: list[dict[str, Any]]) -> dict[str, Any]:
    return ENVELOPE | {"elements": found}


def find(state: State, kind: str, ident: int) -> tuple[int, dict[str, Any]]:
    for n, element in enumerate(elements(state)):
        if element["type"] == kind and element["id"] == int(ident):
            return n, element
    raise ToolError(f"404 Not Found: The {kind} with the id {ident} was not found")


def get_element(state: State, args: dict[str, Any]) -> Answer:
    return _envelope([find(state, args["type"], args["id"])[1]]), []


def get_way_full(state: State, args: dict[str, Any]) -> Answer:
    _, way = find(state, "way", args["id"])
    ids = list(dict.fromkeys(way["nodes"]))
    nodes = {e["id"]: e for e in elements(state) if e["type"] == "node" and e["id"] in ids}
    return _envelope([nodes[i] for i in ids] + [way]), []


def get_relations_of(state: State, args: dict[str, Any]) -> Answer:
    kind, ident = args["type"], int(args["id"])
    find(state, kind, ident)
    found = [
        e
        for e in elements(state)
        if e["type"] == "relation"
        and any(m["type"] == kind and m["ref"] == ident for m in e["members"])
    ]
    return _envelope(found), []


def get_ways_of_node(state: State, args: dict[str, Any]) -> Answer:
    ident = int(args["id"])
    find(state, "node", ident)
    found = [e for e in elements(state) if e["type"] == "way" and ident in e["nodes"]]
    return _envelope(found), []


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


def _meets(element: dict[str, Any], parts: tuple[str, ...]) -> bool:
    tags = element.get("tags", {})
    key, op, value, if_key, if_op, if_value, *box = parts
    if key:
        if not op:
            return key in tags
        if op == "=":
            return tags.get(key) == value
        if op == "!=":
            return tags.get(key) != value
        return key in tags and re.search(value, tags[key]) is not None
    if if_key:
        number = _number(tags.get(if_key))
        return number is not None and COMPARE[if_op](number, float(if_value))
    south, west, north, east = map(float, box)
    return (
        element["type"] == "node"
        and south <= element["lat"] <= north
        and west <= element["lon"] <= east
    )


def query(state: State, statement: str) -> list[dict[str, Any]]:
    """The elements one query statement selects, in the order Overpass prints them."""
    found = QUERY.match(statement.strip())
    if found is None:
        raise ToolError(f"line 1: parse error: Unknown type \"{statement.split('[')[0]}\"")
    kinds, filters = TYPES[found.group(1)], FILTER.findall(found.group(2))
    return [
        e
        for e in elements(state)
        if e["type"] in kinds and all(_meets(e, parts) for parts in filters)
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
        raise ToolError(f"line 2: parse error: unexpected statement \"{rest[:30]}\"")
    return OVERPASS | {"elements": [_printed(e, verbosity.group(1) or "body") for e in found]}, []


def _stats(ident: int, tags: dict[str, str]) -> dict[str, Any]:
    return {"type": "stat", "id": ident, "tags": tags}


def _changeset(state: State, comment: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A changeset opened and closed around one edit, by the tools' account."""
    last = changesets(state)[-1]
    start = dt.datetime.strptime(last["closed_at"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=dt.UTC)
    times = [(start + dt.timedelta(minutes=m)).strftime("%Y-%m-%dT%H:%M:%SZ") for m in (9, 10)]
    user = state["user"]
    opened = {"id": last["id"] + 17, "created_at": times[0], "closed_at": times[1], "open": False}
    opened |= {"comments_count": 0, "changes_count": 1, "uid": user["id"]}
    opened |= {"user": user["display_name"], "tags": {"comment": comment}}
    opened["tags"]["created_by"] = "osm-mcp 0.4.1"
    return opened, [{"op": "add", "path": "/changesets/changesets/-", "value": opened}]


def _meta(changeset: dict[str, Any], version: int) -> dict[str, Any]:
    return {
        "timestamp": changeset["closed_at"],
        "version": version,
        "changeset": changeset["id"],
        "user": changeset["user"],
        "uid": changeset["uid"],
    }


def update_tags(state: State, args: dict[str, Any]) -> Answer:
    n, element = find(state, args["type"], args["id"])
    if int(args["version"]) != element["version"]:
        raise ToolError(
            f"409 Conflict: Version mismatch: Provided {args['version']}, server had: "
            f"{element['version']} of {args['type'].title()} {args['id']}"
        )
    opened, patch = _changeset(state, args.get("comment", "Updated tags"))
    at = pointer("map", "elements", n)
    tags = element.get("tags", {})
    if "tags" not in element:
        patch.append({"op": "add", "path": f"{at}/tags", "value": {}})
    for key, value in args["tags"].items():
        if value is None:
            if key in tags:
                patch.append({"op": "remove", "path": pointer("map", "elements", n, "tags", key)})
            continue
        op = "replace" if key in tags else "add"
        patch.append({"op": op, "path": pointer("map", "elements", n, "tags", key), "value": value})
    meta = _meta(opened, element["version"] + 1)
    patch += [{"op": "replace", "path": f"{at}/{k}", "value": v} for k, v in meta.items()]
    answer = {"changeset": opened["id"], "type": element["type"], "id": element["id"]}
    return answer | {"new_version": meta["version"]}, patch


def create_node(state: State, args: dict[str, Any]) -> Answer:
    opened, patch = _changeset(state, args.get("comment", "Added a node"))
    nodes = [e["id"] for e in elements(state) if e["type"] == "node"]
    node = {"type": "node", "id": max(nodes) + 1, "lat": args["lat"], "lon": args["lon"]}
    node |= _meta(opened, 1) | {"tags": dict(sorted(args["tags"].items()))}
    patch.append({"op": "add", "path": f"/map/elements/{boundary(state, 'node')}", "value": node})
    return {"changeset": opened["id"], "type": "node", "id": node["id"], "new_version": 1}, patch
