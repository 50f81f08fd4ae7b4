"""Generated worlds of real size and shape, with recorded calls answered by real tool code.

The grounding work (choosing which part of a large state the world model is shown) has to hold
on worlds nobody on the team wrote and of shapes nobody tuned for. This module makes such worlds
for the tests and the benchmark, with no dependency on any data outside the repository:

- a world spec (``world``, ``title``, ``tools`` with real JSON Schemas, the database as
  ``state``) written the way ``mcp-sim import`` or a user would write it: **no grounding hints**
  (no ``entities``, ``ids`` or ``canon``);
- real Python implementations of its tools over that state (lookups by id or key, attribute
  searches, lists and writes), answering as a real service would: JSON text, bare text, or an
  ``Error: ...`` text;
- recorded calls, one JSON object a line, in episodes that start from a fresh copy of the state
  and carry it over from call to call (``episode``, ``step``, ``tool``, ``arguments``,
  ``response``, ``is_error``, ``patch``: the RFC 6902 patch from the state before the call to
  the state after it, ``[]`` for reads and failed writes). Each episode also makes a few
  deliberate mistakes (lookups of ids that do not exist), as agents do.

Shapes (``SHAPES``), each deterministic by seed and scaled to a target size:

- ``ferry`` — collections as objects keyed by id whose records do not repeat their key:
  sailings keyed by code, each with a per-date map of sub-records; bookings and passengers keyed
  by id; links (a booking names its passenger and sailing), nested maps of cards.
- ``clinic`` — collections as arrays of records with id fields (string and integer ids),
  linked by id; dates, booleans, money.
- ``warehouse`` — collections nested under sub-objects (``/catalog/items``,
  ``/partners/suppliers``, ``/operations/shipments``), mixing keyed objects and arrays, with a
  per-variant map of sub-records under each item.

Command line (the benchmark runs on what it writes)::

    python tests/world_generator.py --shape ferry --size-mb 4 --seed 7 OUTDIR

writes ``OUTDIR/world.yaml`` and ``OUTDIR/calls.jsonl`` (``--episodes N``, 100 by default;
``--detail N`` sub-records per record: dated departures per sailing, diary days, variants per
item). On this 2-core machine a 4 MB world and 100 episodes take about a minute, most of it
writing YAML.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import random
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import jsonpatch

from mcp_sim.authoring.world_yaml import world_yaml

JSON = Any
State = dict[str, Any]

FIRST_NAMES = [
    "Ana",
    "Bruno",
    "Chiara",
    "Dmitri",
    "Elif",
    "Farah",
    "Goran",
    "Hana",
    "Ines",
    "Jonas",
    "Kaito",
    "Lena",
    "Mateo",
    "Nadia",
    "Omar",
    "Priya",
    "Quinn",
    "Rosa",
    "Sami",
    "Tariq",
    "Uma",
    "Viktor",
    "Wen",
    "Ximena",
    "Yusuf",
    "Zofia",
]
LAST_NAMES = [
    "Abara",
    "Berg",
    "Castillo",
    "Dubois",
    "Eriksen",
    "Fontaine",
    "Gallo",
    "Haddad",
    "Ibsen",
    "Jensen",
    "Kovac",
    "Laine",
    "Moreau",
    "Novak",
    "Okafor",
    "Petrov",
    "Quist",
    "Rossi",
    "Sato",
    "Tanaka",
    "Urban",
    "Varga",
    "Weber",
    "Xu",
    "Yilmaz",
    "Zeller",
]
PLACES = [
    "Aldmouth",
    "Brimhaven",
    "Corran",
    "Dunmore",
    "Eastwick",
    "Fairport",
    "Glenarm",
    "Harrowby",
    "Islay",
    "Jura",
    "Kellsey",
    "Larne",
    "Mallow",
    "Northcove",
    "Oban",
    "Portree",
    "Quayle",
    "Rosslare",
    "Stornoway",
    "Tarbert",
]
WORDS = [
    "alpha",
    "amber",
    "basalt",
    "cedar",
    "delta",
    "ember",
    "fjord",
    "granite",
    "harbor",
    "indigo",
    "juniper",
    "kelp",
    "lagoon",
    "meadow",
    "nimbus",
    "onyx",
    "pine",
    "quartz",
    "ridge",
    "saffron",
    "tidal",
    "umber",
    "vale",
    "willow",
    "zephyr",
]


class ToolError(Exception):
    """A tool's refusal; recorded as the response ``Error: <message>``."""


class Shape(Protocol):
    """One kind of world: its state, its tools' specs and code, and how its episodes go."""

    name: str
    title: str
    description: str

    def build_state(self, rng: random.Random, target_bytes: int) -> State: ...

    def tool_specs(self) -> list[dict[str, Any]]: ...

    def run(self, state: State, tool: str, arguments: dict[str, Any]) -> str: ...

    def episode(self, rng: random.Random, state: State) -> Iterator[tuple[str, dict[str, Any]]]:
        """The calls of one episode; it may read ``state`` (changed by the calls before) to
        choose the next one."""
        ...


@dataclass(frozen=True)
class RecordedCall:
    episode: int
    step: int
    tool: str
    arguments: dict[str, Any]
    response: str
    is_error: bool
    patch: list[dict[str, Any]]

    def to_json(self) -> dict[str, Any]:
        return {
            "episode": self.episode,
            "step": self.step,
            "tool": self.tool,
            "arguments": self.arguments,
            "response": self.response,
            "is_error": self.is_error,
            "patch": self.patch,
        }


# ---------------------------------------------------------------------------------------------
# helpers shared by the shapes


def _size(value: JSON) -> int:
    return len(json.dumps(value))


def _fill(add: Callable[[], object], measure: Callable[[], int], target: int) -> None:
    """Call ``add`` (at least 4 times) until ``measure`` reaches ``target`` bytes, measuring
    after batches that halve the remaining gap: measuring a multi-MB state after every record
    would take minutes."""
    start = measure()
    added = 0
    size = start
    batch = 4
    while True:
        for _ in range(batch):
            add()
        added += batch
        size = measure()
        if size >= target:
            return
        per_add = max(1.0, (size - start) / added)
        batch = max(1, int((target - size) / per_add / 2))


