"""The Notion API of the ``notion`` shape, as the public API (version 2022-06-28) answers:
retrieve a page or a database; retrieve a page property item (text, people and relations as a
paginated list of items; a rollup computed over the related pages, their items listed);
query a database with a typed filter (a property's type named in the condition, ``and``/``or``
compounds) and sorts; search titles; a block's children; updating a page's properties (its
project's rollups recomputed) and appending blocks, both by the integration's bot user."""

from __future__ import annotations

import datetime as dt
import random
from typing import Any

from benchmarks.zoo.kit import Answer, State, ToolError, pointer
from benchmarks.zoo.notion_pages import (
    children,
    date_value,
    listed,
    pages,
    rollup,
    run,
    user_ref,
    uuid,
)
from benchmarks.zoo.notion_query import paged

PAGINATED = ("title", "rich_text", "people", "relation", "rollup")
ROLLED = ("Estimate", "Done", "Due")


def _missing(kind: str, ident: str) -> ToolError:
    return ToolError(
        f"object_not_found: Could not find {kind} with ID: {ident}. Make sure the relevant "
        "pages and databases are shared with your integration."
    )


def find_page(state: State, ident: str) -> tuple[int, dict[str, Any]]:
    for n, page in enumerate(pages(state)):
        if page["id"] == ident:
            return n, page
    raise _missing("page", ident)


def retrieve_page(state: State, args: dict[str, Any]) -> Answer:
    return find_page(state, args["page_id"])[1], []


def retrieve_database(state: State, args: dict[str, Any]) -> Answer:
    for db in state["databases"]:
        if db["id"] == args["database_id"]:
            return db, []
    raise _missing("database", args["database_id"])


def _item(ident: str, kind: str, content: Any) -> dict[str, Any]:
    return {"object": "property_item", "id": ident, "type": kind, kind: content}


def retrieve_page_property(state: State, args: dict[str, Any]) -> Answer:
    _, page = find_page(state, args["page_id"])
    named = [(k, v) for k, v in page["properties"].items() if v["id"] == args["property_id"]]
    if not named:
        raise ToolError(f"validation_error: Could not find property with id {args['property_id']}")
    ((name, value),) = named
    kind, ident = value["type"], value["id"]
    if kind not in PAGINATED:
        return _item(ident, kind, value[kind]), []
    summary: dict[str, Any] = {}
    if kind == "rollup":
        summary = rollup(state, page, name)
        related = {r["id"] for r in page["properties"]["Tasks"]["relation"]}
        of = _database_of(state, page)["properties"][name]["rollup"]["rollup_property_name"]
        results = [
            _item(p["properties"][of]["id"], p["properties"][of]["type"], _content(p, of))
            for p in pages(state)
            if p["id"] in related
        ]
    else:
        results = [_item(ident, kind, part) for part in value[kind]]
    head = {"id": ident, "next_url": None, "type": kind, kind: summary}
    return listed(results, "property_item") | {"property_item": head}, []


def _database_of(state: State, page: dict[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = next(
        d for d in state["databases"] if d["id"] == page["parent"]["database_id"]
    )
    return found


def _content(page: dict[str, Any], name: str) -> Any:
    value = page["properties"][name]
    return value[value["type"]]


def retrieve_block_children(state: State, args: dict[str, Any]) -> Answer:
    found = state["blocks"].get(args["block_id"])
    if found is None:
        raise _missing("block", args["block_id"])
    return paged(found["results"], args, "block"), []


def _now(state: State) -> str:
    latest = max(p["last_edited_time"] for p in pages(state))
    moment = dt.datetime.strptime(latest, "%Y-%m-%dT%H:%M:%S.000Z") + dt.timedelta(minutes=1)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.000Z")


def _bot(state: State) -> dict[str, str]:
    return user_ref(next(u for u in state["users"]["results"] if u["type"] == "bot")["id"])


def _value(state: State, schema: dict[str, Any], given: dict[str, Any]) -> Any:
    kind = schema["type"]
    content = given[kind]
    if kind in ("select", "status"):
        options = schema[kind]["options"]
        chosen = next((o for o in options if o["name"] == content["name"]), None)
        if chosen is None:
            raise ToolError(f'validation_error: Invalid {kind} option "{content["name"]}".')
        return {k: chosen[k] for k in ("id", "name", "color")}
    if kind == "date":
        return date_value(content["start"]) if content else None
    if kind == "people":
        users = {u["id"]: u for u in state["users"]["results"]}
        return [users[p["id"]] for p in content]
    if kind in ("title", "rich_text"):
        return [run(part["text"]["content"]) for part in content]
    return content


def update_page(state: State, args: dict[str, Any]) -> Answer:
    n, page = find_page(state, args["page_id"])
    db = _database_of(state, page)
    new = page | {"properties": dict(page["properties"])}
    patch = []
    for name, given in args["properties"].items():
        if name not in db["properties"]:
            raise ToolError(f"validation_error: {name} is not a property that exists.")
        value = _value(state, db["properties"][name], given)
        kind = db["properties"][name]["type"]
        new["properties"][name] = page["properties"][name] | {kind: value}
        patch.append(
            {"op": "replace", "path": pointer("pages", n, "properties", name, kind), "value": value}
        )
    now, bot = _now(state), _bot(state)
    new |= {"last_edited_time": now, "last_edited_by": bot}
    patch += [
        {"op": "replace", "path": f"/pages/{n}/last_edited_time", "value": now},
        {"op": "replace", "path": f"/pages/{n}/last_edited_by", "value": bot},
    ]
    if any(name in ROLLED for name in args["properties"]) and "Project" in page["properties"]:
        view = state | {"pages": [new if p is page else p for p in pages(state)]}
        for ref in page["properties"]["Project"]["relation"]:
            m, project = find_page(state, ref["id"])
            for name in ("Estimate total", "Progress", "Latest due"):
                computed = rollup(view, project, name)
                if computed != project["properties"][name]["rollup"]:
                    at = pointer("pages", m, "properties", name, "rollup")
                    patch.append({"op": "replace", "path": at, "value": computed})
    return new, patch


def append_block_children(state: State, args: dict[str, Any]) -> Answer:
    parent = args["block_id"]
    if parent not in state["blocks"]:
        raise _missing("block", parent)
    under = "page_id" if any(p["id"] == parent for p in pages(state)) else "block_id"
    made, bot = _now(state), _bot(state)
    rng = random.Random(f"{parent}/{len(state['blocks'][parent]['results'])}")
    added = []
    for given in args["children"]:
        kind = given["type"]
        content = given[kind] | {
            "rich_text": _value(
                state, {"type": "rich_text"}, {"rich_text": given[kind].get("rich_text", [])}
            )
        }
        block: dict[str, Any] = {"object": "block", "id": uuid(rng)}
        block["parent"] = {"type": under, under: parent}
        block |= {"created_time": made, "last_edited_time": made, "created_by": bot}
        block |= {"last_edited_by": bot, "has_children": False, "archived": False}
        block |= {"in_trash": False, "type": kind, kind: {"color": "default"} | content}
        added.append(block)
    at = pointer("blocks", parent, "results")
    patch = [{"op": "add", "path": f"{at}/-", "value": b} for b in added]
    return children(added), patch
