"""The editing API 0.6 of the ``osm`` shape, answering as ``api.openstreetmap.org`` does in
JSON: an element; a way with its nodes; the relations an element is a member of; the ways a
node is in; and writes that open a changeset as the tools' account, check the version the
editor read (409 on a mismatch), bump it and add the closed changeset."""

from __future__ import annotations

import datetime as dt
from typing import Any

from benchmarks.zoo.kit import Answer, State, ToolError, pointer
from benchmarks.zoo.osm_map import ENVELOPE, boundary, changesets, elements


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
