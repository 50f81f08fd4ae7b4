"""``notion``: a product team's Notion workspace as the public API serves it: two databases
(Projects, Tasks) with their property schemas, every page of them with properties keyed by
name as typed value objects under short property ids (rich-text runs, option objects, user
objects, relations of page ids, rollups Notion computed, ``{"start", "end", "time_zone"}``
dates, ``unique_id`` prefixes), and page content as block trees saved per parent (a toggle's
children under its own id). Tools are the API's: retrieve a page or a database, a page
property item (paginated text, people and relations; a rollup with the related pages' items),
query a database with a typed filter and sorts, search titles, a block's children, update a
page's properties and append blocks."""

from __future__ import annotations

import random
from typing import Any

from benchmarks.zoo.kit import Planned, State, Tool, note_tool, prop
from benchmarks.zoo.notion_api import (
    append_block_children,
    retrieve_block_children,
    retrieve_database,
    retrieve_page,
    retrieve_page_property,
    update_page,
)
from benchmarks.zoo.notion_build import ROLLUPS, workspace
from benchmarks.zoo.notion_pages import PRIORITIES, STATUSES, database, in_database, plain
from benchmarks.zoo.notion_query import compound, conditions, matching, query_database, search
from benchmarks.zoo.shape import Shape

PAGE = {"page_id": prop("string", "Page id (UUID).")}
DATABASE = {"database_id": prop("string", "Database id (UUID).")}
PROPERTY_OUT = {
    "type": "object",
    "properties": {
        "object": {"type": "string", "enum": ["property_item", "list"]},
        "type": {"type": "string"},
        "results": {"type": "array"},
        "property_item": {"type": "object"},
    },
    "required": ["object", "type"],
}
PAGING = {
    "page_size": prop("integer", "At most this many results (default 100)."),
    "start_cursor": prop("string", "next_cursor of the previous page."),
}


def _text(kind: str, words: str, **extra: Any) -> dict[str, Any]:
    rich = [{"type": "text", "text": {"content": words}}]
    return {"object": "block", "type": kind, kind: {"rich_text": rich} | extra}


