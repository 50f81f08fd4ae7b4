"""``helpdesk``: free-text documents: knowledge-base articles (slug, title, summary, sections
of prose, tags) in an array under ``kb``; free-text search with ``q``, sections looked up by
(slug, heading), related articles linked by slug, reader feedback written back."""

from __future__ import annotations

import random
from typing import Any

from benchmarks.zoo.kit import (
    WORDS,
    Answer,
    Filter,
    Planned,
    Search,
    State,
    Tool,
    ToolError,
    day,
    fill,
    names,
    note_tool,
    person,
    pointer,
    prop,
    size_of,
    summary,
)
from benchmarks.zoo.shape import Shape

PRODUCTS = ["router", "thermostat", "doorbell", "speaker", "camera", "hub"]
TAGS = ["setup", "wifi", "billing", "firmware", "reset", "battery", "account", "privacy"]
VERBS = names("restart check update pair unplug reset open confirm enable disable")
NOUNS = names("app firmware cable password button light account schedule network battery")
HEADINGS = ["Before you start", "Steps", "If it still fails", "Background", "See also"]


def _sentence(rng: random.Random) -> str:
    return (
        f"{rng.choice(VERBS).title()} the {rng.choice(WORDS)} {rng.choice(NOUNS)} "
        f"{rng.choice(['before', 'after', 'while', 'unless'])} the {rng.choice(NOUNS)} "
        f"shows {rng.choice(WORDS)}."
    )


def _articles(state: State) -> list[tuple[str, dict[str, Any]]]:
    return [(a["slug"], a) for a in state["kb"]["articles"]]


