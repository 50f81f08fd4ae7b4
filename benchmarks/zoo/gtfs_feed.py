"""A city's GTFS static feed (the ``gtfs`` shape's state) as a CSV-to-JSON converter holds it:
one key per file of the feed's zip (``stops.txt``, ``stop_times.txt``, ...), each an array of
rows whose values are all text as the CSV had them (``"47.612345"``, ``"0"``, ``""`` for an
empty column); tables joined only by ids (a stop time names its trip and stop, a trip its route
and service); times of day past midnight written as ``"25:10:00"``; a stop inside a station
naming it in ``parent_station``; the days a service runs as weekday columns of ``calendar.txt``
between two ``YYYYMMDD`` dates, less and plus the dates of ``calendar_dates.txt``
(``exception_type`` 2 removes a day, 1 adds one)."""

from __future__ import annotations

import random
from datetime import date

from benchmarks.zoo.kit import State, fill, size_of

AGENCY = {
    "agency_id": "MTA",
    "agency_name": "Metro Transit Authority",
    "agency_url": "https://metrotransit.example.org",
    "agency_timezone": "America/Los_Angeles",
    "agency_lang": "en",
    "agency_phone": "206-555-0100",
}
DAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
SERVICES = {"WKDY": "1111100", "SAT": "0000010", "SUN": "0000001", "SCHOOL": "1111100"}
FEED_START, FEED_END = "20250901", "20260131"
HOLIDAYS = [
    ("20251127", "WKDY", "2"),
    ("20251127", "SCHOOL", "2"),
    ("20251127", "SUN", "1"),
    ("20251128", "WKDY", "2"),
    ("20251128", "SAT", "1"),
    ("20251225", "WKDY", "2"),
    ("20251225", "SCHOOL", "2"),
    ("20251225", "SUN", "1"),
    ("20260101", "WKDY", "2"),
    ("20260101", "SCHOOL", "2"),
    ("20260101", "SUN", "1"),
]
STREETS = ["Pine", "Union", "Harbor", "Cedar", "Madison", "Jackson", "Summit", "Rainier"]
CROSS = ["1st Ave", "3rd Ave", "5th Ave", "Broadway", "12th Ave", "Boren Ave", "Valley St"]
COLORS = ["E31837", "0072CE", "00A651", "F7941D", "8E44AD", "FDB913", "6D6E71"]


def clock(seconds: int) -> str:
    """A GTFS time of day: hours go on past 24 for a trip that runs after midnight."""
    return f"{seconds // 3600:02d}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}"


def seconds_of(text: str) -> int:
    hours, minutes, secs = (int(part) for part in text.split(":"))
    return hours * 3600 + minutes * 60 + secs


def runs_on(state: State, service_id: str, day: str) -> bool:
    """Whether a service runs on a ``YYYYMMDD`` day: its calendar, then its exceptions."""
    for row in state["calendar_dates.txt"]:
        if row["service_id"] == service_id and row["date"] == day:
            return bool(row["exception_type"] == "1")
    for row in state["calendar.txt"]:
        if row["service_id"] == service_id and row["start_date"] <= day <= row["end_date"]:
            weekday = date(int(day[:4]), int(day[4:6]), int(day[6:])).weekday()
            return bool(row[DAYS[weekday]] == "1")
    return False


