"""``jcal``: a company's team calendars from a CalDAV server (Nextcloud/SabreDAV) in jCal,
RFC 7265's JSON for iCalendar: positional arrays instead of objects (``[name, parameters, type,
value]`` properties in ``[name, properties, subcomponents]`` components), people as ``mailto:``
URIs whose names and replies are parameters, local times with a ``tzid``, an end given as
``dtend`` or as an ISO 8601 ``duration``, multi-valued ``categories`` and weekly series as an
``rrule`` object. Tools take an event id (the ``uid``), plain email addresses, dates and months;
a search answers events in brief; whom a person meets is a join through the events they attend
to the other attendees; a person's meeting hours in a month is a sum over durations and series
occurrences no property holds; a reply rewrites an attendee's ``partstat`` parameter."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from benchmarks.zoo.jcal_components import (
    ROOMS,
    TAGS,
    TEAMS,
    Component,
    calendars,
    minutes,
    occurrences,
    properties,
    value,
)
from benchmarks.zoo.kit import (
    Answer,
    Filter,
    Planned,
    Search,
    State,
    Tool,
    ToolError,
    note_tool,
    pointer,
    prop,
)
from benchmarks.zoo.shape import Shape

REPLIES = ["ACCEPTED", "DECLINED", "TENTATIVE"]
STATUSES = ["CONFIRMED", "TENTATIVE", "CANCELLED"]
Placed = tuple[int, int, Component]
"""An event: its calendar's position, its position among the calendar's components, and it."""


def _events(state: State) -> list[Placed]:
    return [
        (c, k, component)
        for c, calendar in enumerate(state["calendars"])
        for k, component in enumerate(calendar["jcal"][2])
        if component[0] == "vevent"
    ]


def _email(address: str) -> str:
    return address.removeprefix("mailto:").lower()


def _people(event: Component) -> list[str]:
    """Everyone on an event (organizer first) as plain addresses."""
    return [_email(p[3]) for p in properties(event, "organizer") + properties(event, "attendee")]


def _event_view(calendar: str, event: Component) -> dict[str, Any]:
    return {
        "event": event,
        "calendar": calendar,
        "summary": value(event, "summary"),
        "location": value(event, "location"),
        "status": value(event, "status"),
        "categories": properties(event, "categories")[0][3:],
        "organizer": _people(event)[0],
        "people": _people(event),
        "day": value(event, "dtstart")[:10],
    }


def _records(state: State) -> list[tuple[str, dict[str, Any]]]:
    names = [c["displayname"] for c in state["calendars"]]
    return [(value(e, "uid"), _event_view(names[c], e)) for c, _, e in _events(state)]


def _brief(key: str, view: dict[str, Any]) -> dict[str, Any]:
    event = view["event"]
    return {
        "uid": key,
        "summary": view["summary"],
        "dtstart": value(event, "dtstart"),
        "location": view["location"],
        "status": view["status"],
        "calendar": view["calendar"],
    }


def _takes_part(event: Component, email: str) -> bool:
    """Whether a person spends the event's time in it: its organizer, or an attendee who has
    not declined; never for a cancelled or all-day (free) event."""
    if value(event, "status") == "CANCELLED" or value(event, "transp") == "TRANSPARENT":
        return False
    if _email(value(event, "organizer")) == email:
        return True
    return any(
        _email(p[3]) == email and p[1]["partstat"] != "DECLINED"
        for p in properties(event, "attendee")
    )


def _load(state: State, args: dict[str, Any]) -> Answer:
    email, month = args["email"].lower(), args["month"]
    starts: list[tuple[str, int]] = [
        (value(event, "uid"), minutes(event))
        for _, _, event in _events(state)
        if _takes_part(event, email)
        for start in occurrences(event)
        if start.isoformat()[:7] == month
    ]
    return {
        "email": email,
        "month": month,
        "meetings": len(starts),
        "events": len({uid for uid, _ in starts}),
        "hours": round(sum(length for _, length in starts) / 60, 2),
    }, []


class Jcal(Shape):
    name = "jcal"
    title = "Team calendars (CalDAV)"
    description = (
        "The shared team calendars of a software company (Platform, Payments, Support, Design, "
        "Leadership), served by its CalDAV server; times are Europe/Berlin. Errors are text "
        "starting with 'Error:'."
    )
    note = ("add_memo", "text")

    def __init__(self) -> None:
        self.finder = Search(
            "find_events",
            "Events by calendar, summary word, category, room, organizer or attendee email, "
            "status and first-occurrence date range; in brief.",
            _records,
            [
                Filter(
                    "calendar",
                    "calendar",
                    "eq",
                    prop("string", "Calendar.", enum=[f"{t} team" for t in TEAMS]),
                ),
                Filter("text", "summary", "contains", prop("string", "A word of the summary.")),
                Filter("category", "categories", "has", prop("string", "Category.", enum=TAGS)),
                Filter("room", "location", "eq", prop("string", "Location.", enum=ROOMS)),
                Filter("organizer", "organizer", "eq", prop("string", "Organizer's email.")),
                Filter("attendee", "people", "has", prop("string", "A participant's email.")),
                Filter("status", "status", "eq", prop("string", "Status.", enum=STATUSES)),
                Filter("from_date", "day", "ge", prop("string", "YYYY-MM-DD, inclusive.")),
                Filter("to_date", "day", "le", prop("string", "YYYY-MM-DD, inclusive.")),
            ],
            _brief,
            limit=15,
        )

    def build(self, rng: random.Random, target_bytes: int) -> State:
        return calendars(rng, target_bytes)

    def tools(self) -> list[Tool]:
        ident = {"event_id": prop("string", "The event's id.")}
        email = {"email": prop("string", "Email address, e.g. ana.berg@northcove.example.")}
        return [
            Tool(
                "get_event",
                "An event as its calendar object resource (application/calendar+json).",
                ident,
                self._get,
                ("event_id",),
            ),
            Tool(
                "attendee_status",
                "A participant's role and reply to an event.",
                ident | email,
                self._status,
                ("event_id", "email"),
            ),
            Tool("find_events", self.finder.description, self.finder.tool().properties, self._find),
            Tool(
                "meets_with",
                "Whom a person meets: the other participants of events they organise or attend "
                "(not cancelled), with how many events they share.",
                email,
                self._meets,
                ("email",),
            ),
            Tool(
                "meeting_load",
                "A person's meetings in a month (each occurrence of a series counted) and the "
                "hours they take; declined, cancelled and all-day events left out.",
                email | {"month": prop("string", "YYYY-MM.")},
                _load,
                ("email", "month"),
                output={
                    "type": "object",
                    "properties": {
                        "meetings": {"type": "integer"},
                        "events": {"type": "integer"},
                        "hours": {"type": "number"},
                    },
                },
            ),
            Tool(
                "reply_to_invitation",
                "Record an attendee's reply to an event (iTIP REPLY).",
                ident | email | {"reply": prop("string", "The reply.", enum=REPLIES)},
                self._reply,
                ("event_id", "email", "reply"),
                effect="write",
            ),
            note_tool("add_memo", "text", "Add a memo to the assistant's notes (answers nothing)."),
        ]

    def _event(self, state: State, ident: str) -> Placed:
        for placed in _events(state):
            if value(placed[2], "uid") == ident:
                return placed
        raise ToolError(f"event {ident} not found")

    def _get(self, state: State, args: dict[str, Any]) -> Answer:
        c, _, event = self._event(state, args["event_id"])
        calendar = state["calendars"][c]["jcal"]
        return ["vcalendar", calendar[1][:2], [event]], []

    def _attendee(self, event: Component, email: str) -> tuple[int, list[Any]]:
        for n, found in enumerate(event[1]):
            if found[0] == "attendee" and _email(found[3]) == email.lower():
                return n, found
        raise ToolError(f"{email} is not invited to {value(event, 'uid')}")

    def _status(self, state: State, args: dict[str, Any]) -> Answer:
        _, _, event = self._event(state, args["event_id"])
        _, found = self._attendee(event, args["email"])
        return {"uid": args["event_id"], "attendee": found[3], **found[1]}, []

    def _find(self, state: State, args: dict[str, Any]) -> Answer:
        found = self.finder.matches(state, args)
        return {"events": found[: self.finder.limit], "count": len(found)}, []

    def _meets(self, state: State, args: dict[str, Any]) -> Answer:
        email = args["email"].lower()
        shared: Counter[str] = Counter()
        names: dict[str, str] = {}
        for _, _, event in _events(state):
            if value(event, "status") == "CANCELLED" or email not in _people(event):
                continue
            for found in properties(event, "organizer") + properties(event, "attendee"):
                other = _email(found[3])
                if other != email:
                    shared[other] += 1
                    names[other] = found[1]["cn"]
        if not shared:
            raise ToolError(f"no events with {email}")
        return {
            "email": email,
            "people": [
                {"cn": names[other], "email": other, "events": count}
                for other, count in sorted(shared.items(), key=lambda item: (-item[1], item[0]))
            ],
        }, []

    def _reply(self, state: State, args: dict[str, Any]) -> Answer:
        if args["reply"] not in REPLIES:
            raise ToolError(f"reply must be one of {', '.join(REPLIES)}")
        c, k, event = self._event(state, args["event_id"])
        n, found = self._attendee(event, args["email"])
        params = {key: v for key, v in found[1].items() if key != "rsvp"}
        params["partstat"] = args["reply"]
        path = pointer("calendars", c, "jcal", 2, k, 1, n, 1)
        return {"uid": args["event_id"], "attendee": found[3], "partstat": args["reply"]}, [
            {"op": "replace", "path": path, "value": params}
        ]

    def _invited(self, rng: random.Random, state: State) -> tuple[str, str]:
        """An event's uid and one of its attendees' plain addresses."""
        _, _, event = rng.choice(_events(state))
        return value(event, "uid"), _email(rng.choice(properties(event, "attendee"))[3])

    def lookup(self, rng: random.Random, state: State) -> Planned:
        _, _, event = rng.choice(_events(state))
        return Planned("lookup", "get_event", {"event_id": value(event, "uid")})

    def nested_lookup(self, rng: random.Random, state: State) -> Planned:
        ident, email = self._invited(rng, state)
        return Planned("nested_lookup", "attendee_status", {"event_id": ident, "email": email})

    def search(self, rng: random.Random, state: State) -> Planned:
        return Planned("search", "find_events", self.finder.plan(rng, state))

    def join(self, rng: random.Random, state: State) -> Planned:
        _, _, event = rng.choice(
            [p for p in _events(state) if value(p[2], "status") != "CANCELLED"]
        )
        return Planned("join", "meets_with", {"email": rng.choice(_people(event))})

    def aggregate(self, rng: random.Random, state: State) -> Planned:
        _, _, event = rng.choice(_events(state))
        args = {"email": rng.choice(_people(event)), "month": value(event, "dtstart")[:7]}
        return Planned("aggregate", "meeting_load", args)

    def write(self, rng: random.Random, state: State) -> tuple[Planned, Planned]:
        ident, email = self._invited(rng, state)
        args = {"event_id": ident, "email": email, "reply": rng.choice(REPLIES)}
        return Planned("write", "reply_to_invitation", args), Planned(
            "read_after_write", "attendee_status", {"event_id": ident, "email": email}
        )

    def no_match(self, rng: random.Random, state: State) -> Planned:
        args = {"calendar": f"{rng.choice(TEAMS)} team", "from_date": "2031-01-01"}
        return Planned("empty", "find_events", args)
