"""A company's team calendars as a CalDAV server exports them in jCal (RFC 7265), the
``jcal`` shape's state: each calendar's data is ``["vcalendar", properties, components]``;
every property an array ``[name, parameters, value type, value, ...]`` (``categories`` with one
value per trailing element), every component ``[name, properties, subcomponents]``. People are
``mailto:`` URIs with their name and reply in the parameters (``cn``, ``partstat``); times are
local to a ``tzid`` parameter (all-day events a bare ``date``); an event ends at ``dtend`` or
after an ISO 8601 ``duration``; a weekly series is one event with an ``rrule`` whose value is an
object (``{"freq": "WEEKLY", "count": 6}``)."""

from __future__ import annotations

import random
import re
from datetime import date, datetime, timedelta
from typing import Any

from benchmarks.zoo.kit import WORDS, State, fill, person, size_of

ZONE = "Europe/Berlin"
DOMAIN = "northcove.example"
TEAMS = ["Platform", "Payments", "Support", "Design", "Leadership"]
MEETINGS = ["Stand-up", "Planning", "Retro", "1:1", "Review", "Workshop", "Demo", "Interview"]
ROOMS = ["Atrium", "Harbor room", "Lighthouse", "Dock 3", "Online (Jitsi)"]
TAGS = ["internal", "customer", "hiring", "recurring", "focus", "offsite"]
PARTSTATS = ["ACCEPTED"] * 6 + ["TENTATIVE", "DECLINED"] + ["NEEDS-ACTION"] * 2
Property = list[Any]
Component = list[Any]


def properties(component: Component, name: str) -> list[Property]:
    return [p for p in component[1] if p[0] == name]


def value(component: Component, name: str) -> Any:
    """The first value of a component's property, or ``None``."""
    found = properties(component, name)
    return found[0][3] if found else None


def start_of(event: Component) -> datetime:
    """When an event starts (an all-day event at midnight)."""
    return datetime.fromisoformat(value(event, "dtstart"))


