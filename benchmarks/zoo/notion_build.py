"""How the ``notion`` shape's workspace is made: projects and their tasks as database pages,
with page content as block trees (a toggle's children under its own id), and each project's
rollups computed over its tasks as Notion computes them."""

from __future__ import annotations

import random
from typing import Any

from benchmarks.zoo.kit import State, fill, size_of
from benchmarks.zoo.notion_pages import (
    CODE_WORDS,
    EMOJI,
    NOUNS,
    PLAIN,
    VERBS,
    children,
    date_value,
    listed,
    pages,
    rollup,
    run,
    schemas,
    sentence,
    stamp,
    title_runs,
    user_ref,
    users,
    uuid,
)

ROLLUPS = ("Estimate total", "Progress", "Latest due")
ENDINGS = ["revamp", "launch", "v2", "cleanup", "beta", "rollout", "pilot"]


class Workspace:
    def __init__(self, rng: random.Random, state: State) -> None:
        self.rng, self.state, self.minute = rng, state, 0
        self.people = [u for u in state["users"]["results"] if u["type"] == "person"]
        self.projects: list[dict[str, Any]] = []
        self.counts = {"PRJ": 0, "TSK": 0}
        self.db = {plain_title(d): d for d in state["databases"]}

    def tick(self) -> str:
        self.minute += self.rng.randint(3, 400)
        return stamp(self.minute)

    def page(self, db: str, properties: dict[str, Any], icon: str | None) -> dict[str, Any]:
        rng = self.rng
        ident, by = uuid(rng), user_ref(rng.choice(self.people)["id"])
        made = self.tick()
        title = next(v for v in properties.values() if v["type"] == "title")["title"]
        text = "".join(r["plain_text"] for r in title)
        slug = "-".join("".join(c for c in text if c.isalnum() or c == " ").split())
        page = {
            "object": "page",
            "id": ident,
            "created_time": made,
            "last_edited_time": made,
            "created_by": by,
            "last_edited_by": by,
            "cover": None,
            "icon": {"type": "emoji", "emoji": icon} if icon else None,
            "parent": {"type": "database_id", "database_id": self.db[db]["id"]},
            "archived": False,
            "in_trash": False,
            "properties": properties,
            "url": f"https://www.notion.so/{slug}-{ident.replace('-', '')}",
            "public_url": None,
        }
        pages(self.state).append(page)
        self.state["blocks"][ident] = children([])
        return page

    def values(self, db: str, contents: dict[str, Any]) -> dict[str, Any]:
        schema = self.db[db]["properties"]
        return {
            name: {"id": schema[name]["id"], "type": schema[name]["type"]}
            | {schema[name]["type"]: content}
            for name, content in contents.items()
        }

    def pick(self, db: str, name: str) -> dict[str, Any]:
        kind = self.db[db]["properties"][name]["type"]
        chosen = self.rng.choice(self.db[db]["properties"][name][kind]["options"])
        return {k: chosen[k] for k in ("id", "name", "color")}

    def tags(self, count: int) -> list[dict[str, Any]]:
        options = self.db["Projects"]["properties"]["Tags"]["multi_select"]["options"]
        chosen = sorted(self.rng.sample(options, count), key=lambda o: o["name"])
        return [{k: o[k] for k in ("id", "name", "color")} for o in chosen]

    def unique(self, prefix: str) -> dict[str, Any]:
        self.counts[prefix] += 1
        return {"prefix": prefix, "number": self.counts[prefix]}

    def block(
        self, parent: str, kind: str, content: dict[str, Any], under: str = "page_id"
    ) -> dict[str, Any]:
        by = user_ref(self.rng.choice(self.people)["id"])
        made = self.tick()
        block: dict[str, Any] = {"object": "block", "id": uuid(self.rng)}
        block["parent"] = {"type": under, under: parent}
        block |= {"created_time": made, "last_edited_time": made, "created_by": by}
        block |= {"last_edited_by": by, "has_children": False, "archived": False}
        block |= {"in_trash": False, "type": kind, kind: content | {"color": "default"}}
        self.state["blocks"].setdefault(parent, children([]))["results"].append(block)
        return block

    def text(
        self, parent: str, kind: str, words: str, under: str = "page_id", **extra: Any
    ) -> dict[str, Any]:
        return self.block(parent, kind, {"rich_text": [run(words)]} | extra, under)

    def add_project(self) -> None:
        rng = self.rng
        name = f"{rng.choice(NOUNS).capitalize()} {rng.choice(ENDINGS)}"
        start = stamp(self.minute + rng.randint(0, 20_000))[:10]
        end = stamp(self.minute + rng.randint(30_000, 120_000))[:10]
        owner = rng.choice(self.people)
        contents = {
            "Name": title_runs(rng, name),
            "Status": self.pick("Projects", "Status"),
            "Owner": [owner],
            "Budget": rng.randrange(5_000, 250_000, 500),
            "Quarter": self.pick("Projects", "Quarter"),
            "Tags": self.tags(rng.randint(1, 3)),
            "Dates": {"start": start, "end": end, "time_zone": None},
            "Tasks": [],
        }
        properties = self.values("Projects", contents)
        properties["Tasks"]["has_more"] = False
        for name_ in ROLLUPS:
            properties |= self.values("Projects", {name_: {}})
        properties |= self.values("Projects", {"Code": self.unique("PRJ")})
        page = self.page("Projects", properties, rng.choice(EMOJI))
        self.projects.append(page)
        ident = page["id"]
        self.text(ident, "heading_2", "Goals", is_toggleable=False)
        self.text(ident, "paragraph", sentence(rng))
        for _ in range(rng.randint(1, 3)):
            self.text(ident, "bulleted_list_item", sentence(rng))
        self.text(ident, "heading_2", "Checklist", is_toggleable=False)
        for _ in range(rng.randint(1, 3)):
            self.text(ident, "to_do", sentence(rng), checked=rng.random() < 0.4)
        toggle = self.text(ident, "toggle", f"Meeting notes {start}")
        toggle["has_children"] = True
        for _ in range(rng.randint(1, 3)):
            self.text(toggle["id"], "paragraph", sentence(rng), "block_id")
        follow = f"Follow up with {owner['name']}"
        self.text(toggle["id"], "to_do", follow, "block_id", checked=False)
        note = self.block(ident, "callout", {"rich_text": [run(f"Budget owner: {owner['name']}")]})
        note["callout"]["icon"] = {"type": "emoji", "emoji": "\u2139\ufe0f"}
        note["callout"]["color"] = "gray_background"

    def add_task(self) -> None:
        rng = self.rng
        if not self.projects or rng.random() < 0.08:
            self.add_project()
        project = rng.choice(self.projects[-6:])
        words = f"{rng.choice(VERBS)} {rng.choice(NOUNS)}"
        if rng.random() < 0.25:
            words += f" for {rng.choice(CODE_WORDS)}"
        mention = rng.choice(self.people)
        notes = [run(sentence(rng) + " ")]
        if rng.random() < 0.4:
            notes.append(
                {
                    "type": "mention",
                    "mention": {"type": "user", "user": user_ref(mention["id"])},
                    "annotations": PLAIN,
                    "plain_text": f"@{mention['name']}",
                    "href": None,
                }
            )
        due = stamp(self.minute + rng.randint(-5_000, 60_000))[:10]
        contents = {
            "Task": title_runs(rng, words),
            "Project": [{"id": project["id"]}],
            "Assignee": [rng.choice(self.people)] if rng.random() < 0.85 else [],
            "Done": rng.random() < 0.35,
            "Estimate": rng.choice([1, 2, 3, 5, 8, 13, None]),
            "Priority": self.pick("Tasks", "Priority") if rng.random() < 0.8 else None,
            "Due": date_value(due if rng.random() < 0.75 else None),
            "Notes": notes,
            "ID": self.unique("TSK"),
        }
        properties = self.values("Tasks", contents)
        properties["Project"]["has_more"] = False
        task = self.page("Tasks", properties, None)
        project["properties"]["Tasks"]["relation"].append({"id": task["id"]})
        if rng.random() < 0.4:
            self.text(task["id"], "paragraph", sentence(rng))
            for _ in range(rng.randint(1, 3)):
                self.text(task["id"], "to_do", sentence(rng), checked=rng.random() < 0.5)


