"""``confluence``: an operations team's Confluence Cloud space, as the REST API (v1) lists its
content with ``expand=body.storage,version,ancestors,metadata.labels``. A page's facts are not
fields: they are the rows of a Page Properties (``details``) macro in the XHTML storage-format
body, a person as ``<ri:user ri:account-id>`` (named only by the users list), a status as a
``status`` macro's ``title`` parameter, a date as ``<time datetime>``, a service as a link to
its page's title. The page tree is held only by each page's ``ancestors``; labels sit under
``metadata.labels``. Tools are the REST API's (a page by id, its labels, CQL search, a new
version saved with a properties row changed, labels added) and the Page Properties Report
macro's table and a summary of one property over it."""

from __future__ import annotations

import random
from typing import Any

from benchmarks.zoo.confluence_api import (
    add_labels,
    meets,
    report,
    search,
    set_property,
    summary,
)
from benchmarks.zoo.confluence_space import (
    SPACE,
    TEAMS,
    find_page,
    has_label,
    names,
    pages,
    properties,
    space,
    users,
)
from benchmarks.zoo.kit import WORDS, Answer, Planned, State, Tool, note_tool, prop
from benchmarks.zoo.shape import Shape

PAGE = {"page_id": prop("string", "The page's content id.")}
LABEL = prop("string", "A label, e.g. service or incident.")
ANCESTOR = prop("string", "Only pages below this page id.")