def _date(base: dt.date, days: int) -> str:
    return (base + dt.timedelta(days=days)).isoformat()


def _person(rng: random.Random) -> tuple[str, str]:
    return rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)


def _text(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words))


def _tool(
    name: str,
    description: str,
    properties: dict[str, Any],
    required: list[str],
    effect: str = "read",
) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    return {"name": name, "description": description, "input_schema": schema, "effect": effect}


def _str(description: str, **extra: Any) -> dict[str, Any]:
    return {"type": "string", "description": description, **extra}


def _find(records: list[dict[str, Any]], field: str, value: Any) -> dict[str, Any] | None:
    return next((r for r in records if r.get(field) == value), None)


def _wrong_id(existing: Callable[[str], bool], real: str) -> str:
    """A near miss of ``real`` (its last character changed) that names nothing."""
    alphabet = "0123456789" if real[-1].isdigit() else "ABCDEFGHJKLMNPQRSTUVWXYZ"
    for ch in alphabet:
        candidate = real[:-1] + ch
        if candidate != real and not existing(candidate):
            return candidate
    return real + "0"


# ---------------------------------------------------------------------------------------------
# ferry: objects keyed by id, records without their key, per-date sub-record maps


class FerryShape:
    name = "ferry"
    title = "Island ferry operator, booking desk"
    description = (
        "The booking desk of a ferry operator serving island ports. Staff look up passengers, "
        "bookings and sailings (each sailing has a schedule of dated departures), search "
        "departures by route and date, and book or cancel trips. Tools answer with JSON text; "
        "a passenger lookup by email answers with the bare passenger id; errors are plain text "
        "starting with 'Error:'."
    )
    base = dt.date(2025, 5, 1)

    def __init__(self, dates_per_sailing: int = 20) -> None:
        self.dates_per_sailing = dates_per_sailing

    def build_state(self, rng: random.Random, target_bytes: int) -> State:
        state: State = {"sailings": {}, "bookings": {}, "passengers": {}}
        # A third of the bytes in the schedule, the rest shared by passengers and bookings.
        _fill(
            lambda: self._add_sailing(rng, state),
            lambda: _size(state["sailings"]),
            int(target_bytes * 0.35),
        )
        _fill(lambda: self._add_customer(rng, state), lambda: _size(state), target_bytes)
        return state

    def _add_customer(self, rng: random.Random, state: State) -> None:
        passenger_id = self._add_passenger(rng, state)
        for _ in range(rng.randint(1, 3)):
            self._add_booking(rng, state, passenger_id)

    def _add_sailing(self, rng: random.Random, state: State) -> None:
        code = f"FR{1000 + len(state['sailings']) * 7 + rng.randint(0, 6)}"
        origin, destination = rng.sample(PLACES, 2)
        start = rng.randint(0, 10)
        schedule = {
            _date(self.base, start + d): {
                "status": rng.choice(["scheduled", "scheduled", "scheduled", "cancelled", "full"]),
                "seats_left": rng.randint(0, 240),
                "vehicle_deck_open": rng.random() < 0.7,
                "fare": round(rng.uniform(12, 95), 2),
            }
            for d in range(self.dates_per_sailing)
        }
        state["sailings"][code] = {
            "origin": origin,
            "destination": destination,
            "departs": f"{rng.randint(5, 21):02d}:{rng.choice(['00', '15', '30', '45'])}",
            "duration_min": rng.randint(35, 300),
            "vessel": f"MV {rng.choice(WORDS).title()} {rng.choice(WORDS).title()}",
            "dates": schedule,
        }

    def _add_passenger(self, rng: random.Random, state: State) -> str:
        first, last = _person(rng)
        passenger_id = f"{first.lower()}_{last.lower()}_{rng.randint(1000, 9999)}"
        while passenger_id in state["passengers"]:
            passenger_id += str(rng.randint(0, 9))
        cards = {
            f"card_{rng.randint(100000, 999999)}": {
                "brand": rng.choice(["visa", "mastercard", "amex"]),
                "last_four": f"{rng.randint(0, 9999):04d}",
                "expires": f"{rng.randint(1, 12):02d}/{rng.randint(26, 31)}",
            }
            for _ in range(rng.randint(1, 2))
        }
        state["passengers"][passenger_id] = {
            "name": {"first": first, "last": last},
            "email": f"{first.lower()}.{last.lower()}{rng.randint(10, 999)}@example.org",
            "phone": f"+44 7{rng.randint(100000000, 999999999)}",
            "born": _date(dt.date(1950, 1, 1), rng.randint(0, 20000)),
            "loyalty": {
                "tier": rng.choice(["none", "silver", "gold"]),
                "points": rng.randint(0, 9000),
            },
            "cards": cards,
            "bookings": [],
        }
        return passenger_id

    def _add_booking(self, rng: random.Random, state: State, passenger_id: str) -> str:
        code = rng.choice(sorted(state["sailings"]))
        date = rng.choice(sorted(state["sailings"][code]["dates"]))
        passenger = state["passengers"][passenger_id]
        booking = self._booking(rng, state, passenger_id, code, date, rng.randint(1, 4))
        booking["status"] = rng.choice(["confirmed", "confirmed", "checked_in", "cancelled"])
        booking["card"] = rng.choice(sorted(passenger["cards"]))
        return self._store_booking(rng, state, passenger_id, booking)

    def _booking(
        self, rng: random.Random, state: State, passenger_id: str, code: str, date: str, party: int
    ) -> dict[str, Any]:
        fare = state["sailings"][code]["dates"][date]["fare"]
        travellers = [
            {"first": f, "last": la, "age": rng.randint(1, 85)}
            for f, la in (_person(rng) for _ in range(party))
        ]
        return {
            "passenger_id": passenger_id,
            "sailing": code,
            "date": date,
            "travellers": travellers,
            "vehicle": None
            if rng.random() < 0.6
            else {
                "kind": rng.choice(["car", "van", "bike"]),
                "plate": f"{rng.choice(WORDS)[:2].upper()}{rng.randint(10, 99)} {rng.choice(WORDS)[:3].upper()}",
            },
            "total": round(fare * party, 2),
            "status": "confirmed",
            "card": "",
        }

    def _store_booking(
        self, rng: random.Random, state: State, passenger_id: str, booking: dict[str, Any]
    ) -> str:
        alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
        booking_id = "".join(rng.choice(alphabet) for _ in range(6))
        while booking_id in state["bookings"]:
            booking_id = "".join(rng.choice(alphabet) for _ in range(6))
        state["bookings"][booking_id] = booking
        state["passengers"][passenger_id]["bookings"].append(booking_id)
        return booking_id

    def tool_specs(self) -> list[dict[str, Any]]:
        pid = _str("The passenger id, such as 'ana_berg_1234'.")
        bid = _str("The six-character booking reference, such as 'Q7K2MX'.")
        return [
            _tool(
                "get_passenger",
                "Get a passenger's profile: name, contact, loyalty, cards and booking references.",
                {"passenger_id": pid},
                ["passenger_id"],
            ),
            _tool(
                "find_passenger_by_email",
                "Find a passenger id by email address.",
                {"email": _str("The passenger's email.")},
                ["email"],
            ),
            _tool(
                "get_booking",
                "Get a booking by its reference.",
                {"booking_id": bid},
                ["booking_id"],
            ),
            _tool(
                "get_sailing",
                "Get a sailing (route, vessel, departure time) and its "
                "schedule of dated departures.",
                {"sailing": _str("The sailing code, such as 'FR1042'.")},
                ["sailing"],
            ),
            _tool(
                "search_departures",
                "Departures between two ports on one date, with fare and seats left.",
                {
                    "origin": _str("Port of departure."),
                    "destination": _str("Port of arrival."),
                    "date": _str("Date, YYYY-MM-DD.", format="date"),
                },
                ["origin", "destination", "date"],
            ),
            _tool("list_ports", "All ports served, in alphabetical order.", {}, []),
            _tool(
                "book_sailing",
                "Book a departure for a passenger, paid by one of their "
                "cards. Returns the new booking.",
                {
                    "passenger_id": pid,
                    "sailing": _str("The sailing code."),
                    "date": _str("Date, YYYY-MM-DD.", format="date"),
                    "party_size": {"type": "integer", "minimum": 1, "maximum": 9},
                    "card": _str("The card id, such as 'card_123456'."),
                },
                ["passenger_id", "sailing", "date", "party_size", "card"],
                "write",
            ),
            _tool(
                "cancel_booking",
                "Cancel a booking; its seats go back on sale. Returns the booking.",
                {"booking_id": bid},
                ["booking_id"],
                "write",
            ),
            _tool(
                "update_phone",
                "Change a passenger's phone number. Returns the profile.",
                {"passenger_id": pid, "phone": _str("The new phone number.")},
                ["passenger_id", "phone"],
                "write",
            ),
        ]

    def run(self, state: State, tool: str, arguments: dict[str, Any]) -> str:
        passengers, bookings, sailings = state["passengers"], state["bookings"], state["sailings"]
        if tool == "get_passenger":
            return json.dumps(_keyed(passengers, arguments["passenger_id"], "passenger"))
        if tool == "find_passenger_by_email":
            for passenger_id, record in passengers.items():
                if record["email"] == arguments["email"]:
                    return str(passenger_id)
            raise ToolError("passenger not found")
        if tool == "get_booking":
            booking_id = arguments["booking_id"]
            return json.dumps({"booking_id": booking_id, **_keyed(bookings, booking_id, "booking")})
        if tool == "get_sailing":
            return json.dumps(_keyed(sailings, arguments["sailing"], "sailing"))
        if tool == "search_departures":
            return json.dumps(self._departures(sailings, **arguments))
        if tool == "list_ports":
            return json.dumps(
                sorted({s[k] for s in sailings.values() for k in ("origin", "destination")})
            )
        if tool == "book_sailing":
            return self._book(state, **arguments)
        if tool == "cancel_booking":
            booking = _keyed(bookings, arguments["booking_id"], "booking")
            if booking["status"] == "cancelled":
                raise ToolError("booking is already cancelled")
            booking["status"] = "cancelled"
            day = sailings[booking["sailing"]]["dates"][booking["date"]]
            day["seats_left"] += len(booking["travellers"])
            return json.dumps({"booking_id": arguments["booking_id"], **booking})
        if tool == "update_phone":
            passenger = _keyed(passengers, arguments["passenger_id"], "passenger")
            passenger["phone"] = arguments["phone"]
            return json.dumps(passenger)
        raise ToolError(f"unknown tool {tool}")

    @staticmethod
    def _departures(
        sailings: dict[str, Any], origin: str, destination: str, date: str
    ) -> list[dict[str, Any]]:
        found = []
        for code, sailing in sailings.items():
            day = sailing["dates"].get(date)
            if sailing["origin"] == origin and sailing["destination"] == destination and day:
                found.append(
                    {
                        "sailing": code,
                        "departs": sailing["departs"],
                        "vessel": sailing["vessel"],
                        **day,
                    }
                )
        return found

    def _book(
        self, state: State, passenger_id: str, sailing: str, date: str, party_size: int, card: str
    ) -> str:
        passenger = _keyed(state["passengers"], passenger_id, "passenger")
        day = _keyed(_keyed(state["sailings"], sailing, "sailing")["dates"], date, "departure")
        if card not in passenger["cards"]:
            raise ToolError("card not found")
        if day["status"] != "scheduled" or day["seats_left"] < party_size:
            raise ToolError("not enough seats on that departure")
        rng = random.Random(f"{passenger_id}/{sailing}/{date}/{len(state['bookings'])}")
        booking = self._booking(rng, state, passenger_id, sailing, date, party_size)
        booking["card"] = card
        day["seats_left"] -= party_size
        booking_id = self._store_booking(rng, state, passenger_id, booking)
        return json.dumps({"booking_id": booking_id, **booking})

    def episode(self, rng: random.Random, state: State) -> Iterator[tuple[str, dict[str, Any]]]:
        passengers, bookings = state["passengers"], state["bookings"]
        passenger_id = rng.choice(sorted(passengers))
        email = passengers[passenger_id]["email"]
        if rng.random() < 0.3:
            yield "find_passenger_by_email", {"email": email.replace("@", "x@")}
        yield "find_passenger_by_email", {"email": email}
        yield "get_passenger", {"passenger_id": passenger_id}
        for booking_id in passengers[passenger_id]["bookings"][:2]:
            if rng.random() < 0.25:
                yield "get_booking", {"booking_id": _wrong_id(bookings.__contains__, booking_id)}
            yield "get_booking", {"booking_id": booking_id}
            yield "get_sailing", {"sailing": bookings[booking_id]["sailing"]}
        if rng.random() < 0.2:
            yield "list_ports", {}
        code = rng.choice(sorted(state["sailings"]))
        sailing = state["sailings"][code]
        date = rng.choice(sorted(sailing["dates"]))
        yield (
            "search_departures",
            {"origin": sailing["origin"], "destination": sailing["destination"], "date": date},
        )
        card = sorted(passengers[passenger_id]["cards"])[0]
        yield (
            "book_sailing",
            {
                "passenger_id": passenger_id,
                "sailing": code,
                "date": date,
                "party_size": rng.randint(1, 3),
                "card": card,
            },
        )
        booking_id = passengers[passenger_id]["bookings"][-1]
        yield "get_booking", {"booking_id": booking_id}
        if rng.random() < 0.5:
            yield "cancel_booking", {"booking_id": booking_id}
            yield (
                "search_departures",
                {"origin": sailing["origin"], "destination": sailing["destination"], "date": date},
            )
        if rng.random() < 0.3:
            yield (
                "update_phone",
                {
                    "passenger_id": passenger_id,
                    "phone": f"+44 7{rng.randint(100000000, 999999999)}",
                },
            )
            yield "get_passenger", {"passenger_id": passenger_id}