def _stops(rng: random.Random) -> list[dict[str, str]]:
    rows = []
    for n, (street, cross) in enumerate((s, c) for s in STREETS for c in CROSS):
        lat, lon = 47.58 + n % 9 * 0.009, -122.36 + n // 9 * 0.011
        station = n % 7 == 0
        base = {"stop_id": str(1000 + 10 * n), "stop_code": "" if station else str(1000 + 10 * n)}
        name = f"{street} St & {cross}" if not station else f"{street} Station"
        base |= {"stop_name": name, "stop_desc": "", "stop_lat": f"{lat:.6f}"}
        base |= {"stop_lon": f"{lon:.6f}", "zone_id": str(1 + n // 20)}
        base |= {"location_type": "1" if station else "0", "parent_station": ""}
        base["wheelchair_boarding"] = rng.choice(["0", "1", "1", "2"])
        rows.append(base)
        if station:
            for bay in ("A", "B"):
                platform = base | {"stop_id": f"{base['stop_id']}{bay}", "location_type": "0"}
                platform |= {
                    "stop_name": f"{street} Station Bay {bay}",
                    "parent_station": base["stop_id"],
                }
                rows.append(platform | {"stop_code": platform["stop_id"]})
    return rows


def _place(stop_name: str) -> str:
    """Where a stop is, as a headsign or a route's name writes it: its street or station."""
    return stop_name.split(" &")[0].split(" Bay ")[0]


def _routes(
    rng: random.Random, stops: list[dict[str, str]]
) -> tuple[list[dict[str, str]], dict[str, list[str]]]:
    boarding = [s["stop_id"] for s in stops if s["location_type"] == "0"]
    routes, paths = [], {}
    for n, short in enumerate(["1", "2", "7", "10", "12", "36", "40", "48", "62", "70", "C", "E"]):
        kind = "0" if short in ("C", "E") else "3"
        path = rng.sample(boarding, rng.randint(12, 26))
        first, last = (
            next(s["stop_name"] for s in stops if s["stop_id"] == p) for p in (path[0], path[-1])
        )
        route = {
            "route_id": f"{100 + n}",
            "agency_id": AGENCY["agency_id"],
            "route_short_name": short,
        }
        route |= {"route_long_name": f"{_place(first)} - {_place(last)}"}
        route |= {"route_desc": "", "route_type": kind, "route_url": ""}
        route |= {"route_color": COLORS[n % len(COLORS)], "route_text_color": "FFFFFF"}
        routes.append(route)
        paths[route["route_id"]] = path
    return routes, paths


class Timetable:
    """Trips added one at a time, each with its stop times along its route's path."""

    def __init__(self, rng: random.Random, state: State, paths: dict[str, list[str]]) -> None:
        self.rng, self.state, self.paths = rng, state, paths
        self.names = {s["stop_id"]: s["stop_name"] for s in state["stops.txt"]}
        self.next_id = rng.randint(4_100_000, 4_200_000)

    def add(self) -> None:
        rng = self.rng
        route = rng.choice(self.state["routes.txt"])
        direction = rng.choice(["0", "1"])
        path = self.paths[route["route_id"]]
        path = path if direction == "0" else path[::-1]
        service = rng.choices(list(SERVICES), [6, 2, 2, 1])[0]
        self.next_id += rng.randint(1, 40)
        trip_id = str(self.next_id)
        trip = {"route_id": route["route_id"], "service_id": service, "trip_id": trip_id}
        trip |= {"trip_headsign": _place(self.names[path[-1]]), "trip_short_name": ""}
        trip |= {
            "direction_id": direction,
            "block_id": f"{route['route_short_name']}-{rng.randint(1, 30)}",
        }
        trip |= {
            "shape_id": f"{route['route_id']}_{direction}",
            "wheelchair_accessible": rng.choice(["1", "1", "0"]),
        }
        self.state["trips.txt"].append(trip)
        at = rng.randrange(5 * 3600, 25 * 3600 + 1800, 300)
        travelled = 0.0
        for sequence, stop in enumerate(path, start=1):
            dwell = 60 if sequence % 5 == 0 else 0
            row = {
                "trip_id": trip_id,
                "arrival_time": clock(at),
                "departure_time": clock(at + dwell),
            }
            row |= {"stop_id": stop, "stop_sequence": str(sequence), "stop_headsign": ""}
            row |= {"pickup_type": "1" if sequence == len(path) else "0"}
            row |= {"drop_off_type": "1" if sequence == 1 else "0"}
            row |= {
                "shape_dist_traveled": f"{travelled:.1f}",
                "timepoint": "1" if dwell or sequence == 1 else "0",
            }
            self.state["stop_times.txt"].append(row)
            at += dwell + 60 * rng.randint(1, 4)
            travelled += rng.uniform(250, 900)


def feed(rng: random.Random, target_bytes: int) -> State:
    """The feed of about ``target_bytes``: its fixed stops, routes and calendars, and trips
    added until it is that size; stop times grouped by trip, as feeds write them."""
    stops = _stops(rng)
    routes, paths = _routes(rng, stops)
    calendar = [
        {"service_id": s}
        | {d: pattern[i] for i, d in enumerate(DAYS)}
        | {"start_date": FEED_START, "end_date": FEED_END}
        for s, pattern in SERVICES.items()
    ]
    exceptions = [{"service_id": s, "date": d, "exception_type": e} for d, s, e in HOLIDAYS]
    state: State = {
        "agency.txt": [dict(AGENCY)],
        "stops.txt": stops,
        "routes.txt": routes,
        "trips.txt": [],
        "stop_times.txt": [],
        "calendar.txt": calendar,
        "calendar_dates.txt": exceptions,
        "feed_info.txt": [
            {
                "feed_publisher_name": AGENCY["agency_name"],
                "feed_publisher_url": AGENCY["agency_url"],
            }
            | {"feed_lang": "en", "feed_start_date": FEED_START, "feed_end_date": FEED_END}
            | {"feed_version": f"{FEED_START}-r{rng.randint(1, 9)}"}
        ],
    }
    fill(Timetable(rng, state, paths).add, lambda: size_of(state), target_bytes)
    return state
