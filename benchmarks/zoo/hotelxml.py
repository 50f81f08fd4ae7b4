"""``hotelxml``: a hotel system's XML export as ``xmltodict`` turns it into JSON: one
root element; attributes as ``"@name"`` keys, an element's text beside attributes as ``"#text"``
(``{"@currency": "EUR", "#text": "129.95"}``), every value a string; a repeated element is a
list but a lone one is an object and an empty one is ``null`` (a folio of no lines, one line, or
many); guests referenced by ``GuestRef/@idref``. Tools take snake_case arguments and answer
typed JSON; posting a charge turns a lone folio line into a list. The guests of a room is a join
through the reservations; a hotel's month is a summary no element holds."""

from __future__ import annotations

import datetime as dt
import random
from typing import Any

from benchmarks.zoo.hotelxml_export import (
    CHARGES,
    PLANS,
    STATUSES,
    folio_line,
    hotel,
    money,
    reservation,
)
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
)
from benchmarks.zoo.shape import Shape


def listed(element: Any) -> list[Any]:
    """A repeated element's items: ``xmltodict`` gives a lone one as itself, none as ``null``."""
    if element is None:
        return []
    return element if isinstance(element, list) else [element]


def _root(state: State) -> dict[str, Any]:
    root: dict[str, Any] = state["PMSExport"]
    return root


def _stays(state: State) -> list[dict[str, Any]]:
    return listed(_root(state)["Reservations"]["Reservation"])


def _flat(r: dict[str, Any]) -> dict[str, Any]:
    """A reservation as the API shows it."""
    stay, plan = r["Stay"], r["RatePlan"]
    shown = {
        "confirmation": r["@confirmation"],
        "status": r["@status"],
        "created": r["@created"],
        "guest_id": r["GuestRef"]["@idref"],
        "hotel": stay["@hotel"],
        "room": stay["@room"],
        "arrival": stay["Arrival"],
        "departure": stay["Departure"],
        "adults": int(stay["Adults"]),
        "children": int(stay["Children"]),
        "rate_plan": plan["@code"],
        "nightly_rate": float(plan["Nightly"]["#text"]),
        "currency": plan["Nightly"]["@currency"],
    }
    return shown | ({"remarks": r["Remarks"]} if "Remarks" in r else {})


def _lines(stay: dict[str, Any]) -> list[dict[str, Any]]:
    """A reservation's folio lines (a folio of none is ``null``)."""
    return listed((stay["Folio"] or {}).get("Line"))


def _records(state: State) -> list[tuple[str, dict[str, Any]]]:
    return [(r["@confirmation"], _flat(r)) for r in _stays(state)]


def _nights(stay: dict[str, Any]) -> int:
    arrival, departure = (dt.date.fromisoformat(stay[k]) for k in ("arrival", "departure"))
    return (departure - arrival).days


def _line(line: dict[str, Any]) -> dict[str, Any]:
    return {
        "line_no": int(line["@no"]),
        "posted": line["@posted"],
        "code": line["Code"],
        "description": line["Description"],
        "amount": float(line["Amount"]["#text"]),
        "currency": line["Amount"]["@currency"],
    }