def _keyed(collection: dict[str, Any], key: str, what: str) -> dict[str, Any]:
    record = collection.get(key)
    if not isinstance(record, dict):
        raise ToolError(f"{what} not found")
    return record


# ---------------------------------------------------------------------------------------------
# clinic: arrays of records with id fields (string and integer ids), linked by id


class ClinicShape:
    name = "clinic"
    title = "Group medical practice, front desk"
    description = (
        "The front desk system of a group medical practice. Receptionists look up patients, "
        "clinicians and appointments, search a clinician's diary by day, and schedule, move or "
        "cancel appointments. Tools answer with JSON text; errors are plain text starting with "
        "'Error:'."
    )
    base = dt.date(2025, 9, 1)
    specialties = ("cardiology", "dermatology", "family medicine", "neurology", "pediatrics")

    def __init__(self, days: int = 60) -> None:
        self.days = days

    def build_state(self, rng: random.Random, target_bytes: int) -> State:
        insurers = [
            {
                "insurer_id": f"INS-{i:02d}",
                "name": f"{rng.choice(WORDS).title()} Health",
                "copay_pct": rng.choice([0, 10, 20, 30]),
                "in_network": rng.random() < 0.8,
            }
            for i in range(1, 9)
        ]
        state: State = {"insurers": insurers, "clinicians": [], "patients": [], "appointments": []}
        n_clinicians = max(4, target_bytes // 40_000)
        for i in range(n_clinicians):
            first, last = _person(rng)
            state["clinicians"].append(
                {
                    "clinician_id": 101 + i * 3,
                    "name": f"Dr {first} {last}",
                    "specialty": rng.choice(self.specialties),
                    "room": f"{rng.randint(1, 4)}{rng.randint(1, 30):02d}",
                    "accepting_new": rng.random() < 0.6,
                    "fee": rng.choice([60, 80, 95, 120, 150]),
                }
            )
        _fill(lambda: self._add_history(rng, state), lambda: _size(state), target_bytes)
        return state

    def _add_history(self, rng: random.Random, state: State) -> None:
        patient = self._add_patient(rng, state)
        for _ in range(rng.randint(1, 5)):
            self._add_appointment(
                state,
                patient["patient_id"],
                rng.choice(state["clinicians"]),
                _date(self.base, rng.randint(0, self.days - 1)),
                f"{rng.randint(8, 17):02d}:{rng.choice(['00', '20', '40'])}",
                rng.choice(["booked", "booked", "attended", "cancelled", "no_show"]),
                _text(rng, rng.randint(3, 12)),
            )

    def _add_patient(self, rng: random.Random, state: State) -> dict[str, Any]:
        first, last = _person(rng)
        insured = rng.random() < 0.75
        patient = {
            "patient_id": f"PT-{len(state['patients']) * 3 + 10007:06d}",
            "full_name": f"{first} {last}",
            "birth_date": _date(dt.date(1940, 1, 1), rng.randint(0, 30000)),
            "insured": insured,
            "insurer_id": rng.choice(state["insurers"])["insurer_id"] if insured else None,
            "allergies": rng.sample(
                ["penicillin", "latex", "nuts", "pollen", "iodine"], rng.randint(0, 2)
            ),
            "contact": {
                "phone": f"555-{rng.randint(1000, 9999)}",
                "address": f"{rng.randint(1, 300)} {rng.choice(WORDS).title()} Lane, {rng.choice(PLACES)}",
            },
        }
        state["patients"].append(patient)
        return patient

    @staticmethod
    def _add_appointment(
        state: State,
        patient_id: str,
        clinician: dict[str, Any],
        date: str,
        time: str,
        status: str,
        notes: str,
    ) -> dict[str, Any]:
        appointment = {
            "appointment_id": f"AP{len(state['appointments']) + 500001}",
            "patient_id": patient_id,
            "clinician_id": clinician["clinician_id"],
            "date": date,
            "time": time,
            "status": status,
            "fee": float(clinician["fee"]),
            "notes": notes,
        }
        state["appointments"].append(appointment)
        return appointment

    def tool_specs(self) -> list[dict[str, Any]]:
        pid = _str("The patient id, such as 'PT-010007'.")
        aid = _str("The appointment id, such as 'AP500001'.")
        cid = {"type": "integer", "description": "The clinician's numeric id."}
        date = _str("Date, YYYY-MM-DD.", format="date")
        time = _str("Time, HH:MM.", pattern="^[0-2][0-9]:[0-5][0-9]$")
        return [
            _tool("get_patient", "Get a patient's record.", {"patient_id": pid}, ["patient_id"]),
            _tool(
                "get_appointment",
                "Get an appointment.",
                {"appointment_id": aid},
                ["appointment_id"],
            ),
            _tool("get_clinician", "Get a clinician.", {"clinician_id": cid}, ["clinician_id"]),
            _tool(
                "clinician_diary",
                "A clinician's appointments on one day, optionally only those with a given status.",
                {
                    "clinician_id": cid,
                    "date": date,
                    "status": _str(
                        "Appointment status.", enum=["booked", "attended", "cancelled", "no_show"]
                    ),
                },
                ["clinician_id", "date"],
            ),
            _tool(
                "find_clinicians",
                "Clinicians of a specialty, optionally only those accepting new patients.",
                {
                    "specialty": _str("Specialty.", enum=list(self.specialties)),
                    "accepting_new": {"type": "boolean"},
                },
                ["specialty"],
            ),
            _tool("list_insurers", "All insurers the practice works with.", {}, []),
            _tool(
                "schedule_appointment",
                "Book a patient with a clinician. Returns the appointment.",
                {"patient_id": pid, "clinician_id": cid, "date": date, "time": time},
                ["patient_id", "clinician_id", "date", "time"],
                "write",
            ),
            _tool(
                "reschedule_appointment",
                "Move a booked appointment. Returns it.",
                {"appointment_id": aid, "date": date, "time": time},
                ["appointment_id", "date", "time"],
                "write",
            ),
            _tool(
                "cancel_appointment",
                "Cancel a booked appointment. Returns it.",
                {"appointment_id": aid},
                ["appointment_id"],
                "write",
            ),
        ]

    def run(self, state: State, tool: str, arguments: dict[str, Any]) -> str:
        if tool == "get_patient":
            return json.dumps(
                _listed(state["patients"], "patient_id", arguments["patient_id"], "patient")
            )
        if tool == "get_appointment":
            return json.dumps(self._appointment(state, arguments["appointment_id"]))
        if tool == "get_clinician":
            return json.dumps(
                _listed(state["clinicians"], "clinician_id", arguments["clinician_id"], "clinician")
            )
        if tool == "clinician_diary":
            _listed(state["clinicians"], "clinician_id", arguments["clinician_id"], "clinician")
            found = [
                a
                for a in state["appointments"]
                if a["clinician_id"] == arguments["clinician_id"]
                and a["date"] == arguments["date"]
                and arguments.get("status", a["status"]) == a["status"]
            ]
            return json.dumps(sorted(found, key=lambda a: a["time"]))
        if tool == "find_clinicians":
            return json.dumps(
                [
                    c
                    for c in state["clinicians"]
                    if c["specialty"] == arguments["specialty"]
                    and arguments.get("accepting_new", c["accepting_new"]) == c["accepting_new"]
                ]
            )
        if tool == "list_insurers":
            return json.dumps(state["insurers"])
        if tool == "schedule_appointment":
            _listed(state["patients"], "patient_id", arguments["patient_id"], "patient")
            clinician = _listed(
                state["clinicians"], "clinician_id", arguments["clinician_id"], "clinician"
            )
            self._check_free(state, clinician["clinician_id"], arguments["date"], arguments["time"])
            return json.dumps(
                self._add_appointment(
                    state,
                    arguments["patient_id"],
                    clinician,
                    arguments["date"],
                    arguments["time"],
                    "booked",
                    "",
                )
            )
        appointment = self._appointment(state, arguments["appointment_id"])
        if appointment["status"] != "booked":
            raise ToolError(f"appointment is {appointment['status']}, not booked")
        if tool == "reschedule_appointment":
            self._check_free(
                state, appointment["clinician_id"], arguments["date"], arguments["time"]
            )
            appointment["date"], appointment["time"] = arguments["date"], arguments["time"]
        else:
            appointment["status"] = "cancelled"
        return json.dumps(appointment)

    @staticmethod
    def _appointment(state: State, appointment_id: str) -> dict[str, Any]:
        return _listed(state["appointments"], "appointment_id", appointment_id, "appointment")

    @staticmethod
    def _check_free(state: State, clinician_id: int, date: str, time: str) -> None:
        for a in state["appointments"]:
            if (a["clinician_id"], a["date"], a["time"], a["status"]) == (
                clinician_id,
                date,
                time,
                "booked",
            ):
                raise ToolError("the clinician is already booked at that time")

    def episode(self, rng: random.Random, state: State) -> Iterator[tuple[str, dict[str, Any]]]:
        patient = rng.choice(state["patients"])
        patient_id = patient["patient_id"]
        if rng.random() < 0.3:
            yield (
                "get_patient",
                {
                    "patient_id": _wrong_id(
                        lambda p: _find(state["patients"], "patient_id", p) is not None, patient_id
                    )
                },
            )
        yield "get_patient", {"patient_id": patient_id}
        mine = [a for a in state["appointments"] if a["patient_id"] == patient_id]
        for appointment in mine[:2]:
            yield "get_appointment", {"appointment_id": appointment["appointment_id"]}
            yield "get_clinician", {"clinician_id": appointment["clinician_id"]}
        if rng.random() < 0.2:
            yield "list_insurers", {}
        specialty = rng.choice(self.specialties)
        yield "find_clinicians", {"specialty": specialty, "accepting_new": True}
        clinician = rng.choice(state["clinicians"])
        date = _date(self.base, rng.randint(0, self.days - 1))
        yield "clinician_diary", {"clinician_id": clinician["clinician_id"], "date": date}
        time = f"{rng.randint(8, 17):02d}:{rng.choice(['00', '20', '40'])}"
        yield (
            "schedule_appointment",
            {
                "patient_id": patient_id,
                "clinician_id": clinician["clinician_id"],
                "date": date,
                "time": time,
            },
        )
        new_id = state["appointments"][-1]["appointment_id"]
        if rng.random() < 0.25:
            yield (
                "get_appointment",
                {
                    "appointment_id": _wrong_id(
                        lambda a: _find(state["appointments"], "appointment_id", a) is not None,
                        new_id,
                    )
                },
            )
        if rng.random() < 0.5:
            later = _date(self.base, rng.randint(0, self.days - 1))
            yield "reschedule_appointment", {"appointment_id": new_id, "date": later, "time": time}
        else:
            yield "cancel_appointment", {"appointment_id": new_id}
        yield "get_appointment", {"appointment_id": new_id}
        yield (
            "clinician_diary",
            {"clinician_id": clinician["clinician_id"], "date": date, "status": "booked"},
        )


def _listed(records: list[dict[str, Any]], field: str, value: Any, what: str) -> dict[str, Any]:
    record = _find(records, field, value)
    if record is None:
        raise ToolError(f"{what} not found")
    return record


# ---------------------------------------------------------------------------------------------
# warehouse: collections nested under sub-objects, keyed and listed, per-variant sub-records


class WarehouseShape:
    name = "warehouse"
    title = "Wholesale warehouse, stock and dispatch"
    description = (
        "The stock and dispatch system of a wholesale warehouse. Staff look up catalogue items "
        "(each with its variants' stock and price), suppliers, carriers and shipments, search "
        "items by category and price, and dispatch shipments or mark them delivered. Tools "
        "answer with JSON text; errors are plain text starting with 'Error:'."
    )
    base = dt.date(2025, 1, 6)
    categories = ("fasteners", "lighting", "plumbing", "tools", "paint", "garden", "electrical")

    def __init__(self, variants_per_item: int = 6) -> None:
        self.variants_per_item = variants_per_item

    def build_state(self, rng: random.Random, target_bytes: int) -> State:
        suppliers = [
            {
                "supplier_id": f"sup_{i:03d}",
                "name": f"{rng.choice(WORDS).title()} Supply",
                "country": rng.choice(["DE", "PL", "CN", "US", "IT", "VN"]),
                "lead_days": rng.randint(3, 40),
                "preferred": rng.random() < 0.3,
            }
            for i in range(1, 31)
        ]
        carriers = {
            f"CR{i}": {
                "name": f"{rng.choice(WORDS).title()} Freight",
                "tracking_prefix": f"{rng.choice(WORDS)[:3].upper()}",
            }
            for i in range(1, 7)
        }
        state: State = {
            "catalog": {"items": {}, "updated": _date(self.base, 0)},
            "partners": {"suppliers": suppliers, "carriers": carriers},
            "operations": {"shipments": {}, "next_shipment": 1},
        }
        _fill(
            lambda: self._add_item(rng, state),
            lambda: _size(state["catalog"]),
            int(target_bytes * 0.6),
        )
        skus = sorted(state["catalog"]["items"])
        _fill(lambda: self._add_old_shipment(rng, state, skus), lambda: _size(state), target_bytes)
        return state

    def _add_old_shipment(self, rng: random.Random, state: State, skus: list[str]) -> None:
        sku = rng.choice(skus)
        variant = rng.choice(sorted(state["catalog"]["items"][sku]["variants"]))
        carrier = rng.choice(sorted(state["partners"]["carriers"]))
        shipment = self._shipment(
            state, sku, variant, rng.randint(1, 40), carrier, rng.randint(0, 120)
        )
        shipment["delivered"] = rng.random() < 0.7

    def _add_item(self, rng: random.Random, state: State) -> None:
        sku = f"{rng.randint(10, 99)}-{len(state['catalog']['items']) + 10000}"
        sizes = ["S", "M", "L", "XL", "10mm", "20mm", "1L", "5L"]
        colors = ["black", "white", "red", "green", "steel", "brass"]
        variants = {}
        for _ in range(self.variants_per_item):
            variants[f"{rng.choice(colors)}-{rng.choice(sizes)}"] = {
                "stock": rng.randint(0, 500),
                "price": round(rng.uniform(0.5, 250), 2),
                "discontinued": rng.random() < 0.1,
                "bin": f"{rng.choice('ABCDEFGH')}{rng.randint(1, 60)}",
            }
        state["catalog"]["items"][sku] = {
            "title": f"{rng.choice(WORDS).title()} {rng.choice(['bracket', 'lamp', 'valve', 'drill', 'primer', 'hose', 'switch'])}",
            "category": rng.choice(self.categories),
            "supplier_id": rng.choice(state["partners"]["suppliers"])["supplier_id"],
            "variants": variants,
        }

    def _shipment(
        self, state: State, sku: str, variant: str, quantity: int, carrier: str, day: int
    ) -> dict[str, Any]:
        operations = state["operations"]
        shipment_id = f"SH-{operations['next_shipment']:06d}"
        operations["next_shipment"] += 1
        shipment = {
            "sku": sku,
            "variant": variant,
            "quantity": quantity,
            "carrier_id": carrier,
            "shipped_on": _date(self.base, day),
            "delivered": False,
        }
        operations["shipments"][shipment_id] = shipment
        return shipment

    def tool_specs(self) -> list[dict[str, Any]]:
        sku = _str("The item's SKU, such as '42-10007'.")
        sid = _str("The shipment id, such as 'SH-000123'.")
        return [
            _tool("get_item", "Get a catalogue item with all its variants.", {"sku": sku}, ["sku"]),
            _tool(
                "get_stock",
                "Stock, price and bin of one variant of an item.",
                {"sku": sku, "variant": _str("The variant, such as 'black-M'.")},
                ["sku", "variant"],
            ),
            _tool(
                "search_items",
                "Items of a category (and supplier, if given) with at least one variant in "
                "stock at or under a price, by SKU; the first `limit` (default 20).",
                {
                    "category": _str("Category.", enum=list(self.categories)),
                    "max_price": {"type": "number", "exclusiveMinimum": 0},
                    "supplier_id": _str("Only this supplier's items, such as 'sup_004'."),
                    "limit": {"type": "integer", "minimum": 1, "maximum": 50},
                },
                ["category", "max_price"],
            ),
            _tool(
                "get_supplier",
                "Get a supplier.",
                {"supplier_id": _str("Such as 'sup_004'.")},
                ["supplier_id"],
            ),
            _tool("get_shipment", "Get a shipment.", {"shipment_id": sid}, ["shipment_id"]),
            _tool("list_carriers", "All carriers, keyed by carrier id.", {}, []),
            _tool(
                "dispatch",
                "Ship a quantity of one variant with a carrier; takes it out of "
                "stock. Returns the shipment.",
                {
                    "sku": sku,
                    "variant": _str("The variant."),
                    "quantity": {"type": "integer", "minimum": 1},
                    "carrier_id": _str("Such as 'CR2'."),
                },
                ["sku", "variant", "quantity", "carrier_id"],
                "write",
            ),
            _tool(
                "mark_delivered",
                "Record a shipment as delivered. Returns it.",
                {"shipment_id": sid},
                ["shipment_id"],
                "write",
            ),
        ]

    def run(self, state: State, tool: str, arguments: dict[str, Any]) -> str:
        items, shipments = state["catalog"]["items"], state["operations"]["shipments"]
        if tool == "get_item":
            return json.dumps({"sku": arguments["sku"], **_keyed(items, arguments["sku"], "item")})
        if tool == "get_stock":
            item = _keyed(items, arguments["sku"], "item")
            return json.dumps(_keyed(item["variants"], arguments["variant"], "variant"))
        if tool == "search_items":
            return json.dumps(self._search(items, **arguments))
        if tool == "get_supplier":
            return json.dumps(
                _listed(
                    state["partners"]["suppliers"],
                    "supplier_id",
                    arguments["supplier_id"],
                    "supplier",
                )
            )
        if tool == "get_shipment":
            return json.dumps(_keyed(shipments, arguments["shipment_id"], "shipment"))
        if tool == "list_carriers":
            return json.dumps(state["partners"]["carriers"])
        if tool == "dispatch":
            variant = _keyed(
                _keyed(items, arguments["sku"], "item")["variants"], arguments["variant"], "variant"
            )
            _keyed(state["partners"]["carriers"], arguments["carrier_id"], "carrier")
            if variant["stock"] < arguments["quantity"]:
                raise ToolError(f"only {variant['stock']} in stock")
            variant["stock"] -= arguments["quantity"]
            shipment_id = f"SH-{state['operations']['next_shipment']:06d}"
            self._shipment(
                state,
                arguments["sku"],
                arguments["variant"],
                arguments["quantity"],
                arguments["carrier_id"],
                130,
            )
            return json.dumps({"shipment_id": shipment_id, **shipments[shipment_id]})
        if tool == "mark_delivered":
            shipment = _keyed(shipments, arguments["shipment_id"], "shipment")
            if shipment["delivered"]:
                raise ToolError("shipment is already delivered")
            shipment["delivered"] = True
            return json.dumps(shipment)
        raise ToolError(f"unknown tool {tool}")

    @staticmethod
    def _search(
        items: dict[str, Any],
        category: str,
        max_price: float,
        supplier_id: str | None = None,
        limit: int = 20,
    ) -> dict[str, Any]:
        found: dict[str, Any] = {}
        for sku, item in items.items():
            if item["category"] != category or supplier_id not in (None, item["supplier_id"]):
                continue
            variants = [
                v for v, r in item["variants"].items() if r["price"] <= max_price and r["stock"]
            ]
            if variants:
                found[sku] = {"title": item["title"], "variants": sorted(variants)}
            if len(found) == limit:
                break
        return found

    def episode(self, rng: random.Random, state: State) -> Iterator[tuple[str, dict[str, Any]]]:
        items, shipments = state["catalog"]["items"], state["operations"]["shipments"]
        sku = rng.choice(sorted(items))
        if rng.random() < 0.3:
            yield "get_item", {"sku": _wrong_id(items.__contains__, sku)}
        yield "get_item", {"sku": sku}
        variant = rng.choice(sorted(items[sku]["variants"]))
        yield "get_stock", {"sku": sku, "variant": variant}
        yield "get_supplier", {"supplier_id": items[sku]["supplier_id"]}
        search = {"category": items[sku]["category"], "max_price": round(rng.uniform(5, 120), 2)}
        if rng.random() < 0.7:
            search["supplier_id"] = items[sku]["supplier_id"]
        if rng.random() < 0.3:
            search["limit"] = rng.randint(3, 10)
        yield "search_items", search
        if rng.random() < 0.2:
            yield "list_carriers", {}
        quantity = rng.randint(1, 30)
        yield (
            "dispatch",
            {
                "sku": sku,
                "variant": variant,
                "quantity": quantity,
                "carrier_id": rng.choice(sorted(state["partners"]["carriers"])),
            },
        )
        yield "get_stock", {"sku": sku, "variant": variant}
        shipment_id = f"SH-{state['operations']['next_shipment'] - 1:06d}"
        yield "get_shipment", {"shipment_id": shipment_id}
        pending = sorted(k for k, v in shipments.items() if not v["delivered"])
        old = rng.choice(pending if pending and rng.random() < 0.8 else sorted(shipments))
        yield "mark_delivered", {"shipment_id": old}
        if rng.random() < 0.3:
            yield "get_shipment", {"shipment_id": _wrong_id(shipments.__contains__, old)}
        yield "get_shipment", {"shipment_id": old}


# ---------------------------------------------------------------------------------------------
# worlds, calls and the command line

SHAPES: dict[str, Callable[[int], Shape]] = {
    "ferry": FerryShape,
    "clinic": ClinicShape,
    "warehouse": WarehouseShape,
}


DETAIL = {"ferry": 20, "clinic": 60, "warehouse": 6}
"""Each shape's default number of sub-records per record: dated departures per sailing, days
in a clinician's diary, variants per item."""


def make_world(shape: str, size_mb: float, seed: int, detail: int | None = None) -> dict[str, Any]:
    """The world spec (plain data, ready for ``World.model_validate`` or :func:`world_yaml`)
    of ``shape`` whose state is about ``size_mb`` MB of compact JSON, with ``detail``
    sub-records per record (``DETAIL`` by default)."""
    kind = SHAPES[shape](detail or DETAIL[shape])
    rng = random.Random(f"{shape}/{seed}/state")
    state = kind.build_state(rng, int(size_mb * 1_000_000))
    return {
        "world": f"gen-{shape}-{seed}",
        "title": kind.title,
        "domain": "mcp",
        "description": kind.description,
        "state": state,
        "tools": kind.tool_specs(),
    }


def record_calls(
    shape: str,
    state: State,
    seed: int,
    episodes: int,
    *,
    carry_state: bool = False,
    detail: int | None = None,
) -> list[RecordedCall]:
    """Run ``episodes`` episodes of ``shape``'s tools, each from a fresh copy of ``state``, or
    with ``carry_state`` all on one copy, one after the other (one long session). ``detail``
    is the one the world was made with."""
    kind = SHAPES[shape](detail or DETAIL[shape])
    writes = {t["name"] for t in kind.tool_specs() if t["effect"] == "write"}
    calls: list[RecordedCall] = []
    live = json.loads(json.dumps(state))
    for episode in range(episodes):
        rng = random.Random(f"{shape}/{seed}/episode/{episode}")
        if episode and not carry_state:
            live = json.loads(json.dumps(state))
        for step, (tool, arguments) in enumerate(kind.episode(rng, live)):
            # Reads leave the state as it is (the tests check it): only a write needs the copy.
            before = json.loads(json.dumps(live)) if tool in writes else live
            try:
                response, is_error = kind.run(live, tool, arguments), False
            except ToolError as exc:
                response, is_error = f"Error: {exc}", True
            calls.append(
                RecordedCall(
                    episode,
                    step,
                    tool,
                    arguments,
                    response,
                    is_error,
                    _detached(state_patch(before, live)),
                )
            )
    return calls


def state_patch(before: JSON, after: JSON, pointer: str = "") -> list[dict[str, Any]]:
    """``jsonpatch.make_patch(before, after)`` with its pointers rooted at ``pointer``, computed
    only where the two differ: diffing a whole multi-MB state per write takes seconds, while
    equal subtrees compare in C. Objects are walked key by key, so a changed record yields the
    operations of its changed fields."""
    if before == after:
        return []
    if isinstance(before, dict) and isinstance(after, dict):
        ops: list[dict[str, Any]] = []
        for key in before:
            child = f"{pointer}/{_escape(key)}"
            if key not in after:
                ops.append({"op": "remove", "path": child})
            else:
                ops += state_patch(before[key], after[key], child)
        for key in after:
            if key not in before:
                ops.append({"op": "add", "path": f"{pointer}/{_escape(key)}", "value": after[key]})
        return ops
    if isinstance(before, list) and isinstance(after, list) and len(after) >= len(before):
        ops = []
        for i, value in enumerate(before):
            ops += state_patch(value, after[i], f"{pointer}/{i}")
        ops += [
            {"op": "add", "path": f"{pointer}/{i}", "value": after[i]}
            for i in range(len(before), len(after))
        ]
        return ops
    ops = jsonpatch.make_patch(before, after).patch
    return [_rooted(op, pointer) for op in ops]


def _detached(patch: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The patch with its values copied: they are the live state's objects, which the
    episode's later calls go on changing."""
    detached: list[dict[str, Any]] = json.loads(json.dumps(patch))
    return detached


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def _rooted(op: dict[str, Any], pointer: str) -> dict[str, Any]:
    rooted = dict(op, path=pointer + op["path"])
    if "from" in op:
        rooted["from"] = pointer + op["from"]
    return rooted


def write_world(
    outdir: Path, shape: str, size_mb: float, seed: int, episodes: int, detail: int | None = None
) -> None:
    """Write ``world.yaml`` and ``calls.jsonl`` of a generated world into ``outdir``."""
    world = make_world(shape, size_mb, seed, detail)
    calls = record_calls(shape, world["state"], seed, episodes, detail=detail)
    outdir.mkdir(parents=True, exist_ok=True)
    header = (
        f"# Generated by tests/world_generator.py --shape {shape} --size-mb {size_mb} "
        f"--seed {seed} --detail {detail or DETAIL[shape]}\n"
    )
    (outdir / "world.yaml").write_text(header + world_yaml(world), encoding="utf-8")
    with (outdir / "calls.jsonl").open("w", encoding="utf-8") as out:
        for call in calls:
            out.write(json.dumps(call.to_json()) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--shape", choices=sorted(SHAPES), default="ferry")
    parser.add_argument("--size-mb", type=float, default=4.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--episodes", type=int, default=100)
    parser.add_argument("--detail", type=int, help="sub-records per record (default by shape)")
    parser.add_argument("outdir", type=Path)
    args = parser.parse_args(argv)
    write_world(args.outdir, args.shape, args.size_mb, args.seed, args.episodes, args.detail)
    print(f"wrote {args.outdir / 'world.yaml'} and {args.outdir / 'calls.jsonl'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