def minutes(event: Component) -> int:
    """How long an event lasts: to its ``dtend``, or its ``duration``."""
    end = value(event, "dtend")
    if end is not None:
        return int((datetime.fromisoformat(end) - start_of(event)).total_seconds() // 60)
    found = re.fullmatch(r"P(?:(\d+)D)?T?(?:(\d+)H)?(?:(\d+)M)?", value(event, "duration") or "")
    days, hours, mins = (int(g or 0) for g in found.groups()) if found else (0, 0, 0)
    return days * 1440 + hours * 60 + mins


def occurrences(event: Component) -> list[datetime]:
    """The starts of an event, a weekly series' each (``count`` times, from ``dtstart``)."""
    rule = value(event, "rrule")
    count = int(rule["count"]) if rule else 1
    step = timedelta(weeks=int(rule.get("interval", 1))) if rule else timedelta(0)
    return [start_of(event) + step * n for n in range(count)]


def mailto(name: tuple[str, str]) -> str:
    return f"mailto:{name[0].lower()}.{name[1].lower()}@{DOMAIN}"


def uid(rng: random.Random) -> str:
    hexes = "".join(rng.choice("0123456789abcdef") for _ in range(32))
    parts = (hexes[:8], hexes[8:12], hexes[12:16], hexes[16:20], hexes[20:])
    return "-".join(parts) + f"@cal.{DOMAIN}"


def attendee(rng: random.Random, who: tuple[str, str]) -> Property:
    params = {"cn": f"{who[0]} {who[1]}", "partstat": rng.choice(PARTSTATS)}
    params["role"] = "REQ-PARTICIPANT" if rng.random() < 0.8 else "OPT-PARTICIPANT"
    if params["partstat"] == "NEEDS-ACTION":
        params["rsvp"] = "TRUE"
    return ["attendee", params, "cal-address", mailto(who)]


def _timing(rng: random.Random, on: date) -> list[Property]:
    """An event's start and end: an all-day ``date``, or a local time with ``dtend`` or
    ``duration``."""
    if rng.random() < 0.08:
        return [
            ["dtstart", {}, "date", on.isoformat()],
            ["dtend", {}, "date", str(on + timedelta(1))],
        ]
    start = datetime(on.year, on.month, on.day, rng.randint(8, 17), rng.choice([0, 15, 30, 45]))
    length = rng.choice([15, 30, 30, 45, 60, 60, 90, 120])
    zone = {"tzid": ZONE}
    timing: list[Property] = [["dtstart", zone, "date-time", start.isoformat()]]
    if rng.random() < 0.3:
        hours, mins = divmod(length, 60)
        text = "PT" + (f"{hours}H" if hours else "") + (f"{mins}M" if mins else "")
        return [*timing, ["duration", {}, "duration", text]]
    end = start + timedelta(minutes=length)
    return [*timing, ["dtend", zone, "date-time", end.isoformat()]]


def event(rng: random.Random, people: list[tuple[str, str]], team: str) -> Component:
    on = date(2025, 9, 1) + timedelta(days=rng.randint(0, 180))
    organizer, *guests = rng.sample(people, rng.randint(2, 7))
    stamp = f"{on - timedelta(days=rng.randint(1, 30))}T{rng.randint(7, 19):02d}:12:09Z"
    timing = _timing(rng, on)
    busy = "TRANSPARENT" if timing[0][2] == "date" else "OPAQUE"
    props: list[Property] = [
        ["uid", {}, "text", uid(rng)],
        ["dtstamp", {}, "date-time", stamp],
        ["sequence", {}, "integer", rng.choice([0, 0, 1, 2])],
        ["summary", {}, "text", f"{team} {rng.choice(MEETINGS).lower()}: {rng.choice(WORDS)}"],
        *timing,
        ["location", {}, "text", rng.choice(ROOMS)],
        ["status", {}, "text", rng.choice(["CONFIRMED"] * 8 + ["TENTATIVE", "CANCELLED"])],
        ["transp", {}, "text", busy],
        ["categories", {}, "text", *rng.sample(TAGS, rng.randint(1, 2))],
        ["organizer", {"cn": f"{organizer[0]} {organizer[1]}"}, "cal-address", mailto(organizer)],
        *(attendee(rng, who) for who in guests),
    ]
    if rng.random() < 0.15:
        props.append(["rrule", {}, "recur", {"freq": "WEEKLY", "count": rng.randint(3, 10)}])
    alarms: list[Component] = []
    if rng.random() < 0.4:
        trigger = rng.choice(["-PT10M", "-PT15M", "-PT1H"])
        alarm = [["action", {}, "text", "DISPLAY"], ["trigger", {}, "duration", trigger]]
        alarms.append(["valarm", [*alarm, ["description", {}, "text", "Reminder"]], []])
    return ["vevent", props, alarms]


def _timezone() -> Component:
    def rule(name: str, start: str, offsets: tuple[str, str], month: int) -> Component:
        return [
            name,
            [
                ["dtstart", {}, "date-time", start],
                ["tzoffsetfrom", {}, "utc-offset", offsets[0]],
                ["tzoffsetto", {}, "utc-offset", offsets[1]],
                ["rrule", {}, "recur", {"freq": "YEARLY", "bymonth": month, "byday": "-1SU"}],
            ],
            [],
        ]

    return [
        "vtimezone",
        [["tzid", {}, "text", ZONE]],
        [
            rule("daylight", "1970-03-29T02:00:00", ("+01:00", "+02:00"), 3),
            rule("standard", "1970-10-25T03:00:00", ("+02:00", "+01:00"), 10),
        ],
    ]


def calendars(rng: random.Random, target_bytes: int) -> State:
    """The teams' calendars, of about ``target_bytes``: each event in its team's calendar."""
    people: list[tuple[str, str]] = []

    def hire() -> None:
        while (someone := person(rng)) in people:
            pass
        people.append(someone)

    for _ in range(24):
        hire()
    state: State = {
        "calendars": [
            {
                "href": f"/remote.php/dav/calendars/{team.lower()}/team/",
                "displayname": f"{team} team",
                "getctag": f"http://sabre.io/ns/sync/{rng.randint(100, 9999)}",
                "jcal": [
                    "vcalendar",
                    [
                        ["version", {}, "text", "2.0"],
                        ["prodid", {}, "text", "-//Sabre//Sabre VObject 4.5.4//EN"],
                        ["x-wr-calname", {}, "text", f"{team} team"],
                    ],
                    [_timezone()],
                ],
            }
            for team in TEAMS
        ]
    }

    def add() -> None:
        if rng.random() < 0.04 and len(people) < 300:
            hire()
        chosen = rng.randrange(len(TEAMS))
        state["calendars"][chosen]["jcal"][2].append(event(rng, people, TEAMS[chosen]))

    fill(add, lambda: size_of(state), target_bytes)
    return state
