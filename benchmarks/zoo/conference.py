"""``conference`` (held out in the round that first measured it, a development shape since): a
JSON:API document, as many REST services export: talks in ``data`` as ``{"type", "id",
"attributes", "relationships", "links"}`` resources whose attribute names are kebab-case (tool
arguments are snake_case); speakers and rooms in ``included``, referenced as ``{"type", "id"}``
pairs (ids are numeric strings, unique only per type, so speaker "7" and room "7" are different
things); reviews keyed by reviewer handle inside a talk's attributes; the rooms a speaker talks
in is a join through the talks."""

from __future__ import annotations

import random
from typing import Any

from benchmarks.zoo.kit import (
    CITIES,
    Answer,
    Filter,
    Planned,
    Search,
    State,
    Tool,
    ToolError,
    fill,
    note_tool,
    person,
    pointer,
    prop,
    size_of,
    summary,
    words,
)
from benchmarks.zoo.shape import Shape

TRACKS = ["databases", "security", "frontend", "infrastructure", "data-science", "languages"]
LEVELS = ["beginner", "intermediate", "advanced"]
LANGUAGES = ["en", "de", "fr", "es"]
ORGS = ["Nordlys Labs", "Kestrel AG", "Umbra Systems", "Fjordbyte", "Palisade Cloud", "Orrery"]
BASE = "https://api.confhub.example/v2"


def _talks(state: State) -> list[tuple[str, dict[str, Any]]]:
    return [(t["id"], t) for t in state["data"]]


def _ref(kind: str, ident: str) -> dict[str, str]:
    return {"type": kind, "id": ident}


def _slot(rng: random.Random) -> str:
    return f"2025-10-{rng.randint(13, 17)}T{rng.randint(9, 17):02d}:{rng.choice(['00', '30'])}"