class Helpdesk(Shape):
    name = "helpdesk"
    title = "Smart-home support knowledge base"
    description = (
        "The knowledge base of a smart-home device maker's support team: articles with "
        "sections of instructions, tags and reader feedback. JSON answers; errors are text "
        "starting with 'Error:'."
    )

    def __init__(self) -> None:
        self.finder = Search(
            "search_articles",
            "Articles whose summary holds the words of q, by product, tag or last update.",
            _articles,
            [
                Filter("q", "summary", "contains", prop("string", "Free-text query.")),
                Filter("product", "product", "eq", prop("string", "Product.", enum=PRODUCTS)),
                Filter("tag", "tags", "has", prop("string", "Tag.", enum=TAGS)),
                Filter("updated_since", "updated", "ge", prop("string", "YYYY-MM-DD.")),
            ],
            lambda _, a: {"slug": a["slug"], "title": a["title"], "summary": a["summary"]},
            limit=10,
        )

    def build(self, rng: random.Random, target_bytes: int) -> State:
        state: State = {"kb": {"articles": []}}
        articles = state["kb"]["articles"]

        def article() -> None:
            product = rng.choice(PRODUCTS)
            verb, noun = rng.choice(VERBS), rng.choice(NOUNS)
            slug = f"{product}-{verb}-{noun}-{len(articles) + 1}"
            first, last = person(rng)
            articles.append(
                {
                    "slug": slug,
                    "title": f"How to {verb} the {noun} of your {product}",
                    "product": product,
                    "summary": " ".join(_sentence(rng) for _ in range(2)),
                    "sections": [
                        {
                            "heading": h,
                            "body": " ".join(_sentence(rng) for _ in range(rng.randint(3, 9))),
                        }
                        for h in HEADINGS[: rng.randint(2, len(HEADINGS))]
                    ],
                    "tags": rng.sample(TAGS, rng.randint(1, 3)),
                    "updated": day(rng, rng.randint(2019, 2025)),
                    "author": {
                        "name": f"{first} {last}",
                        "team": rng.choice(["tier1", "tier2", "docs"]),
                    },
                    "related": [
                        a["slug"]
                        for a in rng.sample(articles, min(len(articles), rng.randint(0, 3)))
                    ],
                    "votes": {"up": rng.randint(0, 300), "down": rng.randint(0, 60)},
                    "feedback": [],
                }
            )

        fill(article, lambda: size_of(state), target_bytes)
        return state

    def tools(self) -> list[Tool]:
        slug = {"slug": prop("string", "Article slug.")}
        return [
            Tool("get_article", "An article.", slug, self._article, ("slug",)),
            Tool(
                "get_section",
                "One section of an article, by heading.",
                slug | {"heading": prop("string", "Section heading.")},
                self._section,
                ("slug", "heading"),
            ),
            self.finder.tool(),
            Tool(
                "related_articles",
                "The articles an article links to.",
                slug,
                self._related,
                ("slug",),
            ),
            Tool(
                "kb_stats",
                "For a product: how many articles, their tags, and the most up-votes.",
                {"product": prop("string", "Product.", enum=PRODUCTS)},
                self._stats,
                ("product",),
            ),
            Tool(
                "leave_feedback",
                "Record a reader's rating (1-5) and comment on an article.",
                slug | {"rating": prop("integer", "1 to 5."), "comment": prop("string", "Text.")},
                self._feedback,
                ("slug", "rating", "comment"),
                effect="write",
            ),
            Tool(
                "get_feedback",
                "An article's reader feedback and votes.",
                slug,
                self._get_feedback,
                ("slug",),
            ),
            note_tool("think", "thought", "Think (answers nothing)."),
        ]

    def _find(self, state: State, slug: str) -> tuple[int, dict[str, Any]]:
        for i, item in enumerate(state["kb"]["articles"]):
            if item["slug"] == slug:
                return i, item
        raise ToolError("article not found")

    def _article(self, state: State, args: dict[str, Any]) -> Answer:
        return self._find(state, args["slug"])[1], []

    def _section(self, state: State, args: dict[str, Any]) -> Answer:
        for section in self._find(state, args["slug"])[1]["sections"]:
            if section["heading"] == args["heading"]:
                return section, []
        raise ToolError("no such section")

    def _related(self, state: State, args: dict[str, Any]) -> Answer:
        linked = self._find(state, args["slug"])[1]["related"]
        return [
            {k: a[k] for k in ("slug", "title", "product", "updated")}
            for a in (self._find(state, s)[1] for s in linked)
        ], []

    def _stats(self, state: State, args: dict[str, Any]) -> Answer:
        chosen = [a for a in state["kb"]["articles"] if a["product"] == args["product"]]
        return {
            "product": args["product"],
            "articles": len(chosen),
            "tags": summary("distinct", [t for a in chosen for t in a["tags"]]),
            "most_upvotes": summary("max", [a["votes"]["up"] for a in chosen]),
        }, []

    def _feedback(self, state: State, args: dict[str, Any]) -> Answer:
        index, found = self._find(state, args["slug"])
        entry = {"rating": args["rating"], "comment": args["comment"], "at": "2026-03-01"}
        field = "up" if args["rating"] >= 3 else "down"
        votes = found["votes"][field] + 1
        at = pointer("kb", "articles", index)
        return {
            "slug": args["slug"],
            "recorded": entry,
            "votes": {**found["votes"], field: votes},
        }, [
            {"op": "add", "path": f"{at}/feedback/-", "value": entry},
            {"op": "replace", "path": f"{at}/votes/{field}", "value": votes},
        ]

    def _get_feedback(self, state: State, args: dict[str, Any]) -> Answer:
        found = self._find(state, args["slug"])[1]
        return {"slug": args["slug"], "votes": found["votes"], "feedback": found["feedback"]}, []

    def _any(self, rng: random.Random, state: State) -> dict[str, Any]:
        chosen: dict[str, Any] = rng.choice(state["kb"]["articles"])
        return chosen

    def lookup(self, rng: random.Random, state: State) -> Planned:
        return Planned("lookup", "get_article", {"slug": self._any(rng, state)["slug"]})

    def nested_lookup(self, rng: random.Random, state: State) -> Planned:
        found = self._any(rng, state)
        heading = rng.choice(found["sections"])["heading"]
        return Planned("nested_lookup", "get_section", {"slug": found["slug"], "heading": heading})

    def search(self, rng: random.Random, state: State) -> Planned:
        return Planned("search", "search_articles", self.finder.plan(rng, state))

    def join(self, rng: random.Random, state: State) -> Planned:
        linked = [a for a in state["kb"]["articles"] if a["related"]]
        return Planned("join", "related_articles", {"slug": rng.choice(linked)["slug"]})

    def aggregate(self, rng: random.Random, state: State) -> Planned:
        return Planned("aggregate", "kb_stats", {"product": rng.choice(PRODUCTS)})

    def write(self, rng: random.Random, state: State) -> tuple[Planned, Planned]:
        slug = self._any(rng, state)["slug"]
        args = {"slug": slug, "rating": rng.randint(1, 5), "comment": _sentence(rng)}
        return Planned("write", "leave_feedback", args), Planned(
            "read_after_write", "get_feedback", {"slug": slug}
        )

    def no_match(self, rng: random.Random, state: State) -> Planned:
        return Planned(
            "empty", "search_articles", {"q": "xylophone", "product": rng.choice(PRODUCTS)}
        )
