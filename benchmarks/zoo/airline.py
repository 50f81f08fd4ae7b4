"""``airline``: flights in an object keyed by flight number, the number not a field; each
flight with a calendar keyed by date (seats and prices per cabin); searches by ``from``/``to``
(the fields are ``origin``/``destination``) and one-stop journeys (legs from A, legs into B,
meeting in between)."""

from __future__ import annotations

import datetime as dt
import random
import string
from typing import Any

from benchmarks.zoo.kit import (
    Answer,
    Planned,
    State,
    Tool,
    ToolError,
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

AIRPORTS = names("JFK LAX ORD ATL DFW DEN SEA SFO MIA BOS PHX IAH MSP DTW CLT LAS EWR PHL")
CABINS = ["basic_economy", "economy", "business"]
START = dt.date(2025, 5, 1)


def _dates(count: int) -> list[str]:
    return [(START + dt.timedelta(days=d)).isoformat() for d in range(count)]


def _legs(state: State, date: str, **where: str) -> list[dict[str, Any]]:
    legs = []
    for number, flight in state["flights"].items():
        on = flight["dates"].get(date)
        if on and on["status"] == "available" and all(flight[k] == v for k, v in where.items()):
            fields = {k: v for k, v in flight.items() if k != "dates"}
            legs.append(
                {
                    "flight_number": number,
                    **fields,
                    "date": date,
                    **{k: v for k, v in on.items() if k != "status"},
                }
            )
    return legs


def _direct(state: State, args: dict[str, Any]) -> Answer:
    legs = _legs(state, args["date"], origin=args["from"], destination=args["to"])
    cap = args.get("max_price")
    return [leg for leg in legs if cap is None or leg["prices"]["economy"] <= cap], []


def _onestop(state: State, args: dict[str, Any]) -> Answer:
    pairs = []
    for first in _legs(state, args["date"], origin=args["from"]):
        for second in _legs(
            state, args["date"], origin=first["destination"], destination=args["to"]
        ):
            if second["scheduled_departure_time_est"] > first["scheduled_arrival_time_est"]:
                pairs.append([first, second])
    return pairs[:15], []


def _fares(state: State, args: dict[str, Any]) -> Answer:
    flights = [
        f
        for f in state["flights"].values()
        if f["origin"] == args["origin"] and f["destination"] == args["destination"]
    ]
    fares = [d["prices"]["economy"] for f in flights for d in f["dates"].values()]
    return {
        "flights": len(flights),
        "lowest_economy": summary("min", fares),
        "highest_economy": summary("max", fares),
    }, []


class Airline(Shape):
    name = "airline"
    title = "Airline reservations"
    description = (
        "An airline's reservation system: flights (keyed by flight number) with per-date "
        "availability and prices per cabin, and reservations. Answers are JSON; errors are "
        "text starting with 'Error:'."
    )

    def __init__(self, days: int = 21) -> None:
        self.days = days

    def build(self, rng: random.Random, target_bytes: int) -> State:
        state: State = {"flights": {}, "reservations": {}}
        dates = _dates(self.days)

        def flight() -> None:
            number = f"HAT{len(state['flights']) * 3 + rng.randint(0, 2):03d}"
            origin, destination = rng.sample(AIRPORTS, 2)
            hour = rng.randint(5, 21)
            calendar = {}
            for date in dates:
                base = rng.randint(60, 400)
                calendar[date] = {
                    "status": rng.choice(["available", "available", "available", "cancelled"]),
                    "available_seats": {c: rng.randint(0, 20) for c in CABINS},
                    "prices": {"basic_economy": base, "economy": base + 40, "business": base * 3},
                }
            state["flights"][number] = {
                "origin": origin,
                "destination": destination,
                "scheduled_departure_time_est": f"{hour:02d}:{rng.choice(['00', '30'])}:00",
                "scheduled_arrival_time_est": f"{min(23, hour + rng.randint(1, 5)):02d}:00:00",
                "dates": calendar,
            }

        def reservation() -> None:
            number = rng.choice(sorted(state["flights"]))
            code = "".join(rng.choice(string.ascii_uppercase + string.digits) for _ in range(6))
            first, last = person(rng)
            state["reservations"][code] = {
                "user_id": f"{first.lower()}_{last.lower()}_{rng.randint(1000, 9999)}",
                "flights": [{"flight_number": number, "date": rng.choice(dates)}],
                "cabin": rng.choice(CABINS),
                "passengers": [{"first_name": first, "last_name": last}],
                "payment": {"method": rng.choice(["card", "gift_card", "certificate"])},
            }

        fill(flight, lambda: size_of(state["flights"]), int(target_bytes * 0.7))
        fill(reservation, lambda: size_of(state), target_bytes)
        return state

    def tools(self) -> list[Tool]:
        number = {"flight_number": prop("string", "Flight number, e.g. HAT001.")}
        date = {"date": prop("string", "YYYY-MM-DD.")}
        route = {
            "from": prop("string", "Origin airport (IATA)."),
            "to": prop("string", "Destination airport."),
        }
        return [
            Tool("get_flight", "A flight's schedule.", number, self._flight, ("flight_number",)),
            Tool(
                "get_reservation",
                "A reservation.",
                {"reservation_id": prop("string", "Id.")},
                self._reservation,
                ("reservation_id",),
            ),
            Tool(
                "get_flight_status",
                "A flight on a date: status, seats left and prices per cabin.",
                number | date,
                self._on_date,
                ("flight_number", "date"),
            ),
            Tool(
                "search_direct_flight",
                "Direct flights between two airports on a date that are available.",
                route | date | {"max_price": prop("number", "Highest economy price.")},
                _direct,
                ("from", "to", "date"),
            ),
            Tool(
                "search_onestop_flight",
                "One-stop journeys between two airports on a date: pairs of flights, the "
                "second leaving from where the first lands, after it lands.",
                route | date,
                _onestop,
                ("from", "to", "date"),
            ),
            Tool(
                "route_fares",
                "The number of flights between two airports and their lowest and highest "
                "economy fare over all dates.",
                {
                    "origin": prop("string", "IATA code."),
                    "destination": prop("string", "IATA code."),
                },
                _fares,
                ("origin", "destination"),
            ),
            self._booking_tool(number | date),
            note_tool("think", "thought", "Think out loud (answers nothing)."),
        ]

    def _booking_tool(self, keys: dict[str, dict[str, Any]]) -> Tool:
        return Tool(
            "book_reservation",
            "Book one passenger on a flight on a date.",
            keys
            | {
                "cabin": prop("string", "Cabin.", enum=CABINS),
                "first_name": prop("string", "Passenger's first name."),
                "last_name": prop("string", "Passenger's last name."),
                "user_id": prop("string", "Booking user's id."),
            },
            self._book,
            ("flight_number", "date", "cabin", "first_name", "last_name", "user_id"),
            effect="write",
        )

    def _flight(self, state: State, args: dict[str, Any]) -> Answer:
        found = state["flights"].get(args["flight_number"])
        if found is None:
            raise ToolError("Flight not found")
        return {"flight_number": args["flight_number"], **found}, []

    def _reservation(self, state: State, args: dict[str, Any]) -> Answer:
        found = state["reservations"].get(args["reservation_id"])
        if found is None:
            raise ToolError("Reservation not found")
        return {"reservation_id": args["reservation_id"], **found}, []

    def _on_date(self, state: State, args: dict[str, Any]) -> Answer:
        found = self._flight(state, args)[0]["dates"].get(args["date"])
        if found is None:
            raise ToolError("Flight does not fly on that date")
        return found, []

    def _book(self, state: State, args: dict[str, Any]) -> Answer:
        on = self._on_date(state, args)[0]
        cabin = args["cabin"]
        if on["status"] != "available" or on["available_seats"][cabin] < 1:
            raise ToolError("no seat available")
        code = f"ZB{len(state['reservations']) + 1000:04d}"
        record = {
            "user_id": args["user_id"],
            "flights": [
                {
                    "flight_number": args["flight_number"],
                    "date": args["date"],
                    "price": on["prices"][cabin],
                }
            ],
            "cabin": cabin,
            "passengers": [{"first_name": args["first_name"], "last_name": args["last_name"]}],
            "payment": {"method": "card"},
        }
        seats = pointer(
            "flights", args["flight_number"], "dates", args["date"], "available_seats", cabin
        )
        return {"reservation_id": code, **record}, [
            {"op": "add", "path": pointer("reservations", code), "value": record},
            {"op": "replace", "path": seats, "value": on["available_seats"][cabin] - 1},
        ]

    def _any_leg(self, rng: random.Random, state: State) -> tuple[str, dict[str, Any], str]:
        number = rng.choice(sorted(state["flights"]))
        flight = state["flights"][number]
        return number, flight, rng.choice(sorted(flight["dates"]))

    def lookup(self, rng: random.Random, state: State) -> Planned:
        if rng.random() < 0.7:
            return Planned("lookup", "get_flight", {"flight_number": self._any_leg(rng, state)[0]})
        return Planned(
            "lookup",
            "get_reservation",
            {"reservation_id": rng.choice(sorted(state["reservations"]))},
        )

    def nested_lookup(self, rng: random.Random, state: State) -> Planned:
        number, _, date = self._any_leg(rng, state)
        return Planned(
            "nested_lookup", "get_flight_status", {"flight_number": number, "date": date}
        )

    def search(self, rng: random.Random, state: State) -> Planned:
        _, flight, date = self._any_leg(rng, state)
        while flight["dates"][date]["status"] != "available":
            _, flight, date = self._any_leg(rng, state)
        args: dict[str, Any] = {"from": flight["origin"], "to": flight["destination"], "date": date}
        if rng.random() < 0.3:
            args["max_price"] = flight["dates"][date]["prices"]["economy"] + rng.randint(0, 50)
        return Planned("search", "search_direct_flight", args)

    def join(self, rng: random.Random, state: State) -> Planned:
        for _ in range(50):
            _, first, date = self._any_leg(rng, state)
            args = {"from": first["origin"], "to": rng.choice(AIRPORTS), "date": date}
            if args["to"] != args["from"] and _onestop(state, args)[0]:
                break
        return Planned("join", "search_onestop_flight", args)

    def aggregate(self, rng: random.Random, state: State) -> Planned:
        _, flight, _ = self._any_leg(rng, state)
        return Planned(
            "aggregate",
            "route_fares",
            {"origin": flight["origin"], "destination": flight["destination"]},
        )

    def write(self, rng: random.Random, state: State) -> tuple[Planned, Planned]:
        while True:
            number, flight, date = self._any_leg(rng, state)
            on, cabin = flight["dates"][date], rng.choice(CABINS)
            if on["status"] == "available" and on["available_seats"][cabin] > 0:
                break
        first, last = person(rng)
        args = {
            "flight_number": number,
            "date": date,
            "cabin": cabin,
            "first_name": first,
            "last_name": last,
            "user_id": f"{first.lower()}_{last.lower()}_{rng.randint(1000, 9999)}",
        }
        code = f"ZB{len(state['reservations']) + 1000:04d}"
        read = Planned("read_after_write", "get_reservation", {"reservation_id": code})
        return Planned("write", "book_reservation", args), read

    def no_match(self, rng: random.Random, state: State) -> Planned:
        # A real route on a day before the schedule starts.
        _, flight, _ = self._any_leg(rng, state)
        before = (START - dt.timedelta(days=rng.randint(1, 60))).isoformat()
        args = {"from": flight["origin"], "to": flight["destination"], "date": before}
        return Planned("empty", "search_direct_flight", args)