class Conference(Shape):
    name = "conference"
    title = "Conference programme API"
    description = (
        "A developer conference's programme service, speaking JSON:API: talks, speakers and "
        "rooms, with reviews of talks by the programme committee. Answers are JSON:API "
        "documents; times are local; errors are text starting with 'Error:'."
    )
    note = ("jot", "memo")

    def __init__(self) -> None:
        self.finder = Search(
            "search_talks",
            "Talks by track, level, language, length in minutes, title start or start time.",
            _talks,
            [
                Filter("track", "attributes.track", "eq", prop("string", "Track.", enum=TRACKS)),
                Filter("level", "attributes.level", "eq", prop("string", "Level.", enum=LEVELS)),
                Filter("language", "attributes.language", "eq", prop("string", "ISO 639-1.")),
                Filter(
                    "min_minutes",
                    "attributes.duration-minutes",
                    "ge",
                    prop("integer", "Shortest, minutes."),
                ),
                Filter(
                    "max_minutes",
                    "attributes.duration-minutes",
                    "le",
                    prop("integer", "Longest, minutes."),
                ),
                Filter("title_starts", "attributes.title", "prefix", prop("string", "Prefix.")),
                Filter("starts_after", "attributes.starts-at", "ge", prop("string", "ISO time.")),
            ],
            lambda key, t: {
                "type": "talks",
                "id": key,
                "attributes": {
                    k: t["attributes"][k]
                    for k in ("title", "track", "level", "duration-minutes", "starts-at")
                },
            },
            limit=15,
        )

    def build(self, rng: random.Random, target_bytes: int) -> State:
        rooms: list[dict[str, Any]] = [
            {
                "type": "rooms",
                "id": str(n),
                "attributes": {
                    "name": f"{rng.choice(CITIES)} Hall",
                    "floor": rng.randint(0, 4),
                    "capacity": rng.choice([40, 80, 120, 250, 600]),
                },
            }
            for n in range(1, 25)
        ]
        speakers: list[dict[str, Any]] = []
        for n in range(1, 400):
            first, last = person(rng)
            speakers.append(
                {
                    "type": "speakers",
                    "id": str(n),
                    "attributes": {
                        "full-name": f"{first} {last}",
                        "affiliation": rng.choice(ORGS),
                        "handle": f"@{first.lower()}{last.lower()[:3]}{n}",
                        "country": rng.choice(["NO", "DE", "FR", "ES", "PL", "JP", "BR"]),
                    },
                }
            )
        state: State = {
            "jsonapi": {"version": "1.1"},
            "links": {"self": f"{BASE}/talks?include=speakers,room"},
            "data": [],
            "included": speakers + rooms,
        }

        def talk() -> None:
            ident = str(1001 + len(state["data"]) * 3)
            chosen = rng.sample(speakers, rng.choice([1, 1, 1, 2, 3]))
            reviewers = rng.sample(range(1, 30), rng.randint(0, 4))
            state["data"].append(
                {
                    "type": "talks",
                    "id": ident,
                    "attributes": {
                        "title": f"{words(rng, 3).title()}",
                        "abstract": f"We explore {words(rng, 12)}.",
                        "track": rng.choice(TRACKS),
                        "level": rng.choice(LEVELS),
                        "language": rng.choice(LANGUAGES),
                        "duration-minutes": rng.choice([20, 30, 45, 60, 90]),
                        "starts-at": _slot(rng),
                        "reviews": {
                            f"pc{r:02d}": {"score": rng.randint(1, 5), "comment": words(rng, 5)}
                            for r in reviewers
                        },
                    },
                    "relationships": {
                        "speakers": {"data": [_ref("speakers", s["id"]) for s in chosen]},
                        "room": {"data": _ref("rooms", rng.choice(rooms)["id"])},
                    },
                    "links": {"self": f"{BASE}/talks/{ident}"},
                }
            )

        fill(talk, lambda: size_of(state), target_bytes)
        return state

    def tools(self) -> list[Tool]:
        talk_id = {"talk_id": prop("string", "Talk id, e.g. 1004.")}
        return [
            Tool(
                "get_talk", "A talk with its speakers and room.", talk_id, self._get, ("talk_id",)
            ),
            Tool(
                "get_review",
                "A committee member's review of a talk.",
                talk_id | {"reviewer": prop("string", "Reviewer handle, e.g. pc07.")},
                self._review,
                ("talk_id", "reviewer"),
            ),
            Tool(
                "search_talks", self.finder.description, self.finder.tool().properties, self._find
            ),
            Tool(
                "speaker_rooms",
                "The rooms a speaker gives talks in, with the talks.",
                {"speaker_id": prop("string", "Speaker id.")},
                self._speaker_rooms,
                ("speaker_id",),
            ),
            Tool(
                "track_stats",
                "Talk count, minutes, languages, longest talk and mean review score of a track.",
                {"track": prop("string", "Track.", enum=TRACKS)},
                self._stats,
                ("track",),
            ),
            Tool(
                "submit_review",
                "Add (or replace) a committee member's review of a talk.",
                talk_id
                | {
                    "reviewer": prop("string", "Reviewer handle."),
                    "score": prop("integer", "1 to 5."),
                    "comment": prop("string", "Comment."),
                },
                self._submit,
                ("talk_id", "reviewer", "score", "comment"),
                effect="write",
            ),
            note_tool("jot", "memo", "Jot a memo for yourself (answers nothing)."),
        ]

    def _index(self, state: State, talk_id: str) -> int:
        for n, talk in enumerate(state["data"]):
            if talk["id"] == talk_id:
                return n
        raise ToolError(f"talk {talk_id} not found")

    def _included(self, state: State, ref: dict[str, str]) -> dict[str, Any]:
        return next(
            r for r in state["included"] if r["type"] == ref["type"] and r["id"] == ref["id"]
        )

    def _get(self, state: State, args: dict[str, Any]) -> Answer:
        talk = state["data"][self._index(state, args["talk_id"])]
        refs = [*talk["relationships"]["speakers"]["data"], talk["relationships"]["room"]["data"]]
        return {"data": talk, "included": [self._included(state, r) for r in refs]}, []

    def _review(self, state: State, args: dict[str, Any]) -> Answer:
        talk = state["data"][self._index(state, args["talk_id"])]
        review = talk["attributes"]["reviews"].get(args["reviewer"])
        if review is None:
            raise ToolError(f"{args['reviewer']} has not reviewed talk {args['talk_id']}")
        return {"data": {"type": "reviews", "attributes": review}}, []

    def _find(self, state: State, args: dict[str, Any]) -> Answer:
        found = self.finder.matches(state, args)
        return {"data": found[: self.finder.limit], "meta": {"total": len(found)}}, []

    def _speaker_rooms(self, state: State, args: dict[str, Any]) -> Answer:
        wanted = _ref("speakers", args["speaker_id"])
        talks: dict[str, list[str]] = {}
        for talk in state["data"]:
            if wanted in talk["relationships"]["speakers"]["data"]:
                room = talk["relationships"]["room"]["data"]["id"]
                talks.setdefault(room, []).append(talk["id"])
        if not talks:
            raise ToolError(f"speaker {args['speaker_id']} gives no talk")
        return {
            "data": [
                {**self._included(state, _ref("rooms", room)), "meta": {"talks": ids}}
                for room, ids in sorted(talks.items(), key=lambda item: int(item[0]))
            ]
        }, []

    def _stats(self, state: State, args: dict[str, Any]) -> Answer:
        chosen = [
            t["attributes"] for t in state["data"] if t["attributes"]["track"] == args["track"]
        ]
        minutes = [a["duration-minutes"] for a in chosen]
        scores = [r["score"] for a in chosen for r in a["reviews"].values()]
        return {
            "meta": {
                "track": args["track"],
                "talks": len(chosen),
                "total-minutes": summary("sum", minutes),
                "longest-minutes": summary("max", minutes),
                "languages": summary("distinct", [a["language"] for a in chosen]),
                "mean-score": summary("mean", scores),
            }
        }, []

    def _submit(self, state: State, args: dict[str, Any]) -> Answer:
        if not 1 <= args["score"] <= 5:
            raise ToolError("score must be 1 to 5")
        n = self._index(state, args["talk_id"])
        review = {"score": args["score"], "comment": args["comment"]}
        path = pointer("data", n, "attributes", "reviews", args["reviewer"])
        return {"data": {"type": "reviews", "attributes": review}, "meta": {"saved": True}}, [
            {"op": "add", "path": path, "value": review}
        ]

    def lookup(self, rng: random.Random, state: State) -> Planned:
        return Planned("lookup", "get_talk", {"talk_id": rng.choice(state["data"])["id"]})

    def nested_lookup(self, rng: random.Random, state: State) -> Planned:
        talk = rng.choice([t for t in state["data"] if t["attributes"]["reviews"]])
        reviewer = rng.choice(sorted(talk["attributes"]["reviews"]))
        return Planned("nested_lookup", "get_review", {"talk_id": talk["id"], "reviewer": reviewer})

    def search(self, rng: random.Random, state: State) -> Planned:
        return Planned("search", "search_talks", self.finder.plan(rng, state))

    def join(self, rng: random.Random, state: State) -> Planned:
        talk = rng.choice(state["data"])
        speaker = rng.choice(talk["relationships"]["speakers"]["data"])["id"]
        return Planned("join", "speaker_rooms", {"speaker_id": speaker})

    def aggregate(self, rng: random.Random, state: State) -> Planned:
        return Planned("aggregate", "track_stats", {"track": rng.choice(TRACKS)})

    def write(self, rng: random.Random, state: State) -> tuple[Planned, Planned]:
        talk = rng.choice(state["data"])["id"]
        reviewer = f"pc{rng.randint(1, 40):02d}"
        args = {
            "talk_id": talk,
            "reviewer": reviewer,
            "score": rng.randint(1, 5),
            "comment": words(rng, 6),
        }
        return Planned("write", "submit_review", args), Planned(
            "read_after_write", "get_review", {"talk_id": talk, "reviewer": reviewer}
        )

    def no_match(self, rng: random.Random, state: State) -> Planned:
        return Planned(
            "empty",
            "search_talks",
            {"track": rng.choice(TRACKS), "min_minutes": 240, "title_starts": "Zz"},
        )