class Notion(Shape):
    name = "notion"
    title = "Project assistant over a Notion workspace"
    description = (
        "Northwind's product team workspace in Notion: the Projects and Tasks databases, their "
        "pages and the pages' content, reached through the Notion API as the integration "
        "'Roadmap Assistant'. Errors are text starting with 'Error:'."
    )
    note = ("scratchpad", "text")

    def build(self, rng: random.Random, target_bytes: int) -> State:
        return workspace(rng, target_bytes)

    def tools(self) -> list[Tool]:
        block = {"block_id": prop("string", "Block or page id (UUID).")}
        return [
            Tool("retrieve_page", "GET /v1/pages/{page_id}", PAGE, retrieve_page, ("page_id",)),
            Tool(
                "retrieve_database",
                "GET /v1/databases/{database_id}: a database and its property schema.",
                DATABASE,
                retrieve_database,
                ("database_id",),
            ),
            Tool(
                "retrieve_page_property",
                "GET /v1/pages/{page_id}/properties/{property_id}: one property item (title, "
                "rich_text, people, relation and rollup values are paginated lists).",
                PAGE | {"property_id": prop("string", "The property's id.")} | PAGING,
                retrieve_page_property,
                ("page_id", "property_id"),
                output=PROPERTY_OUT,
            ),
            Tool(
                "query_database",
                "POST /v1/databases/{database_id}/query: pages meeting a filter, sorted.",
                DATABASE
                | {"filter": prop("object", "A property filter, or an and/or compound.")}
                | {"sorts": prop("array", "Sort objects.", items={"type": "object"})}
                | PAGING,
                query_database,
                ("database_id",),
            ),
            Tool(
                "search",
                "POST /v1/search: pages and databases whose title contains the query.",
                {"query": prop("string", "Text in the title.")}
                | {"filter": prop("object", '{"property": "object", "value": "page"}')}
                | PAGING,
                search,
            ),
            Tool(
                "retrieve_block_children",
                "GET /v1/blocks/{block_id}/children: a page's or block's child blocks.",
                block | PAGING,
                retrieve_block_children,
                ("block_id",),
            ),
            Tool(
                "update_page",
                "PATCH /v1/pages/{page_id}: set property values (by name).",
                PAGE | {"properties": prop("object", "Property name to value object.")},
                update_page,
                ("page_id", "properties"),
                effect="write",
            ),
            Tool(
                "append_block_children",
                "PATCH /v1/blocks/{block_id}/children: add blocks at the end.",
                block | {"children": prop("array", "Block objects.", items={"type": "object"})},
                append_block_children,
                ("block_id", "children"),
                effect="write",
            ),
            note_tool("scratchpad", "text", "Write down a working note (answers nothing)."),
        ]

    def lookup(self, rng: random.Random, state: State) -> Planned:
        if rng.random() < 0.1:
            ident = rng.choice(state["databases"])["id"]
            return Planned("lookup", "retrieve_database", {"database_id": ident})
        title = rng.choice(["Tasks", "Tasks", "Projects"])
        return Planned(
            "lookup", "retrieve_page", {"page_id": rng.choice(in_database(state, title))["id"]}
        )

    def nested_lookup(self, rng: random.Random, state: State) -> Planned:
        project = rng.choice(in_database(state, "Projects"))
        if rng.random() < 0.45:
            listed = state["blocks"][project["id"]]["results"]
            toggles = [b["id"] for b in listed if b["has_children"]]
            ident = rng.choice([project["id"], *toggles])
            return Planned("nested_lookup", "retrieve_block_children", {"block_id": ident})
        page = rng.choice([project, *in_database(state, "Tasks")[-40:]])
        names = [k for k, v in page["properties"].items() if v["type"] != "rollup"]
        ident = page["properties"][rng.choice(names)]["id"]
        args = {"page_id": page["id"], "property_id": ident}
        return Planned("nested_lookup", "retrieve_page_property", args)

    def search(self, rng: random.Random, state: State) -> Planned:
        title = rng.choice(["Tasks", "Tasks", "Projects"])
        page = rng.choice(in_database(state, title))
        if rng.random() < 0.15:
            words = plain(page["properties"][next(iter(page["properties"]))]["title"])
            found = {"query": words, "filter": {"property": "object", "value": "page"}}
            return Planned("search", "search", found | {"page_size": 10})
        ident = database(state, title)["id"]
        chosen: list[dict[str, Any]] = []
        wanted = rng.randint(1, 4)
        for condition in conditions(rng, page):
            chosen.append(condition)
            if len(chosen) >= wanted and len(matching(state, ident, compound(chosen))) <= 10:
                break
        args: dict[str, Any] = {"database_id": ident, "filter": compound(chosen)}
        if rng.random() < 0.3:
            sort = "Due" if title == "Tasks" else "Budget"
            args["sorts"] = [
                {"property": sort, "direction": rng.choice(["ascending", "descending"])}
            ]
        return Planned("search", "query_database", args)

    def join(self, rng: random.Random, state: State) -> Planned:
        project = rng.choice(in_database(state, "Projects"))
        conditions: list[dict[str, Any]] = [
            {"property": "Project", "relation": {"contains": project["id"]}}
        ]
        if rng.random() < 0.4:
            conditions.append({"property": "Done", "checkbox": {"equals": False}})
        args = {"database_id": database(state, "Tasks")["id"], "filter": compound(conditions)}
        return Planned("join", "query_database", args)

    def aggregate(self, rng: random.Random, state: State) -> Planned:
        project = rng.choice(in_database(state, "Projects"))
        ident = project["properties"][rng.choice(ROLLUPS)]["id"]
        args = {"page_id": project["id"], "property_id": ident}
        return Planned("aggregate", "retrieve_page_property", args)

    def write(self, rng: random.Random, state: State) -> tuple[Planned, Planned]:
        roll = rng.random()
        if roll < 0.3:
            page = rng.choice(in_database(state, rng.choice(["Tasks", "Projects"])))
            kind = rng.choice(["to_do", "paragraph", "bulleted_list_item"])
            extra = {"checked": False} if kind == "to_do" else {}
            words = rng.choice(["Confirm the launch date with legal", "Ask finance for sign-off"])
            args = {"block_id": page["id"], "children": [_text(kind, words, **extra)]}
            return Planned("write", "append_block_children", args), Planned(
                "read_after_write", "retrieve_block_children", {"block_id": page["id"]}
            )
        if roll < 0.55:
            page = rng.choice(in_database(state, "Projects"))
            status = [
                s[0] for s in STATUSES if s[0] != page["properties"]["Status"]["status"]["name"]
            ]
            choices: dict[str, Any] = {
                "Status": {"status": {"name": rng.choice(status)}},
                "Budget": {"number": rng.randrange(5_000, 250_000, 500)},
            }
        else:
            page = rng.choice(in_database(state, "Tasks"))
            people = [u for u in state["users"]["results"] if u["type"] == "person"]
            choices = {
                "Done": {"checkbox": not page["properties"]["Done"]["checkbox"]},
                "Estimate": {"number": rng.choice([1, 2, 3, 5, 8, 13, 21])},
                "Due": {"date": {"start": f"2026-0{rng.randint(1, 6)}-{rng.randint(10, 28)}"}},
                "Priority": {"select": {"name": rng.choice(PRIORITIES)}},
                "Assignee": {"people": [{"object": "user", "id": rng.choice(people)["id"]}]},
            }
        picked = rng.sample(sorted(choices), rng.randint(1, min(3, len(choices))))
        args = {"page_id": page["id"], "properties": {k: choices[k] for k in picked}}
        return Planned("write", "update_page", args), Planned(
            "read_after_write", "retrieve_page", {"page_id": page["id"]}
        )

    def no_match(self, rng: random.Random, state: State) -> Planned:
        tasks = database(state, "Tasks")["id"]
        where = rng.choice(
            [
                {"property": "Estimate", "number": {"greater_than": 100}},
                {"property": "Task", "title": {"contains": "quarterly offsite"}},
                {
                    "and": [
                        {"property": "Done", "checkbox": {"equals": True}},
                        {"property": "Due", "date": {"after": "2031-01-01"}},
                    ]
                },
            ]
        )
        return Planned("empty", "query_database", {"database_id": tasks, "filter": where})