class HotelXml(Shape):
    name = "hotelxml"
    title = "Hotel group, property management export"
    description = (
        "A hotel group's property management system, served from its nightly XML export: "
        "hotels and rooms, guests, reservations and their folios of charges. Answers are JSON; "
        "times are local; money in EUR; errors are text starting with 'Error:'."
    )
    note = ("scratchpad", "text")

    def __init__(self) -> None:
        self.finder = Search(
            "find_reservations",
            "Reservations by hotel, status, arrival date range, rate plan, adults and room.",
            _records,
            [
                Filter("hotel_code", "hotel", "eq", prop("string", "Hotel code, e.g. OBA.")),
                Filter("status", "status", "eq", prop("string", "Status.", enum=STATUSES)),
                Filter("arriving_from", "arrival", "ge", prop("string", "YYYY-MM-DD.")),
                Filter("arriving_until", "arrival", "le", prop("string", "YYYY-MM-DD.")),
                Filter("rate_code", "rate_plan", "eq", prop("string", "Rate plan.", enum=PLANS)),
                Filter("min_adults", "adults", "ge", prop("integer", "Fewest adults.")),
                Filter("room_number", "room", "eq", prop("string", "Room, e.g. 204.")),
            ],
            lambda key, r: {
                k: r[k] for k in ("confirmation", "hotel", "room", "arrival", "departure", "status")
            },
            limit=20,
            wrap="reservations",
        )

    def build(self, rng: random.Random, target_bytes: int) -> State:
        hotels = [hotel(rng, city) for city in CITIES]
        guests: list[dict[str, Any]] = []
        stays: list[dict[str, Any]] = []

        def guest() -> None:
            ident = f"G{len(guests) * 7 + 100003:07d}"
            first, last = person(rng)
            entry: dict[str, Any] = {
                "@id": ident,
                "Name": {"Given": first, "Family": last},
                "Email": f"{first.lower()}.{last.lower()}{len(guests)}@guest.example",
                "Nationality": rng.choice(["GB", "IE", "NO", "DE", "FR", "US", "JP"]),
            }
            if rng.random() < 0.35:
                tier = rng.choice(["silver", "gold", "platinum"])
                entry["Loyalty"] = {"@tier": tier, "#text": f"LY{rng.randint(10**6, 10**7):d}"}
            guests.append(entry)
            for _ in range(rng.randint(1, 4)):
                stays.append(reservation(rng, rng.choice(hotels), ident, len(stays) + 4001))

        root = {
            "@xmlns": "urn:example:pms:2",
            "@generated": "2025-12-31T23:00:00",
            "Hotels": {"Hotel": hotels},
            "Guests": {"Guest": guests},
            "Reservations": {"Reservation": stays},
        }
        fill(guest, lambda: size_of(root), target_bytes)
        return {"PMSExport": root}

    def tools(self) -> list[Tool]:
        confirmation = {"confirmation_number": prop("string", "E.g. OBA-2503-004217.")}
        return [
            Tool(
                "get_reservation",
                "A reservation.",
                confirmation,
                self._get,
                ("confirmation_number",),
            ),
            Tool(
                "get_folio_line",
                "One line of a reservation's folio (its charges).",
                confirmation | {"line_no": prop("integer", "Line number, from 1.")},
                self._folio,
                ("confirmation_number", "line_no"),
            ),
            self.finder.tool(),
            Tool(
                "room_guests",
                "The guests who stayed in (or booked) a room, with their stays.",
                {
                    "hotel_code": prop("string", "Hotel code."),
                    "room_number": prop("string", "Room, e.g. 204."),
                },
                self._room_guests,
                ("hotel_code", "room_number"),
            ),
            Tool(
                "hotel_month",
                "A hotel's arrivals in a month (cancellations left out): count, room nights, "
                "room revenue, folio charges, mean stay, rate plans.",
                {"hotel_code": prop("string", "Hotel code."), "month": prop("string", "YYYY-MM.")},
                self._month,
                ("hotel_code", "month"),
            ),
            Tool(
                "post_charge",
                "Post a charge to a reservation's folio.",
                confirmation
                | {
                    "charge_code": prop("string", "Code.", enum=list(CHARGES)),
                    "amount": prop("number", "EUR."),
                    "posted_at": prop("string", "YYYY-MM-DDTHH:MM."),
                },
                self._post,
                ("confirmation_number", "charge_code", "amount", "posted_at"),
                effect="write",
            ),
            note_tool("scratchpad", "text", "Write on the scratchpad (answers nothing)."),
        ]

    def _index(self, state: State, confirmation: str) -> int:
        for n, stay in enumerate(_stays(state)):
            if stay["@confirmation"] == confirmation:
                return n
        raise ToolError(f"reservation {confirmation} not found")

    def _get(self, state: State, args: dict[str, Any]) -> Answer:
        n = self._index(state, args["confirmation_number"])
        return _flat(_stays(state)[n]), []

    def _folio(self, state: State, args: dict[str, Any]) -> Answer:
        stay = _stays(state)[self._index(state, args["confirmation_number"])]
        for line in _lines(stay):
            if line["@no"] == str(args["line_no"]):
                return _line(line), []
        raise ToolError(f"no folio line {args['line_no']}")

    def _room_guests(self, state: State, args: dict[str, Any]) -> Answer:
        found: dict[str, list[str]] = {}
        for stay in _stays(state):
            where = stay["Stay"]
            if (where["@hotel"], where["@room"]) == (args["hotel_code"], args["room_number"]):
                found.setdefault(stay["GuestRef"]["@idref"], []).append(stay["@confirmation"])
        if not found:
            raise ToolError(f"no stays in room {args['room_number']} of {args['hotel_code']}")
        guests = {g["@id"]: g for g in listed(_root(state)["Guests"]["Guest"]) if g["@id"] in found}
        return {
            "hotel_code": args["hotel_code"],
            "room_number": args["room_number"],
            "guests": [
                {
                    "guest_id": ident,
                    "given_name": guests[ident]["Name"]["Given"],
                    "family_name": guests[ident]["Name"]["Family"],
                    "stays": stays,
                }
                for ident, stays in sorted(found.items())
            ],
        }, []

    def _month(self, state: State, args: dict[str, Any]) -> Answer:
        chosen = [
            s
            for s in _stays(state)
            if s["Stay"]["@hotel"] == args["hotel_code"]
            and s["Stay"]["Arrival"].startswith(args["month"])
            and s["@status"] != "cancelled"
        ]
        shown = [_flat(s) for s in chosen]
        nights = [_nights(s) for s in shown]
        charges = [float(ln["Amount"]["#text"]) for s in chosen for ln in _lines(s)]
        return {
            "hotel_code": args["hotel_code"],
            "month": args["month"],
            "arrivals": len(shown),
            "room_nights": sum(nights),
            "room_revenue": summary(
                "sum", [round(s["nightly_rate"] * n, 2) for s, n in zip(shown, nights, strict=True)]
            ),
            "folio_charges": summary("sum", charges),
            "mean_nights": summary("mean", nights),
            "rate_plans": summary("distinct", [s["rate_plan"] for s in shown]),
        }, []

    def _post(self, state: State, args: dict[str, Any]) -> Answer:
        n = self._index(state, args["confirmation_number"])
        stay = _stays(state)[n]
        if stay["@status"] not in ("checked-in", "checked-out"):
            raise ToolError("charges go only to a guest who has checked in")
        if args["charge_code"] not in CHARGES or not args["amount"] > 0:
            raise ToolError("unknown charge code or amount not positive")
        lines = _lines(stay)
        line = folio_line(
            len(lines) + 1,
            args["posted_at"],
            args["charge_code"],
            CHARGES[args["charge_code"]],
            f"{args['amount']:.2f}",
        )
        folio = pointer("PMSExport", "Reservations", "Reservation", n, "Folio")
        patch: list[dict[str, Any]]
        if not lines:
            patch = [{"op": "replace", "path": folio, "value": {"Line": line}}]
        elif len(lines) == 1:
            patch = [{"op": "replace", "path": folio + "/Line", "value": [*lines, line]}]
        else:
            patch = [{"op": "add", "path": folio + "/Line/-", "value": line}]
        return {"confirmation": args["confirmation_number"], "posted": _line(line)}, patch

    def lookup(self, rng: random.Random, state: State) -> Planned:
        confirmation = rng.choice(_stays(state))["@confirmation"]
        return Planned("lookup", "get_reservation", {"confirmation_number": confirmation})

    def nested_lookup(self, rng: random.Random, state: State) -> Planned:
        stay = rng.choice([s for s in _stays(state) if s["Folio"]])
        line = rng.choice(listed(stay["Folio"]["Line"]))
        args = {"confirmation_number": stay["@confirmation"], "line_no": int(line["@no"])}
        return Planned("nested_lookup", "get_folio_line", args)

    def search(self, rng: random.Random, state: State) -> Planned:
        return Planned("search", "find_reservations", self.finder.plan(rng, state))

    def join(self, rng: random.Random, state: State) -> Planned:
        where = rng.choice(_stays(state))["Stay"]
        args = {"hotel_code": where["@hotel"], "room_number": where["@room"]}
        return Planned("join", "room_guests", args)

    def aggregate(self, rng: random.Random, state: State) -> Planned:
        where = rng.choice(_stays(state))["Stay"]
        args = {"hotel_code": where["@hotel"], "month": where["Arrival"][:7]}
        return Planned("aggregate", "hotel_month", args)

    def write(self, rng: random.Random, state: State) -> tuple[Planned, Planned]:
        stay = rng.choice(
            [s for s in _stays(state) if s["@status"] in ("checked-in", "checked-out")]
        )
        code = rng.choice(list(CHARGES))
        args = {
            "confirmation_number": stay["@confirmation"],
            "charge_code": code,
            "amount": float(money(rng, 4, 150)),
            "posted_at": f"{stay['Stay']['Departure']}T{rng.randint(7, 11):02d}:{rng.randint(0, 59):02d}",
        }
        line = len(_lines(stay)) + 1
        return Planned("write", "post_charge", args), Planned(
            "read_after_write",
            "get_folio_line",
            {"confirmation_number": stay["@confirmation"], "line_no": line},
        )

    def no_match(self, rng: random.Random, state: State) -> Planned:
        hotel = rng.choice(_stays(state))["Stay"]["@hotel"]
        return Planned("empty", "find_reservations", {"hotel_code": hotel, "min_adults": 9})