def plain_title(db: dict[str, Any]) -> str:
    return "".join(r["plain_text"] for r in db["title"])


def _database(ident: str, title: str, properties: Any, by: dict[str, str]) -> dict[str, Any]:
    return {
        "object": "database",
        "id": ident,
        "cover": None,
        "icon": {"type": "emoji", "emoji": "\u2611\ufe0f" if title == "Tasks" else "\u2693"},
        "created_time": "2024-11-04T09:30:00.000Z",
        "created_by": by,
        "last_edited_by": by,
        "last_edited_time": "2025-01-02T16:05:00.000Z",
        "title": [run(title)],
        "description": [],
        "is_inline": False,
        "properties": properties,
        "parent": {"type": "workspace", "workspace": True},
        "url": f"https://www.notion.so/{ident.replace('-', '')}",
        "public_url": None,
        "archived": False,
        "in_trash": False,
    }


def workspace(rng: random.Random, target_bytes: int) -> State:
    """The workspace, tasks added until it is about ``target_bytes``."""
    people = users(rng)
    projects_id, tasks_id = uuid(rng), uuid(rng)
    projects, tasks = schemas(rng, projects_id, tasks_id)
    state: State = {"users": listed(people, "user")}
    state["databases"] = [
        _database(projects_id, "Projects", projects, user_ref(people[0]["id"])),
        _database(tasks_id, "Tasks", tasks, user_ref(people[0]["id"])),
    ]
    state |= {"pages": [], "blocks": {}}
    maker = Workspace(rng, state)
    for _ in range(4):
        maker.add_task()
    fill(maker.add_task, lambda: size_of(state), target_bytes)
    for project in maker.projects:
        for name in ROLLUPS:
            project["properties"][name]["rollup"] = rollup(state, project, name)
    return state
