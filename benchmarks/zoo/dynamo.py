"""``dynamo``: a DynamoDB table as ``aws dynamodb scan`` exports it: ``Items`` whose
every attribute is a typed value (``{"S": ..}``, ``{"N": "37.5"}`` with the number as a string,
``{"BOOL": ..}``, ``{"L": [..]}``, ``{"M": {..}}``, ``{"SS": [..]}``), in a single-table
design: sites, spaces, members, their bookings and an atomic counter share one table, told
apart by the partition key ``PK`` (``MEMBER#1042``, ``SPACE#OBA-2-07``) and the sort key ``SK``
(``PROFILE``, ``BOOKING#2025-03-01#50077``); a booking points to its space by a secondary-index
key (``GSI1PK``). Tools take ids without the key prefixes and answer plain JSON; a booking
decrements the member's credits, bumps the counter item and adds an item; who booked a space is
a join through the bookings; a site's use is a summary no item holds."""

from __future__ import annotations

import random
from typing import Any

from benchmarks.zoo.dynamo_values import item, plain, typed, unmarshalled
from benchmarks.zoo.kit import (
    CITIES,
    Answer,
    Filter,
    Planned,
    Search,
    State,
    Tool,
    ToolError,
    day,
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

KINDS = ["hot-desk", "fixed-desk", "meeting-room", "phone-booth", "studio"]
AMENITIES = ["monitor", "whiteboard", "projector", "standing-desk", "window", "video-kit"]
PLANS = ["flex", "part-time", "resident", "enterprise"]
STATUSES = ["confirmed", "checked-in", "cancelled", "no-show"]
RATES = [4.5, 6.25, 7.5, 12.75, 18.5, 26.25, 39.5]
COUNTER = ("COUNTER", "BOOKING")


def _keys(entry: dict[str, Any]) -> tuple[str, str]:
    return entry["PK"]["S"], entry["SK"]["S"]


def _spaces(state: State) -> list[tuple[str, dict[str, Any]]]:
    return [
        (pk[6:], unmarshalled(e))
        for e in state["Items"]
        if (pk := e["PK"]["S"]).startswith("SPACE#") and e["SK"]["S"] == "#META"
    ]


def _booking_items(state: State) -> list[dict[str, Any]]:
    return [e for e in state["Items"] if e["SK"]["S"].startswith("BOOKING#")]


def _booked(entry: dict[str, Any]) -> dict[str, Any]:
    """A booking item's attributes as plain JSON, with its space's id."""
    return unmarshalled(entry) | {"space": entry["GSI1PK"]["S"][6:]}


def _sites(rng: random.Random) -> tuple[list[dict[str, Any]], list[tuple[str, float]]]:
    """The items of the sites and their spaces, and each space's id and hourly rate."""
    items: list[dict[str, Any]] = []
    spaces: list[tuple[str, float]] = []
    for city in CITIES:
        code = city[:3].upper()
        address = {
            "street": f"{rng.randint(1, 90)} {rng.choice(CITIES)} Road",
            "postcode": f"{rng.randint(10, 99)}{rng.randint(100, 999)}",
        }
        hours = ["07:00", rng.choice(["19:00", "21:00", "23:00"])]
        items.append(
            item(f"SITE#{code}", "#META", type="Site", city=city, address=address, openHours=hours)
        )
        for n in range(rng.randint(6, 14)):
            floor, kind, rate = rng.randint(0, 4), rng.choice(KINDS), rng.choice(RATES)
            ident = f"{code}-{floor}-{n + 1:02d}"
            spaces.append((ident, rate))
            single = kind in ("hot-desk", "fixed-desk", "phone-booth")
            items.append(
                item(
                    f"SPACE#{ident}",
                    "#META",
                    type="Space",
                    site=code,
                    kind=kind,
                    seats=1 if single else rng.randint(4, 20),
                    hourlyRate=rate,
                    floor=floor,
                    label=f"{words(rng, 2).title()}",
                    amenities=tuple(rng.sample(AMENITIES, rng.randint(1, 4))),
                )
            )
    return items, spaces


def _partition(
    rng: random.Random, ident: int, spaces: list[tuple[str, float]], counter: list[int]
) -> list[dict[str, Any]]:
    """A member's partition: the profile, then the bookings by date (``counter`` holds the
    last booking reference given)."""
    first, last = person(rng)
    company = {
        "name": f"{rng.choice(CITIES)} {rng.choice(['Studio', 'Labs', 'Partners'])}",
        "vatId": f"GB{rng.randint(100000000, 999999999)}",
    }
    items = [
        item(
            f"MEMBER#{ident}",
            "PROFILE",
            type="Member",
            fullName=f"{first} {last}",
            email=f"{first.lower()}.{last.lower()}{ident}@mail.example",
            plan=rng.choice(PLANS),
            credits=rng.randint(0, 40) * 2.5,
            joinedAt=day(rng, rng.randint(2019, 2025)),
            active=rng.random() < 0.85,
            tags=tuple(sorted(set(rng.sample(AMENITIES, rng.randint(1, 3))))),
            **({"company": company} if rng.random() < 0.5 else {}),
        )
    ]
    for date in sorted(day(rng) for _ in range(rng.randint(0, 7))):
        counter[0] += rng.randint(1, 9)
        space, rate = rng.choice(spaces)
        hours = rng.choice([1, 1.5, 2, 3, 4, 8])
        starts = f"{date}T{rng.randint(7, 16):02d}:{rng.choice(['00', '30'])}"
        guests = [" ".join(person(rng)) for _ in range(rng.randint(0, 3))]
        items.append(
            item(
                f"MEMBER#{ident}",
                f"BOOKING#{date}#{counter[0]}",
                type="Booking",
                GSI1PK=f"SPACE#{space}",
                GSI1SK=starts,
                startsAt=starts,
                hours=hours,
                amount=round(hours * rate, 2),
                status=rng.choice(STATUSES),
                guests=guests,
            )
        )
    return items


class Dynamo(Shape):
    name = "dynamo"
    title = "Coworking spaces, bookings API"
    description = (
        "A coworking operator's booking service over one DynamoDB table: sites, bookable "
        "spaces, members and their bookings. Answers are JSON; times are local, "
        "YYYY-MM-DDTHH:MM; money in EUR; errors are text starting with 'Error:'."
    )
    note = ("log_note", "message")

    def __init__(self) -> None:
        self.finder = Search(
            "list_spaces",
            "Bookable spaces by site, kind, seats, hourly rate (EUR), floor and amenity.",
            _spaces,
            [
                Filter("site_code", "site", "eq", prop("string", "Site code, e.g. OBA.")),
                Filter("space_type", "kind", "eq", prop("string", "Kind.", enum=KINDS)),
                Filter("min_capacity", "seats", "ge", prop("integer", "Fewest seats.")),
                Filter("max_price_per_hour", "hourlyRate", "le", prop("number", "EUR.")),
                Filter("floor", "floor", "eq", prop("integer", "Floor.")),
                Filter("with_amenity", "amenities", "has", prop("string", "Amenity.")),
            ],
            lambda key, s: {"space_id": key, **s},
            limit=20,
            wrap="spaces",
        )

    def build(self, rng: random.Random, target_bytes: int) -> State:
        sites, spaces = _sites(rng)
        partitions = [[entry] for entry in sites]
        counter = [50000]

        def member() -> None:
            partition = _partition(rng, 1000 + len(partitions), spaces, counter)
            partitions.append(sorted(partition, key=lambda e: str(e["SK"]["S"])))

        # Flattened, the partitions lose their brackets: two characters each.
        fill(member, lambda: size_of(partitions) - 2 * len(partitions), target_bytes)
        partitions.append([item(*COUNTER, type="Counter", next=counter[0] + 1)])
        # A scan reads partitions in the order of their keys' hashes, each in sort-key order.
        rng.shuffle(partitions)
        items = [entry for partition in partitions for entry in partition]
        return {
            "TableName": "cowork-prod",
            "Items": items,
            "Count": len(items),
            "ScannedCount": len(items),
        }

    def tools(self) -> list[Tool]:
        member = {"member_id": prop("integer", "Member number, e.g. 1042.")}
        space = {"space_id": prop("string", "Space id, e.g. OBA-2-07.")}
        return [
            Tool("get_member", "A member's profile.", member, self._member, ("member_id",)),
            Tool(
                "get_booking",
                "One of a member's bookings, by its reference.",
                member | {"booking_ref": prop("integer", "Booking reference, e.g. 50077.")},
                self._booking,
                ("member_id", "booking_ref"),
            ),
            self.finder.tool(),
            Tool(
                "space_bookers",
                "The members who booked a space, with how many bookings each.",
                space,
                self._bookers,
                ("space_id",),
            ),
            Tool(
                "site_usage",
                "A site's spaces and bookings: count, hours, revenue (EUR), mean hours, kinds.",
                {"site_code": prop("string", "Site code, e.g. OBA.")},
                self._usage,
                ("site_code",),
            ),
            Tool(
                "book_space",
                "Book a space for a member; the member's credits (hours) pay first.",
                member
                | space
                | {
                    "start": prop("string", "YYYY-MM-DDTHH:MM."),
                    "hours": prop("number", "Length, hours."),
                },
                self._book,
                ("member_id", "space_id", "start", "hours"),
                effect="write",
            ),
            note_tool("log_note", "message", "Write a line to the session log (answers nothing)."),
        ]

    def _index(self, state: State, pk: str, sk: str, what: str) -> int:
        for n, entry in enumerate(state["Items"]):
            if _keys(entry) == (pk, sk):
                return n
        raise ToolError(f"{what} not found")

    def _member(self, state: State, args: dict[str, Any]) -> Answer:
        n = self._index(state, f"MEMBER#{args['member_id']}", "PROFILE", "member")
        return {"member_id": args["member_id"], **unmarshalled(state["Items"][n])}, []

    def _booking(self, state: State, args: dict[str, Any]) -> Answer:
        pk, ref = f"MEMBER#{args['member_id']}", f"#{args['booking_ref']}"
        for entry in _booking_items(state):
            if entry["PK"]["S"] == pk and entry["SK"]["S"].endswith(ref):
                date = entry["SK"]["S"].split("#")[1]
                return {"booking_ref": args["booking_ref"], "date": date, **_booked(entry)}, []
        raise ToolError(f"no booking {args['booking_ref']} of member {args['member_id']}")

    def _bookers(self, state: State, args: dict[str, Any]) -> Answer:
        self._index(state, f"SPACE#{args['space_id']}", "#META", "space")
        counts: dict[str, int] = {}
        for entry in _booking_items(state):
            if entry["GSI1PK"]["S"] == f"SPACE#{args['space_id']}":
                owner = entry["PK"]["S"][7:]
                counts[owner] = counts.get(owner, 0) + 1
        names = {
            e["PK"]["S"][7:]: e["fullName"]["S"]
            for e in state["Items"]
            if e["SK"]["S"] == "PROFILE"
        }
        return {
            "space_id": args["space_id"],
            "members": [
                {"member_id": int(m), "fullName": names[m], "bookings": c}
                for m, c in sorted(counts.items())
            ],
        }, []

    def _usage(self, state: State, args: dict[str, Any]) -> Answer:
        spaces = {k: s for k, s in _spaces(state) if s["site"] == args["site_code"]}
        if not spaces:
            raise ToolError(f"no site {args['site_code']}")
        prefix = f"SPACE#{args['site_code']}-"
        booked = [_booked(e) for e in _booking_items(state) if e["GSI1PK"]["S"].startswith(prefix)]
        paid = [b for b in booked if b["status"] != "cancelled"]
        return {
            "site_code": args["site_code"],
            "spaces": len(spaces),
            "bookings": len(booked),
            "hours_booked": summary("sum", [b["hours"] for b in paid]),
            "revenue": summary("sum", [b["amount"] for b in paid]),
            "mean_hours": summary("mean", [b["hours"] for b in booked]),
            "kinds_booked": summary("distinct", [spaces[b["space"]]["kind"] for b in booked]),
        }, []

    def _book(self, state: State, args: dict[str, Any]) -> Answer:
        at = self._index(state, f"MEMBER#{args['member_id']}", "PROFILE", "member")
        where = self._index(state, f"SPACE#{args['space_id']}", "#META", "space")
        count = self._index(state, *COUNTER, "counter")
        if not args["hours"] > 0:
            raise ToolError("hours must be positive")
        credits = plain(state["Items"][at]["credits"])
        used = min(credits, args["hours"])
        rate = plain(state["Items"][where]["hourlyRate"])
        ref = plain(state["Items"][count]["next"])
        booking = item(
            f"MEMBER#{args['member_id']}",
            f"BOOKING#{args['start'][:10]}#{ref}",
            type="Booking",
            GSI1PK=f"SPACE#{args['space_id']}",
            GSI1SK=args["start"],
            startsAt=args["start"],
            hours=args["hours"],
            amount=round((args["hours"] - used) * rate, 2),
            status="confirmed",
            guests=[],
        )
        size = len(state["Items"]) + 1
        answer = {"booking_ref": ref, "date": args["start"][:10], **_booked(booking)}
        return answer, [
            {"op": "add", "path": pointer("Items", "-"), "value": booking},
            {"op": "replace", "path": pointer("Items", count, "next"), "value": typed(ref + 1)},
            {
                "op": "replace",
                "path": pointer("Items", at, "credits"),
                "value": typed(credits - used),
            },
            {"op": "replace", "path": "/Count", "value": size},
            {"op": "replace", "path": "/ScannedCount", "value": size},
        ]

    def _members(self, state: State) -> list[int]:
        return [int(e["PK"]["S"][7:]) for e in state["Items"] if e["SK"]["S"] == "PROFILE"]

    def lookup(self, rng: random.Random, state: State) -> Planned:
        return Planned("lookup", "get_member", {"member_id": rng.choice(self._members(state))})

    def nested_lookup(self, rng: random.Random, state: State) -> Planned:
        entry = rng.choice(_booking_items(state))
        member, ref = int(entry["PK"]["S"][7:]), int(entry["SK"]["S"].rsplit("#", 1)[1])
        return Planned("nested_lookup", "get_booking", {"member_id": member, "booking_ref": ref})

    def search(self, rng: random.Random, state: State) -> Planned:
        return Planned("search", "list_spaces", self.finder.plan(rng, state))

    def join(self, rng: random.Random, state: State) -> Planned:
        return Planned(
            "join",
            "space_bookers",
            {"space_id": rng.choice(_booking_items(state))["GSI1PK"]["S"][6:]},
        )

    def aggregate(self, rng: random.Random, state: State) -> Planned:
        site = rng.choice(_spaces(state))[1]["site"]
        return Planned("aggregate", "site_usage", {"site_code": site})

    def write(self, rng: random.Random, state: State) -> tuple[Planned, Planned]:
        member = rng.choice(self._members(state))
        start = (
            f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T{rng.randint(7, 17):02d}:00"
        )
        args = {
            "member_id": member,
            "space_id": rng.choice(_spaces(state))[0],
            "start": start,
            "hours": rng.choice([1, 2, 2.5, 4]),
        }
        count = self._index(state, *COUNTER, "counter")
        ref = plain(state["Items"][count]["next"])
        return Planned("write", "book_space", args), Planned(
            "read_after_write", "get_booking", {"member_id": member, "booking_ref": ref}
        )

    def no_match(self, rng: random.Random, state: State) -> Planned:
        site = rng.choice(_spaces(state))[1]["site"]
        return Planned("empty", "list_spaces", {"site_code": site, "min_capacity": 500})