class Confluence(Shape):
    name = "confluence"
    title = "Operations assistant over a Confluence space"
    description = (
        f"The {SPACE} (Operations) space of Harrowby's Confluence Cloud: service pages filed "
        "under team pages and incident postmortems filed under month pages, each with a Page "
        "Properties table. Errors are text starting with 'Error:'."
    )
    note = ("jot", "text")

    def build(self, rng: random.Random, target_bytes: int) -> State:
        return space(rng, target_bytes)

    def tools(self) -> list[Tool]:
        return [
            Tool(
                "get_page",
                "GET /wiki/rest/api/content/{id}?expand=body.storage,version,ancestors,"
                "metadata.labels",
                PAGE,
                self._page,
                ("page_id",),
            ),
            Tool(
                "get_labels",
                "GET /wiki/rest/api/content/{id}/label",
                PAGE,
                self._labels,
                ("page_id",),
            ),
            Tool(
                "search_content",
                "GET /wiki/rest/api/content/search: pages meeting CQL clauses joined by AND "
                '(type = page, space = OPS, label = "...", ancestor = id, parent = id, title ~ '
                '"words", contributor = accountId, lastmodified >= / <= "YYYY-MM-DD"); pages '
                "without their body, in page order.",
                {
                    "cql": prop("string", "The CQL query."),
                    "limit": prop("integer", "Most results (default 25)."),
                },
                search,
                ("cql",),
            ),
            Tool(
                "page_properties_report",
                "The Page Properties Report of pages with a label (below an ancestor): one row "
                "per page, sorted by title, cells as the page renders them (people by display "
                "name, statuses by title, dates, linked page titles).",
                {"label": LABEL, "ancestor": ANCESTOR},
                report,
                ("label",),
            ),
            Tool(
                "summarize_page_property",
                "One Page Properties key over pages with a label (below an ancestor): counts "
                "per rendered value, or sum, mean, min and max when every value is a number.",
                {
                    "label": LABEL,
                    "property": prop("string", "The key, e.g. Status."),
                    "ancestor": ANCESTOR,
                },
                summary,
                ("label", "property"),
            ),
            Tool(
                "update_page_property",
                "Save a new version of a page with one Page Properties row changed (PUT "
                "/wiki/rest/api/content/{id}). People are accountIds, statuses titles (e.g. "
                "RESOLVED, SEV2), dates YYYY-MM-DD, a Service its page's title.",
                PAGE
                | {
                    "property": prop("string", "The key, e.g. Status."),
                    "value": prop("string", "The new value."),
                    "version": prop("integer", "The new version number: the current one + 1."),
                },
                set_property,
                ("page_id", "property", "value", "version"),
                effect="write",
            ),
            Tool(
                "add_labels",
                "POST /wiki/rest/api/content/{id}/label: add global labels.",
                PAGE | {"labels": prop("array", "Label names.", items={"type": "string"})},
                add_labels,
                ("page_id", "labels"),
                effect="write",
            ),
            note_tool("jot", "text", "Jot down a working note (answers nothing)."),
        ]

    def _page(self, state: State, args: dict[str, Any]) -> Answer:
        return find_page(state, args["page_id"])[1], []

    def _labels(self, state: State, args: dict[str, Any]) -> Answer:
        return find_page(state, args["page_id"])[1]["metadata"]["labels"], []

    def _filed(self, state: State) -> list[dict[str, Any]]:
        return [p for p in pages(state) if has_label(p, "service") or has_label(p, "incident")]

    def lookup(self, rng: random.Random, state: State) -> Planned:
        return Planned("lookup", "get_page", {"page_id": rng.choice(self._filed(state))["id"]})

    def nested_lookup(self, rng: random.Random, state: State) -> Planned:
        page = rng.choice(self._filed(state))
        return Planned("nested_lookup", "get_labels", {"page_id": page["id"]})

    def _cql(self, rng: random.Random, state: State) -> str:
        page = rng.choice(self._filed(state))
        day = page["version"]["when"][:10]
        options = [
            f'label = "{rng.choice(page["metadata"]["labels"]["results"])["name"]}"',
            f"ancestor = {rng.choice(page['ancestors'])['id']}",
            f'title ~ "{rng.choice(page["title"].split()[1:] or page["title"].split())}"',
            f'lastmodified >= "{day}"' if rng.random() < 0.5 else f'lastmodified <= "{day}"',
            f'contributor = "{page["version"]["by"]["accountId"]}"',
        ]
        rng.shuffle(options)
        chosen = ["type = page"] if rng.random() < 0.3 else []
        for option in options:
            chosen.append(option)
            cql = " AND ".join(chosen)
            if len(chosen) >= rng.randint(1, 4) and sum(meets(p, cql) for p in pages(state)) <= 25:
                break
        return " AND ".join(chosen)

    def search(self, rng: random.Random, state: State) -> Planned:
        return Planned("search", "search_content", {"cql": self._cql(rng, state)})

    def _scope(self, rng: random.Random, state: State) -> dict[str, Any]:
        """A label and the ancestor (a team or a month page) that keeps a report short."""
        page = rng.choice(self._filed(state))
        label = "service" if has_label(page, "service") else "incident"
        return {"label": label, "ancestor": page["ancestors"][-1]["id"]}

    def join(self, rng: random.Random, state: State) -> Planned:
        return Planned("join", "page_properties_report", self._scope(rng, state))

    def aggregate(self, rng: random.Random, state: State) -> Planned:
        args = self._scope(rng, state)
        keys = ["Tier", "Status", "Language", "Team"]
        if args["label"] == "incident":
            keys = ["Severity", "Duration (min)", "Status", "Service", "Incident lead"]
        if rng.random() < 0.3:
            del args["ancestor"]
        return Planned(
            "aggregate", "summarize_page_property", args | {"property": rng.choice(keys)}
        )

    def write(self, rng: random.Random, state: State) -> tuple[Planned, Planned]:
        page = rng.choice(self._filed(state))
        args: dict[str, Any] = {"page_id": page["id"]}
        if rng.random() < 0.3:
            args["labels"] = [
                rng.choice(
                    [
                        "postmortem-done",
                        "needs-review",
                        "customer-facing",
                        f"q{rng.randint(1, 4)}-2025",
                    ]
                )
            ]
            if args["labels"][0] in {lab["name"] for lab in page["metadata"]["labels"]["results"]}:
                args["labels"] = [f"{rng.choice(WORDS)}-review"]
            planned = Planned("write", "add_labels", args)
            return planned, Planned("read_after_write", "get_labels", {"page_id": page["id"]})
        shown = properties(page, names(state))
        people = [u["accountId"] for u in users(state)[:-1]]
        if "Severity" in shown:
            choices = [
                ("Status", rng.choice(["RESOLVED", "OPEN"])),
                ("Severity", rng.choice(["SEV1", "SEV2", "SEV3"])),
            ]
            choices += [
                ("Incident lead", rng.choice(people)),
                ("Duration (min)", str(rng.randint(5, 300))),
            ]
        else:
            choices = [
                ("Status", rng.choice(["PRODUCTION", "BETA", "DEPRECATED"])),
                ("Owner", rng.choice(people)),
            ]
            choices += [("Tier", str(rng.randint(1, 3))), ("Team", rng.choice(TEAMS))]
        key, value = rng.choice(choices)
        args |= {"property": key, "value": value, "version": page["version"]["number"] + 1}
        planned = Planned("write", "update_page_property", args)
        return planned, Planned("read_after_write", "get_page", {"page_id": page["id"]})

    def no_match(self, rng: random.Random, state: State) -> Planned:
        cql = rng.choice(
            ['label = "incident" AND title ~ "kubernetes"', 'lastmodified >= "2026-01-01"']
        )
        return Planned("empty", "search_content", {"cql": f"space = {SPACE} AND {cql}"})
