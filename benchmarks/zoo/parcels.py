"""``parcels`` (held out in the round that first measured it, a development shape since): an event
log: parcels keyed by tracking number (no id field), each with nested sender and recipient
addresses and a list of scan events at facilities (an array of facilities with codes); a
parcel's status is its last event; the parcels that went from one facility to another is a join
over two events; a facility's counts are summaries no record holds."""

from __future__ import annotations

import itertools
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
    words,
)
from benchmarks.zoo.shape import Shape

SERVICES = ["economy", "standard", "express", "same-day"]
COUNTRIES = ["NO", "SE", "DK", "FI", "IS"]
CODES = ["PICKUP", "ARRIVED", "DEPARTED", "OUT_FOR_DELIVERY", "DELIVERED", "EXCEPTION"]


def _parcels(state: State) -> list[tuple[str, dict[str, Any]]]:
    return list(state["parcels"].items())


def _stamp(rng: random.Random, start_day: int, hour: int) -> str:
    day_of_year = min(start_day + hour // 24, 364)
    month, dom = divmod(day_of_year, 28)
    return f"2025-{month % 12 + 1:02d}-{dom + 1:02d}T{hour % 24:02d}:{rng.randint(0, 59):02d}"


class Parcels(Shape):
    name = "parcels"
    title = "Parcel tracking"
    description = (
        "A carrier's parcel tracking: parcels with sender, recipient, service and the scans at "
        "each facility on their way. JSON answers; times are local, YYYY-MM-DDTHH:MM; errors "
        "are text starting with 'Error:'."
    )
    note = ("annotate", "comment")

    def __init__(self) -> None:
        self.finder = Search(
            "search_parcels",
            "Parcels by recipient city, sender country, service and weight range.",
            _parcels,
            [
                Filter(
                    "to_city", "recipient.address.city", "eq", prop("string", "Recipient's city.")
                ),
                Filter(
                    "from_country",
                    "sender.address.country",
                    "eq",
                    prop("string", "Sender's country code."),
                ),
                Filter("service", "service", "eq", prop("string", "Service.", enum=SERVICES)),
                Filter("min_kg", "weight_kg", "ge", prop("number", "Lightest, kg.")),
                Filter("max_kg", "weight_kg", "le", prop("number", "Heaviest, kg.")),
            ],
            lambda key, p: {
                "tracking_number": key,
                "service": p["service"],
                "weight_kg": p["weight_kg"],
                "recipient": p["recipient"]["name"],
            },
            limit=10,
            wrap="results",
        )

    def build(self, rng: random.Random, target_bytes: int) -> State:
        facilities = [
            {
                "code": f"{city[:3].upper()}-{n}",
                "city": city,
                "kind": rng.choice(["hub", "depot", "locker"]),
            }
            for n, city in enumerate(CITIES, start=1)
        ]
        state: State = {"facilities": facilities, "parcels": {}}

        def party() -> dict[str, Any]:
            first, last = person(rng)
            return {
                "name": f"{first} {last}",
                "address": {
                    "street": f"{words(rng, 1).title()} Street {rng.randint(1, 199)}",
                    "city": rng.choice(CITIES),
                    "postcode": f"{rng.randint(1000, 9999)}",
                    "country": rng.choice(COUNTRIES),
                },
            }

        def parcel() -> None:
            number = f"TRK{rng.randint(10**9, 10**10 - 1)}"
            route = rng.sample(facilities, rng.randint(2, 5))
            start, hour = rng.randint(0, 300), rng.randint(6, 12)
            events = [
                {"at": _stamp(rng, start, hour), "code": "PICKUP", "facility": route[0]["code"]}
            ]
            for stop in route[1:]:
                hour += rng.randint(2, 20)
                events.append(
                    {
                        "at": _stamp(rng, start, hour),
                        "code": "DEPARTED",
                        "facility": events[-1]["facility"],
                    }
                )
                hour += rng.randint(1, 9)
                events.append(
                    {"at": _stamp(rng, start, hour), "code": "ARRIVED", "facility": stop["code"]}
                )
            if rng.random() < 0.7:
                hour += rng.randint(1, 12)
                last = rng.choice(["DELIVERED", "EXCEPTION", "OUT_FOR_DELIVERY"])
                events.append(
                    {"at": _stamp(rng, start, hour), "code": last, "facility": route[-1]["code"]}
                )
            state["parcels"][number] = {
                "service": rng.choice(SERVICES),
                "weight_kg": round(rng.uniform(0.1, 30), 1),
                "sender": party(),
                "recipient": party(),
                "events": events,
            }

        fill(parcel, lambda: size_of(state), target_bytes)
        return state

    def tools(self) -> list[Tool]:
        tracking = {"tracking_number": prop("string", "Tracking number, e.g. TRK1234567890.")}
        facility = {"facility": prop("string", "Facility code, e.g. OBA-15.")}
        return [
            Tool(
                "track",
                "A parcel with its status and scans.",
                tracking,
                self._track,
                ("tracking_number",),
            ),
            Tool(
                "scan_at",
                "A parcel's scans at one facility.",
                tracking | facility,
                self._scan_at,
                ("tracking_number", "facility"),
            ),
            self.finder.tool(),
            Tool(
                "lane_parcels",
                "Parcels that departed one facility and next arrived at another.",
                {
                    "origin": prop("string", "Facility left."),
                    "destination": prop("string", "Facility reached."),
                },
                self._lane,
                ("origin", "destination"),
            ),
            Tool(
                "facility_summary",
                "How many parcels a facility scanned, by scan code, and the heaviest.",
                facility,
                self._summary,
                ("facility",),
            ),
            Tool(
                "record_scan",
                "Record a scan of a parcel at a facility.",
                tracking
                | facility
                | {
                    "code": prop("string", "Scan code.", enum=CODES),
                    "at": prop("string", "YYYY-MM-DDTHH:MM."),
                },
                self._record,
                ("tracking_number", "facility", "code", "at"),
                effect="write",
            ),
            note_tool("annotate", "comment", "Annotate the session (answers nothing)."),
        ]

    def _parcel(self, state: State, number: str) -> dict[str, Any]:
        found: dict[str, Any] | None = state["parcels"].get(number)
        if found is None:
            raise ToolError(f"unknown tracking number {number}")
        return found

    def _track(self, state: State, args: dict[str, Any]) -> Answer:
        parcel = self._parcel(state, args["tracking_number"])
        return {
            "tracking_number": args["tracking_number"],
            "status": parcel["events"][-1]["code"],
            **parcel,
        }, []

    def _scan_at(self, state: State, args: dict[str, Any]) -> Answer:
        parcel = self._parcel(state, args["tracking_number"])
        scans = [e for e in parcel["events"] if e["facility"] == args["facility"]]
        if not scans:
            raise ToolError("the parcel was not scanned there")
        return {"tracking_number": args["tracking_number"], "scans": scans}, []

    def _lane(self, state: State, args: dict[str, Any]) -> Answer:
        found = []
        for number, parcel in state["parcels"].items():
            events = parcel["events"]
            for left, reached in itertools.pairwise(events):
                if (
                    left["code"] == "DEPARTED"
                    and left["facility"] == args["origin"]
                    and reached["code"] == "ARRIVED"
                    and reached["facility"] == args["destination"]
                ):
                    found.append(
                        {
                            "tracking_number": number,
                            "departed": left["at"],
                            "arrived": reached["at"],
                        }
                    )
        return {
            "origin": args["origin"],
            "destination": args["destination"],
            "parcels": found[:12],
            "count": len(found),
        }, []

    def _summary(self, state: State, args: dict[str, Any]) -> Answer:
        by_code: dict[str, int] = {}
        parcels, heaviest = 0, 0.0
        for parcel in state["parcels"].values():
            codes = [e["code"] for e in parcel["events"] if e["facility"] == args["facility"]]
            if codes:
                parcels += 1
                heaviest = max(heaviest, parcel["weight_kg"])
            for code in codes:
                by_code[code] = by_code.get(code, 0) + 1
        if not parcels:
            raise ToolError(f"unknown facility {args['facility']}")
        return {
            "facility": args["facility"],
            "parcels": parcels,
            "scans_by_code": dict(sorted(by_code.items())),
            "heaviest_kg": heaviest,
        }, []

    def _record(self, state: State, args: dict[str, Any]) -> Answer:
        parcel = self._parcel(state, args["tracking_number"])
        if args["facility"] not in {f["code"] for f in state["facilities"]}:
            raise ToolError("unknown facility")
        event = {"at": args["at"], "code": args["code"], "facility": args["facility"]}
        return {
            "recorded": True,
            "tracking_number": args["tracking_number"],
            "event": event,
            "scans": len(parcel["events"]) + 1,
        }, [
            {
                "op": "add",
                "path": pointer("parcels", args["tracking_number"], "events", "-"),
                "value": event,
            }
        ]

    def _any(self, rng: random.Random, state: State) -> tuple[str, dict[str, Any]]:
        number = rng.choice(sorted(state["parcels"]))
        return number, state["parcels"][number]

    def lookup(self, rng: random.Random, state: State) -> Planned:
        return Planned("lookup", "track", {"tracking_number": self._any(rng, state)[0]})

    def nested_lookup(self, rng: random.Random, state: State) -> Planned:
        number, parcel = self._any(rng, state)
        facility = rng.choice(parcel["events"])["facility"]
        return Planned(
            "nested_lookup", "scan_at", {"tracking_number": number, "facility": facility}
        )

    def search(self, rng: random.Random, state: State) -> Planned:
        return Planned("search", "search_parcels", self.finder.plan(rng, state))

    def join(self, rng: random.Random, state: State) -> Planned:
        _, parcel = self._any(rng, state)
        events = parcel["events"]
        for left, reached in itertools.pairwise(events):
            if left["code"] == "DEPARTED" and reached["code"] == "ARRIVED":
                return Planned(
                    "join",
                    "lane_parcels",
                    {"origin": left["facility"], "destination": reached["facility"]},
                )
        return self.join(rng, state)

    def aggregate(self, rng: random.Random, state: State) -> Planned:
        return Planned(
            "aggregate", "facility_summary", {"facility": rng.choice(state["facilities"])["code"]}
        )

    def write(self, rng: random.Random, state: State) -> tuple[Planned, Planned]:
        number, _ = self._any(rng, state)
        facility = rng.choice(state["facilities"])["code"]
        args = {
            "tracking_number": number,
            "facility": facility,
            "code": rng.choice(CODES),
            "at": "2026-01-15T09:30",
        }
        return Planned("write", "record_scan", args), Planned(
            "read_after_write", "scan_at", {"tracking_number": number, "facility": facility}
        )

    def no_match(self, rng: random.Random, state: State) -> Planned:
        return Planned(
            "empty",
            "search_parcels",
            {"to_city": rng.choice(CITIES), "min_kg": 31, "service": "same-day"},
        )
