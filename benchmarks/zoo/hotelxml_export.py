"""The ``hotelxml`` shape's export as it is generated: hotels with their rooms, and a guest's
reservations with their folios, laid out as ``xmltodict`` gives an XML document (attributes as
``@`` keys, text beside them as ``#text``, a lone repeated element as itself, an empty one as
``null``; every value a string)."""

from __future__ import annotations

import datetime as dt
import random
from typing import Any

from benchmarks.zoo.kit import day, words

ROOM_TYPES = ["SGL", "DBL", "TWN", "STE", "FAM"]
STATUSES = ["booked", "checked-in", "checked-out", "cancelled", "no-show"]
PLANS = ["BAR", "ADV14", "CORP", "B&B", "PKG"]
FEATURES = ["sea view", "balcony", "bathtub", "accessible", "quiet side", "kitchenette"]
CHARGES = {"MINIBAR": "Minibar", "REST": "Restaurant", "SPA": "Spa", "PARK": "Parking"}
CHARGES |= {"LAUNDRY": "Laundry", "BAR": "Bar"}
CENTS = ["25", "50", "75", "95", "45"]


def money(rng: random.Random, low: int, high: int) -> str:
    """A price as the export writes it (never whole, so that a number and its text agree)."""
    return f"{rng.randint(low, high)}.{rng.choice(CENTS)}"


def folio_line(number: int, posted: str, code: str, text: str, amount: str) -> dict[str, Any]:
    return {
        "@no": str(number),
        "@posted": posted,
        "Code": code,
        "Description": text,
        "Amount": {"@currency": "EUR", "#text": amount},
    }


def hotel(rng: random.Random, city: str) -> dict[str, Any]:
    rooms = []
    for floor in range(1, rng.randint(3, 5)):
        for n in range(1, rng.randint(5, 10)):
            features = rng.sample(FEATURES, rng.choice([0, 1, 1, 2, 3]))
            rooms.append(
                {
                    "@number": f"{floor}{n:02d}",
                    "@type": rng.choice(ROOM_TYPES),
                    "@floor": str(floor),
                    "Beds": str(rng.randint(1, 3)),
                    "Rate": {"@currency": "EUR", "#text": money(rng, 69, 320)},
                    "Features": {"Feature": features[0] if len(features) == 1 else features}
                    if features
                    else None,
                }
            )
    return {
        "@code": city[:3].upper(),
        "Name": f"{city} {rng.choice(['Harbour', 'Grand', 'Station', 'Park'])} Hotel",
        "Address": {"Street": f"{rng.randint(1, 80)} {words(rng, 1).title()} Street"}
        | {"Town": city, "Country": "GB"},
        "Rooms": {"Room": rooms},
    }


def reservation(
    rng: random.Random, hotel: dict[str, Any], guest: str, serial: int
) -> dict[str, Any]:
    room = rng.choice(hotel["Rooms"]["Room"])
    arrival = dt.date.fromisoformat(day(rng))
    departure = arrival + dt.timedelta(days=rng.randint(1, 7))
    status = rng.choices(STATUSES, (2, 1, 6, 1, 1))[0]
    lines = [
        folio_line(
            n,
            f"{arrival}T{rng.randint(12, 23):02d}:{rng.randint(0, 59):02d}",
            code,
            CHARGES[code],
            money(rng, 3, 180),
        )
        for n, code in enumerate(
            rng.choices(
                list(CHARGES),
                k=rng.choice([0, 0, 1, 1, 2, 3, 5])
                if status in ("checked-in", "checked-out")
                else 0,
            ),
            start=1,
        )
    ]
    created = arrival - dt.timedelta(days=rng.randint(1, 120))
    reservation = {
        "@confirmation": f"{hotel['@code']}-{arrival:%y%m}-{serial:06d}",
        "@status": status,
        "@created": f"{created}T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}",
        "GuestRef": {"@idref": guest},
        "Stay": {
            "@hotel": hotel["@code"],
            "@room": room["@number"],
            "Arrival": str(arrival),
            "Departure": str(departure),
            "Adults": str(rng.randint(1, 3)),
            "Children": str(rng.choice([0, 0, 0, 1, 2])),
        },
        "RatePlan": {"@code": rng.choice(PLANS), "Nightly": dict(room["Rate"])},
        "Folio": ({"Line": lines[0] if len(lines) == 1 else lines} if lines else None),
    }
    if rng.random() < 0.3:
        reservation["Remarks"] = f"Guest asks for {words(rng, 3)}."
    return reservation
